import { assert, layer } from "@effect/vitest"
import { Context, Effect } from "effect"
import { maxUnfinishedStarts } from "../src/features/workflows/StepStarts.ts"
import { Workflows } from "../src/features/workflows/Workflows.ts"
import { engineRowsOf } from "./support/engineRows.ts"
import { call, TestServer } from "./support/harness.ts"
import { appWithModel, ModelServer } from "./support/model-app.ts"

const AppWithModel = appWithModel(
  { workflowBudgetRetrySeconds: 1, workflowPollIntervalMs: 200 },
  { kind: "text", chunks: ["Fresh bread\n\n", "Baked every morning."], usage: { prompt: 100, completion: 50 } }
)

layer(AppWithModel, { timeout: 120_000, excludeTestServices: true })("a run over budget", (it) => {
  it.effect("suspends with the reason, sends nothing, and resumes when the cap allows", () =>
    Effect.gen(function*() {
      const model = yield* ModelServer
      const { sql } = yield* TestServer
      const res = yield* call("POST", "/api/admin/provision", {
        headers: { "x-admin-secret": "test-admin-secret" },
        body: { email: "budget@x.co" }
      })
      const t = { id: res.json.customerId as string, h: { authorization: `Bearer ${res.json.apiKey}` } }
      // The worst case of one call is at least 1000 output tokens * 10 / 1e6 = 0.01: a cap of 0.005 refuses it.
      assert.strictEqual(
        (yield* call("PUT", `/api/settings/${t.id}/budget`, { headers: t.h, body: { channels: { model: 0.005 } } }))
          .status,
        200
      )
      yield* call("PUT", `/api/workflows/${t.id}/daily-social-posts`, {
        headers: t.h,
        body: { config: { platforms: ["x"] } }
      })
      const run = yield* call("POST", `/api/workflows/${t.id}/daily-social-posts/run`, { headers: t.h, body: {} })
      const runId = run.json.runId as string
      const waitingFor = () =>
        Effect.map(
          sql<
            { status: string; waitingFor: string | null }
          >`SELECT status, waiting_for FROM workflow_runs WHERE id = ${runId}`,
          (rows) => rows[0]!
        )
      let state = yield* waitingFor()
      for (let i = 0; i < 100 && state.waitingFor !== "budget"; i++) {
        yield* Effect.sleep("100 millis")
        state = yield* waitingFor()
      }
      assert.deepStrictEqual(state, { status: "suspended", waitingFor: "budget" })
      const detail = (yield* call("GET", `/api/runs/${t.id}/${runId}`, { headers: t.h })).json
      assert.strictEqual(detail.status, "suspended")
      assert.strictEqual(detail.steps[0].status, "failed")
      assert.include(detail.steps[0].error, "model channel budget cap")
      const suspended = (yield* call("GET", `/api/events/${t.id}`, { headers: t.h })).json.events.find((e: any) =>
        e.type === "workflow.suspended"
      )
      assert.strictEqual(suspended.data.waitingFor, "budget")
      assert.include(suspended.data.reason, "budget")
      // Still over the cap after more retries than a step may die with its process: nothing was sent to the
      // model, and the run is still waiting (a retry by design is not a crash).
      const attempts = () =>
        Effect.map(
          sql<
            { attempts: number }
          >`SELECT attempts FROM workflow_steps WHERE run_id = ${runId} AND name = 'write-social-posts'`,
          (rows) => rows[0]!.attempts
        )
      for (let i = 0; i < 100 && (yield* attempts()) <= maxUnfinishedStarts; i++) yield* Effect.sleep("100 millis")
      assert.isAbove(yield* attempts(), maxUnfinishedStarts)
      assert.deepStrictEqual(yield* waitingFor(), { status: "suspended", waitingFor: "budget" })
      assert.strictEqual(model.requests.length, 0)
      assert.strictEqual(
        (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM content WHERE customer_id = ${t.id}`)[0]!.n,
        0
      )

      yield* call("PUT", `/api/settings/${t.id}/budget`, { headers: t.h, body: { channels: { model: 1 } } })
      for (let i = 0; i < 100 && state.waitingFor !== "approval"; i++) {
        yield* Effect.sleep("100 millis")
        state = yield* waitingFor()
      }
      assert.deepStrictEqual(state, { status: "suspended", waitingFor: "approval" })
      assert.strictEqual(model.requests.length, 1)
      const spent = yield* sql<
        { amount: string }
      >`SELECT amount::text AS amount FROM spend_ledger WHERE customer_id = ${t.id} AND channel = 'model'`
      // 100 * 10 / 1e6 + 50 * 10 / 1e6 = 0.0015
      assert.deepStrictEqual(spent.map((r) => Number(r.amount)), [0.0015])
      const types = (yield* call("GET", `/api/events/${t.id}?limit=200`, { headers: t.h })).json.events.map((e: any) =>
        e.type
      ).reverse()
        .filter((e: string) => e.startsWith("workflow.") && e !== "workflow.updated")
      assert.deepStrictEqual(types, [
        "workflow.started",
        "workflow.suspended",
        "workflow.resumed",
        "workflow.suspended"
      ])

      // The budget waits were stored as durable clocks, beside the run's own rows.
      const [{ executionId }] = yield* sql<
        { executionId: string }
      >`SELECT execution_id FROM workflow_runs WHERE id = ${runId}`
      const engineRows = () => engineRowsOf(sql, executionId)
      const stored = yield* engineRows()
      assert.isAbove(stored.clock, 0, JSON.stringify(stored))
      assert.isAbove(stored.run, 0, JSON.stringify(stored))
      // The run ends (a rejected piece fails it: the engine clears no clock of its own then).
      const [piece] = yield* sql<
        { id: string }
      >`SELECT id FROM content WHERE customer_id = ${t.id} AND run_id = ${runId} LIMIT 1`
      yield* call("POST", `/api/content/${t.id}/${piece!.id}/review`, {
        headers: t.h,
        body: { action: "reject", note: "no" }
      })
      for (let i = 0; i < 100 && state.status !== "failed"; i++) {
        yield* Effect.sleep("100 millis")
        state = yield* waitingFor()
      }
      assert.strictEqual(state.status, "failed")
      const { config, services } = yield* TestServer
      const workflows = Context.get(services, Workflows)
      // Within the retention nothing is swept; past it, every stored message of the run goes.
      assert.strictEqual(yield* workflows.sweep, 0)
      assert.isAbove((yield* engineRows()).clock, 0)
      yield* sql`UPDATE workflow_runs SET completed_at = now() - make_interval(hours => ${
        config.workflowRetentionHours + 1
      }) WHERE id = ${runId}`
      assert.strictEqual(yield* workflows.sweep, 1)
      assert.deepStrictEqual(yield* engineRows(), { run: 0, clock: 0 })
      const [swept] = yield* sql<{ engineSwept: boolean }>`SELECT engine_swept FROM workflow_runs WHERE id = ${runId}`
      assert.isTrue(swept!.engineSwept)
    }), 60_000)
})
