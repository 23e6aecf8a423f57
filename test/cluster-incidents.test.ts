import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { externalDatabaseUrl, send } from "./support/harness.ts"
import { adminSecret, sharedDatabase, startServer, withSql } from "./support/processes.ts"
import { type TcpProxy, tcpProxy } from "./support/tcp-proxy.ts"

/**
 * Every instance probes the same components, but the public status page shows
 * one incident per outage, not one per instance: two real processes on one
 * PostgreSQL reach Redis through a proxy that is cut, then restored.
 * PGlite is one process by design: skipped there.
 */
class Shared extends Context.Service<Shared, { readonly database: string; readonly proxy: TcpProxy }>()(
  "test/cluster-incidents/Shared"
) {}
const redis = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379")
const SharedLive = Layer.effect(
  Shared,
  Effect.gen(function*() {
    const database = yield* sharedDatabase
    const proxy = yield* tcpProxy(redis.hostname, Number(redis.port || 6379))
    return { database, proxy }
  })
)

const prefix = `herald-incidents-${randomBytes(6).toString("hex")}:`

const server = (database: string, proxy: TcpProxy) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      startServer({
        env: {
          DATABASE_URL: database,
          ADMIN_SECRET: adminSecret,
          LOG_LEVEL: "error",
          PG_MAX_CONNECTIONS: "4",
          REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
          REDIS_KEY_PREFIX: prefix,
          STATUS_PROBE_INTERVAL_MS: "200"
        },
        readyTimeoutMs: 60_000
      })
    ),
    (process) => Effect.promise(() => process.kill(5000))
  )

const waitUntil = (check: () => boolean | Promise<boolean>, ms: number, what: string) =>
  Effect.promise(async () => {
    for (const deadline = Date.now() + ms; !(await check());) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`)
      await new Promise((r) => setTimeout(r, 100))
    }
  })

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

interface Shown {
  readonly status: string
  readonly incidents: ReadonlyArray<
    { readonly id: string; readonly component: string; readonly resolvedAt: string | null }
  >
}

const statusOf = async (url: string): Promise<Shown> => (await send(url, "GET", "/api/public/status")).json as Shown

const suite = externalDatabaseUrl() === undefined ? describe.skip : describe

suite("incidents across instances (needs PostgreSQL)", () => {
  layer(SharedLive, { timeout: 180_000, excludeTestServices: true })("two processes on one PostgreSQL", (it) => {
    it.effect(
      "an outage both instances see is one incident, opened and resolved once, on either instance's status page",
      () =>
        Effect.gen(function*() {
          const { database, proxy } = yield* Shared
          yield* Effect.promise(() => proxy.cut())
          const [a, b] = yield* Effect.all([server(database, proxy), server(database, proxy)], { concurrency: 2 })
          const rateLimitIncidents = (shown: Shown) => shown.incidents.filter((i) => i.component === "rate-limits")
          // Both instances see Redis away, each for many probes.
          yield* waitUntil(
            async () => {
              const [sa, sb] = await Promise.all([statusOf(a.url), statusOf(b.url)])
              return sa.status === "degraded" && sb.status === "degraded"
            },
            30_000,
            "both instances degraded"
          )
          yield* sleep(3000)
          const stored = () =>
            withSql(database, (sql) =>
              sql<
                { id: string; resolvedAt: Date | null }
              >`SELECT id, resolved_at FROM incidents WHERE component = 'rate-limits'`)
          const open = yield* stored()
          assert.strictEqual(open.length, 1, JSON.stringify(open))
          assert.isNull(open[0]!.resolvedAt)
          for (const url of [a.url, b.url]) {
            const shown = rateLimitIncidents(
              yield* Effect.promise(() => statusOf(url))
            )
            assert.deepStrictEqual(shown.map((i) => [i.id, i.resolvedAt]), [[open[0]!.id, null]], url)
          }

          yield* Effect.promise(() => proxy.restore())
          yield* waitUntil(
            async () => {
              const [sa, sb] = await Promise.all([statusOf(a.url), statusOf(b.url)])
              return sa.status === "ok" && sb.status === "ok"
            },
            60_000,
            "both instances ok again"
          )
          yield* sleep(2000)
          const resolved = yield* stored()
          assert.strictEqual(resolved.length, 1, JSON.stringify(resolved))
          assert.isNotNull(resolved[0]!.resolvedAt)
          for (const url of [a.url, b.url]) {
            const shown = rateLimitIncidents(yield* Effect.promise(() => statusOf(url)))
            assert.strictEqual(shown.length, 1, `${url}: ${JSON.stringify(shown)}`)
            assert.strictEqual(shown[0]!.id, resolved[0]!.id)
            assert.isNotNull(shown[0]!.resolvedAt)
          }
        }),
      170_000
    )
  })
})
