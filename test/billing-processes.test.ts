import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { send, testApp, TestServer } from "./support/harness.ts"
import { externalDatabaseUrl } from "./support/harness.ts"
import { randomIp, sharedDatabase, withSql } from "./support/processes.ts"

// Two application instances on one database, as two processes would be. PGlite is one
// session, so several instances on it is not a deployment: PostgreSQL only.
describe("trial expiry across instances", () => {
  it.live.skipIf(externalDatabaseUrl() === undefined)(
    "two instances claim the daily run once: each unpaid trial is cancelled once",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const database = yield* sharedDatabase
        const build = (scope: Parameters<typeof Layer.buildWithScope>[1]) =>
          Effect.map(
            Layer.buildWithScope(testApp({ database, trustProxy: true, trialSweepIntervalMs: 20 }), scope),
            (context) => Context.get(context, TestServer)
          )
        const scope = yield* Effect.scope
        const a = yield* build(scope)
        const b = yield* build(scope)

        // Sign-ups on both instances.
        const ids: Array<string> = []
        for (let i = 0; i < 10; i++) {
          const app = i % 2 === 0 ? a : b
          const ip = randomIp()
          const started = yield* Effect.promise(() =>
            send(app.url, "POST", "/api/checkout", {
              headers: { "x-forwarded-for": ip },
              body: { email: `multi${i}@example.com` }
            })
          )
          const sessionId = new URL(started.json.url).pathname.split("/").pop()!
          const page = yield* Effect.promise(() => send(app.url, "GET", `/checkout/${sessionId}`))
          const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]
          const done = yield* Effect.promise(() =>
            send(app.url, "POST", `/checkout/${sessionId}`, {
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: `_csrf=${encodeURIComponent(token)}`,
              raw: true
            })
          )
          assert.strictEqual(done.status, 303)
          const result = yield* Effect.promise(() =>
            send(app.url, "GET", `/api/session/${sessionId}`, { headers: { "x-forwarded-for": ip } })
          )
          ids.push(result.json.customerId)
        }

        yield* withSql(database, (sql) =>
          Effect.gen(function*() {
            yield* sql`UPDATE customers SET trial_ends_at = now() - interval '1 second'`
            yield* sql`UPDATE scheduled_jobs SET next_run_at = now() WHERE name = 'trial-expiry'`
          }))
        let cancelled = 0
        for (let i = 0; i < 100 && cancelled < ids.length; i++) {
          yield* Effect.sleep("100 millis")
          cancelled = (yield* withSql(database, (sql) =>
            sql<{ n: number }>`SELECT count(*)::int AS n FROM customers WHERE status = 'cancelled'`))[0].n
        }
        assert.strictEqual(cancelled, ids.length)
        // Let both instances look a few more times: the run is not due again for a day.
        yield* Effect.sleep("300 millis")
        const events = yield* withSql(database, (sql) =>
          sql<{ customerId: string; n: number }>`
        SELECT customer_id, count(*)::int AS n FROM events
        WHERE type = 'customer.status_changed' AND data->>'to' = 'cancelled' GROUP BY customer_id`)
        assert.strictEqual(events.length, ids.length)
        assert.isTrue(events.every((row) =>
          row.n === 1
        ))
        const next = yield* withSql(database, (sql) =>
          sql<{ hours: number }>`
        SELECT extract(epoch FROM next_run_at - now()) / 3600 AS hours FROM scheduled_jobs WHERE name = 'trial-expiry'`)
        assert.isAbove(Number(next[0].hours), 23.9)
        assert.isBelow(
          Number(next[0].hours),
          24.1,
          "claimed once: a second claim would have needed the run to be due again"
        )
      })),
    { timeout: 60_000 }
  )
})
