import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { engineRowsOf } from "./support/engineRows.ts"
import { send } from "./support/harness.ts"
import { startOpenAiServer } from "./support/openai-server.ts"
import { modelServiceEnv, processStarter, sharedDatabase, withSql } from "./support/processes.ts"

/**
 * Real server processes (`node src/main.ts`) on one database, killed with
 * SIGKILL mid-run and started again. The model is the OpenAI-compatible
 * provider against the local protocol server, answering slowly, so a step is
 * caught while it runs; every model request is counted.
 */
class Shared extends Context.Service<Shared, { readonly url: string }>()("test/workflows-crash/Shared") {}

const SharedLive = Layer.effect(Shared, Effect.map(sharedDatabase, (url) => ({ url })))

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls until `done` holds or 60 s pass (the assertion after it says what was expected): CI machines run loaded, so waits are bounded by time, not by a count of polls. */
const waitUntil = <E, R>(done: Effect.Effect<boolean, E, R>, everyMs = 50) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline && !(yield* done)) yield* Effect.promise(() => sleep(everyMs))
  })

layer(SharedLive, { timeout: 400_000, excludeTestServices: true })("workflows across kill -9", (it) => {
  it.effect(
    "a step killed mid-run resumes after restart: no completed step repeats, no piece is written twice; a suspended run survives a restart and resumes on approval; ticks missed while down run once",
    () =>
      Effect.gen(function*() {
        const { url: database } = yield* Shared
        const model = yield* Effect.acquireRelease(Effect.promise(startOpenAiServer), (s) => Effect.promise(s.close))
        model.script({
          kind: "text",
          chunks: ["A fresh loaf\n\n", "Bread, baked daily. #Bread"],
          usage: { prompt: 10, completion: 10 },
          delayMs: 600
        })
        const env = modelServiceEnv(database, model.url, "crash-test:1")
        const start = yield* processStarter({ env, readyTimeoutMs: 60_000 })
        let server = yield* start
        const provisioned = yield* Effect.promise(() =>
          send(server.url, "POST", "/api/admin/provision", {
            headers: { "x-admin-secret": "test-admin-secret" },
            body: { email: "crash@example.com", brandName: "Crumb" }
          })
        )
        assert.strictEqual(provisioned.status, 200)
        const { customerId, apiKey } = provisioned.json as { customerId: string; apiKey: string }
        const api = (method: string, path: string, body?: unknown) =>
          Effect.promise(() =>
            send(server.url, method, path, {
              headers: { authorization: `Bearer ${apiKey}` },
              ...(body === undefined ? {} : { body })
            })
          )

        yield* api("PUT", `/api/workflows/${customerId}/weekly-content-plan`, {
          config: { platforms: ["x"], postsPerWeek: 4, topics: ["bread"] }
        })
        const run = yield* api("POST", `/api/workflows/${customerId}/weekly-content-plan/run`, {})
        assert.strictEqual(run.status, 200)
        const runId = run.json.runId as string

        // Wait until the blog step is done and the social step has written one piece, then kill -9.
        const pieces = () =>
          Effect.map(api("GET", `/api/content/${customerId}?limit=100`), (r) => r.json.content as Array<any>)
        // Waits poll the database directly: the API's rate limit (60 a minute) is not under test here.
        const count = (query: string) =>
          withSql(database, (sql) =>
            Effect.map(sql.unsafe<{ n: number }>(query, [customerId]), (rows) => Number(rows[0]!.n)))
        const status = () =>
          withSql(database, (sql) =>
            Effect.map(sql<{ status: string }>`SELECT status FROM workflow_runs WHERE id = ${runId}`, (rows) =>
              rows[0]!.status))
        yield* waitUntil(
          Effect.map(count("SELECT count(*)::int AS n FROM content WHERE customer_id = $1"), (n) =>
            n >= 2),
          20
        )
        const before = yield* pieces()
        assert.isAtLeast(before.length, 2)
        assert.isBelow(before.length, 5)
        server.child.kill("SIGKILL")
        yield* Effect.promise(() =>
          new Promise((r) =>
            server.child.once("exit", r)
          )
        )
        const requestsAtKill = model.requests.length
        const blogRequests = () =>
          model.requests.filter((r) => JSON.stringify(r.messages).includes("Write a blog")).length
        assert.strictEqual(blogRequests(), 1)

        server = yield* start
        const restartedAt = Date.now()
        let detail: any
        // How fast it resumes is a benchmark figure (bench:workflows), not an assertion: on a loaded CI machine it varies tenfold.
        yield* waitUntil(Effect.map(status(), (s) => s === "suspended"))
        detail = (yield* api("GET", `/api/runs/${customerId}/${runId}`)).json
        assert.strictEqual(detail.status, "suspended", JSON.stringify(detail))
        const resumedWithinMs = Date.now() - restartedAt
        console.log(`run resumed to its approval wait ${resumedWithinMs} ms after the restarted process answered`)
        const after = yield* pieces()
        // One blog post and four social posts: nothing lost, nothing written twice.
        assert.strictEqual(after.length, 5)
        assert.deepStrictEqual(after.map((p) => p.metadata.step).sort(), [
          "blog-0",
          "social-0",
          "social-1",
          "social-2",
          "social-3"
        ])
        assert.strictEqual(blogRequests(), 1, "the completed blog step ran again")
        // Model calls after the restart: only the pieces not yet written (the interrupted one at most once more).
        assert.isAtMost(model.requests.length - requestsAtKill, 5 - before.length + 1)
        assert.deepStrictEqual(detail.steps.map((s: any) => [s.name, s.status]), [
          ["write-blog-post", "succeeded"],
          ["write-social-posts", "succeeded"],
          ["await-approval", "running"]
        ])

        // Suspended across another kill -9: approval through the API after the restart resumes it.
        server.child.kill("SIGKILL")
        yield* Effect.promise(() => new Promise((r) => server.child.once("exit", r)))
        server = yield* start
        for (const piece of after) {
          const reviewed = yield* api("POST", `/api/content/${customerId}/${piece.id}/review`, { action: "approve" })
          assert.strictEqual(reviewed.status, 200)
        }
        yield* waitUntil(Effect.map(status(), (s) => s === "succeeded"))
        detail = (yield* api("GET", `/api/runs/${customerId}/${runId}`)).json
        assert.strictEqual(detail.status, "succeeded", JSON.stringify(detail))
        assert.strictEqual((yield* pieces()).length, 5)
        const events = (yield* api("GET", `/api/events/${customerId}?limit=200`)).json.events.map((e: any) => e.type)
          .reverse()
          .filter((t: string) => t.startsWith("workflow.") && t !== "workflow.updated")
        assert.deepStrictEqual(events, [
          "workflow.started",
          "workflow.suspended",
          "workflow.resumed",
          "workflow.completed"
        ])

        // The sweep: a run that ended longer ago than the retention loses its engine messages (hourly, by one process;
        // the next period is made due while the process is down).
        const engineMessages = () =>
          withSql(database, (sql) =>
            Effect.gen(function*() {
              const [{ executionId }] = yield* sql<
                { executionId: string }
              >`SELECT execution_id FROM workflow_runs WHERE id = ${runId}`
              const rows = yield* engineRowsOf(sql, executionId)
              return rows.run + rows.clock
            }))
        assert.isAbove(yield* engineMessages(), 0)
        yield* withSql(database, (sql) =>
          sql`UPDATE workflow_runs SET completed_at = now() - interval '30 days' WHERE id = ${runId}`)
        // A weekly schedule; then the process is down across three of its ticks (the stored tick is moved back while it is down).
        yield* api("PUT", `/api/workflows/${customerId}/performance-report`, {
          schedule: "0 8 * * 1",
          timezone: "Europe/Berlin"
        })
        assert.strictEqual(
          (yield* api("POST", `/api/workflows/${customerId}/performance-report/toggle`, { enabled: true })).status,
          200
        )
        server.child.kill("SIGKILL")
        yield* Effect.promise(() =>
          new Promise((r) => server.child.once("exit", r))
        )
        yield* withSql(database, (sql) =>
          sql`UPDATE workflows SET next_run_at = now() - interval '3 weeks' WHERE customer_id = ${customerId} AND id = 'performance-report'`)
        yield* withSql(database, (sql) =>
          sql`UPDATE scheduled_jobs SET next_run_at = now() WHERE name = 'workflows: sweep'`)
        server = yield* start
        yield* waitUntil(Effect.map(engineMessages(), (n) =>
          n === 0))
        assert.strictEqual(yield* engineMessages(), 0)
        assert.strictEqual((yield* api("GET", `/api/runs/${customerId}/${runId}`)).json.status, "succeeded")
        // The missed ticks run once at start-up, not once each; the next tick is the schedule's next from now.
        const cronRuns = () =>
          count("SELECT count(*)::int AS n FROM workflow_runs WHERE customer_id = $1 AND triggered_by = 'cron'")
        yield* waitUntil(Effect.map(cronRuns(), (n) =>
          n > 0))
        yield* Effect.promise(() =>
          sleep(1_500)
        )
        assert.strictEqual(yield* cronRuns(), 1)
        const [next] = yield* withSql(database, (sql) =>
          sql<
            { nextRunAt: Date }
          >`SELECT next_run_at FROM workflows WHERE customer_id = ${customerId} AND id = 'performance-report'`)
        assert.isAbove(new Date(next!.nextRunAt).getTime(), Date.now())
      }),
    400_000
  )
})
