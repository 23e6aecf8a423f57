import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { type AyrshareFake, startAyrshareFake } from "./support/ayrshare-fake.ts"
import { externalDatabaseUrl, send } from "./support/harness.ts"
import {
  adminSecret,
  provisionAt,
  type ServerProcess,
  sharedDatabase,
  startServer,
  withSql
} from "./support/processes.ts"

/**
 * A periodic job runs once per period across the instances, not once per
 * instance: two real processes on one PostgreSQL, with the provider metrics
 * refresh (which calls Ayrshare's analytics, counted by the local fake) due
 * once an hour. PGlite is one process by design: skipped there.
 */
class Shared extends Context.Service<Shared, { readonly database: string; readonly fake: AyrshareFake }>()(
  "test/cluster-periodic/Shared"
) {}
const SharedLive = Layer.effect(
  Shared,
  Effect.gen(function*() {
    const database = yield* sharedDatabase
    const fake = yield* Effect.acquireRelease(
      Effect.promise(() => startAyrshareFake()),
      (f) => Effect.promise(() => f.close())
    )
    return { database, fake }
  })
)

const server = (database: string, fake: AyrshareFake, baseUrl: string) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      startServer({
        env: {
          DATABASE_URL: database,
          ADMIN_SECRET: adminSecret,
          TRUST_PROXY: "true",
          // The fake provider listens on loopback.
          ALLOW_PRIVATE_TARGETS: "true",
          LOG_LEVEL: "error",
          PG_MAX_CONNECTIONS: "4",
          SOCIAL_PROVIDER: "ayrshare",
          AYRSHARE_API_KEY: fake.apiKey,
          AYRSHARE_PRIVATE_KEY: "private",
          AYRSHARE_BASE_URL: baseUrl,
          PUBLISH_POLL_INTERVAL_MS: "50",
          METRICS_REFRESH_INTERVAL_MS: String(3_600_000)
        },
        readyTimeoutMs: 60_000
      })
    ),
    (process) => Effect.promise(() => process.kill(5000))
  )

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

const waitUntil = (check: () => boolean | Promise<boolean>, ms: number, what: string) =>
  Effect.promise(async () => {
    for (const deadline = Date.now() + ms; !(await check());) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`)
      await new Promise((r) => setTimeout(r, 100))
    }
  })

/** Longer than two of a process's checks for a due period (every 5 s at most): a second run would have begun. */
const everyProcessLooked = 12_000

const suite = externalDatabaseUrl() === undefined ? describe.skip : describe

suite("periodic jobs across instances (needs PostgreSQL)", () => {
  layer(SharedLive, { timeout: 240_000, excludeTestServices: true })("two processes on one PostgreSQL", (it) => {
    it.effect(
      "the hourly metrics refresh runs once per period, whichever process claims it",
      () =>
        Effect.gen(function*() {
          const { database, fake } = yield* Shared
          const analytics = () => fake.requests.filter((r) => r.path === "/api/analytics/post")
          // Each process reaches the fake at its own address, so each call says which process made it.
          const a = yield* server(database, fake, fake.url)

          // A published post the refresh will ask about.
          const owner = yield* Effect.promise(() => provisionAt(a))
          const profileKey = `PK-${randomUUID()}`
          fake.profiles.set(profileKey, {
            title: `herald-${owner.customerId}`,
            refId: randomUUID(),
            linked: new Set(["twitter"])
          })
          yield* withSql(database, (sql) =>
            Effect.andThen(
              sql`INSERT INTO social_profiles (customer_id, provider, profile_key) VALUES (${owner.customerId}, 'ayrshare', ${profileKey})`,
              sql`INSERT INTO social_connections (customer_id, platform, account_name) VALUES (${owner.customerId}, 'x', 'acme')`
            ))
          const auth = { authorization: `Bearer ${owner.apiKey}` }
          const published = yield* Effect.promise(() =>
            send(a.url, "POST", `/api/social/publish/${owner.customerId}`, {
              headers: auth,
              body: { platform: "x", body: "Counted once" }
            })
          )
          assert.strictEqual(published.status, 200, published.text)
          const contentId: string = published.json.id
          yield* waitUntil(
            async () =>
              (await send(a.url, "GET", `/api/content/${owner.customerId}/${contentId}`, { headers: auth })).json
                .status === "published",
            30_000,
            "published"
          )

          // The first process took this hour's period when it started (before the post existed): the second,
          // starting now, finds it taken and asks the provider nothing.
          const b: ServerProcess = yield* server(database, fake, fake.aliasUrl)
          yield* sleep(everyProcessLooked)
          assert.strictEqual(analytics().length, 0, "no refresh before the next period")

          const hosts = new Set<string>()
          for (const period of [1, 2]) {
            yield* withSql(
              database,
              (sql) => sql`UPDATE scheduled_jobs SET next_run_at = now() WHERE name = 'metrics refresh'`
            )
            yield* waitUntil(() => analytics().length >= period, 30_000, `refresh of period ${period}`)
            yield* sleep(everyProcessLooked)
            assert.strictEqual(analytics().length, period, `one refresh in period ${period}, not one per process`)
            hosts.add(String(analytics()[period - 1]!.headers.host))
          }
          assert.isAbove(hosts.size, 0)
          const stored = yield* withSql(database, (sql) =>
            sql<{ impressions: number }>`SELECT impressions FROM post_metrics WHERE content_id = ${contentId}`)
          assert.deepStrictEqual(
            stored.map((row) =>
              Number(row.impressions)
            ),
            [120]
          )
          assert.isTrue(b.child.exitCode === null && a.child.exitCode === null, "both processes ran throughout")
        }),
      200_000
    )
  })
})
