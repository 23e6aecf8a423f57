import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { signOrchestratorRequest } from "../src/domain/OrchestratorSignature.ts"
import { engineRunnerCount } from "./support/engineRows.ts"
import { externalDatabaseUrl, send } from "./support/harness.ts"
import { type ServerProcess, sharedDatabase, startServer, withSql } from "./support/processes.ts"

/**
 * Two server processes on one PostgreSQL, each its own runner in the
 * workflow cluster. (PGlite is one process by design: skipped there.)
 */
class Shared extends Context.Service<Shared, { readonly url: string }>()("test/workflows-cluster/Shared") {}
const SharedLive = Layer.effect(Shared, Effect.map(sharedDatabase, (url) => ({ url })))

const key = "cluster-signing-key"
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const suite = externalDatabaseUrl() === undefined ? describe.skip : describe

suite("workflows on two processes", () => {
  layer(SharedLive, { timeout: 600_000, excludeTestServices: true })("one PostgreSQL", (it) => {
    it.effect(
      "200 runs started on both processes complete with every step executed once; a cron tick fires once",
      () =>
        Effect.gen(function*() {
          const { url: database } = yield* Shared
          const env = {
            DATABASE_URL: database,
            ADMIN_SECRET: "test-admin-secret",
            LOG_LEVEL: "error",
            ORCHESTRATOR_SIGNING_KEY: key,
            WORKFLOW_POLL_INTERVAL_MS: "250",
            PG_MAX_CONNECTIONS: "5"
          }
          const servers: Array<ServerProcess> = []
          yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(servers.map((s) => s.kill(3000)))))
          // Started one after the other: two processes migrating at once is covered elsewhere.
          for (let i = 0; i < 2; i++) {
            servers.push(yield* Effect.promise(() => startServer({ env, readyTimeoutMs: 60_000 })))
          }
          const [a, b] = servers as [ServerProcess, ServerProcess]

          const provisioned = yield* Effect.promise(() =>
            send(a.url, "POST", "/api/admin/provision", {
              headers: { "x-admin-secret": "test-admin-secret" },
              body: { email: "cluster@example.com" }
            })
          )
          const customerId = provisioned.json.customerId as string
          const orchestrate = (server: ServerProcess, body: unknown) => {
            const text = JSON.stringify(body)
            return send(server.url, "POST", "/api/orchestrator", {
              headers: {
                "content-type": "application/json",
                "x-orchestrator-signature": signOrchestratorRequest(key, text, Math.floor(Date.now() / 1000))
              },
              body: text,
              raw: true
            })
          }
          const runIds = yield* Effect.promise(() =>
            Promise.all(Array.from({ length: 200 }, async (_, i) => {
              const res = await orchestrate(i % 2 === 0 ? a : b, { workflow: "performance-report", customerId })
              assert.strictEqual(res.status, 200, res.text)
              return res.json.runId as string
            }))
          )
          assert.strictEqual(new Set(runIds).size, 200)

          const q = <A extends object>(query: string) => withSql(database, (sql) => sql.unsafe<A>(query, [customerId]))
          let done = 0
          // Bounded by time, not by a count of polls: a loaded CI machine has taken minutes where a quiet one takes 30 s.
          for (const deadline = Date.now() + 360_000; Date.now() < deadline && done < 200;) {
            yield* Effect.promise(() => sleep(200))
            done = Number(
              (yield* q<{ n: number }>(
                `SELECT count(*)::int AS n FROM workflow_runs WHERE customer_id = $1 AND status = 'succeeded'`
              ))[0]!.n
            )
          }
          assert.strictEqual(done, 200)
          const steps = yield* q<{ name: string; n: number; attempts: number }>(
            `SELECT s.name, count(*)::int AS n, max(s.attempts)::int AS attempts
          FROM workflow_steps s JOIN workflow_runs r ON r.id = s.run_id WHERE r.customer_id = $1 GROUP BY s.name ORDER BY s.name`
          )
          assert.deepStrictEqual(steps.map((s) => [s.name, s.n, s.attempts]), [["read-analytics", 200, 1], [
            "write-performance-report",
            200,
            1
          ]])
          const events = yield* q<{ type: string; n: number }>(
            `SELECT type, count(*)::int AS n FROM events WHERE customer_id = $1 AND type LIKE 'workflow.%' GROUP BY type ORDER BY type`
          )
          assert.deepStrictEqual(events.map((e) => [e.type, e.n]), [["workflow.completed", 200], [
            "workflow.started",
            200
          ]])
          const hooks = yield* q<{ n: number }>(
            `SELECT count(*)::int AS n FROM webhook_events WHERE customer_id = $1 AND type = 'workflow.completed'`
          )
          assert.strictEqual(hooks[0]!.n, 200)
          assert.strictEqual(yield* withSql(database, engineRunnerCount), 2)

          // One due cron tick, both processes polling: one run.
          yield* withSql(
            database,
            (sql) =>
              sql`UPDATE workflows SET enabled = true, next_run_at = now() - interval '1 minute'
            WHERE customer_id = ${customerId} AND id = 'lead-magnet'`
          )
          yield* Effect.promise(() => sleep(4000))
          const cron = yield* q<{ n: number }>(
            `SELECT count(*)::int AS n FROM workflow_runs WHERE customer_id = $1 AND triggered_by = 'cron'`
          )
          assert.strictEqual(cron[0]!.n, 1)
        }),
      600_000
    )
  })
})
