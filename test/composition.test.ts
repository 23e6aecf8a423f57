import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Effect, Exit, Layer, Scope } from "effect"
import { AppLive } from "../src/App.ts"
import { AppConfig } from "../src/Config.ts"
import { ContentServices } from "../src/features/content/Live.ts"
import { CustomersLive } from "../src/features/customers/Live.ts"
import { DashboardSections } from "../src/features/dashboard/Dashboard.ts"
import { DashboardServices } from "../src/features/dashboard/Live.ts"
import { SettingsServices } from "../src/features/settings/Live.ts"
import { PlatformServices } from "../src/platform/Platform.ts"
import { freePort, send, testConfig, testDatabaseUrl } from "./support/harness.ts"

/**
 * A memo map that counts how often each layer is built: it hands itself to
 * every nested build, so each layer of the app passes through it.
 */
const countingMemoMap = () => {
  const inner = Layer.makeMemoMapUnsafe()
  const builds = new Map<Layer.Layer<any, any, any>, number>()
  const memoMap: Layer.MemoMap = {
    ["~effect/Layer/MemoMap"]: "~effect/Layer/MemoMap",
    get: (layer, scope) => inner.get(layer, scope),
    getOrElseMemoize: (layer, scope, build) =>
      inner.getOrElseMemoize(layer, scope, (_, buildScope) => {
        builds.set(layer, (builds.get(layer) ?? 0) + 1)
        return build(memoMap, buildScope)
      })
  }
  return { memoMap, builds: (layer: Layer.Layer<any, any, any>) => builds.get(layer) ?? 0 }
}

describe("composition", () => {
  it.live(
    "the whole app builds each shared layer once: one database pool, one platform, one registry of sections",
    () =>
      Effect.gen(function*() {
        const { memoMap, builds } = countingMemoMap()
        const config = yield* testConfig(yield* testDatabaseUrl, yield* Effect.promise(freePort))
        const scope = yield* Scope.make()
        const context = yield* Layer.buildWithMemoMap(
          AppLive.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config))),
          memoMap,
          scope
        ).pipe(Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()))
        // The pool is opened by DatabaseLive, which only PlatformServices holds: once built, one pool.
        for (
          const [name, layer] of Object.entries({
            PlatformServices,
            CustomersLive,
            SettingsServices,
            ContentServices,
            DashboardServices
          })
        ) {
          assert.strictEqual(builds(layer), 1, name)
        }
        assert.strictEqual(builds(DashboardSections.layer), 1, "DashboardSections.layer")
        // Sections registered by several features land in that one registry.
        const ids = Context.get(context, DashboardSections).all().map((section) => section.id)
        assert.includeMembers(ids, ["queue", "workflows", "social", "analytics", "reports", "status"])
        // The REST API (served by the server) and a feature's own page (added by its layer) answer.
        const base = `http://127.0.0.1:${config.port}`
        assert.strictEqual((yield* Effect.promise(() => send(base, "GET", "/api/health"))).status, 200)
        assert.strictEqual((yield* Effect.promise(() => send(base, "GET", "/status"))).status, 200)
        yield* Scope.close(scope, Exit.void)
      }),
    { timeout: 120_000 }
  )
})
