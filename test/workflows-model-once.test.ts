import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { send } from "./support/harness.ts"
import { startOpenAiServer } from "./support/openai-server.ts"
import { modelServiceEnv, processStarter, sharedDatabase, withSql } from "./support/processes.ts"

/**
 * A model call is paid once: a real server process (`node src/main.ts`) with
 * the test entry point test/support/crash-main.ts, with HERALD_TEST_CRASH_STEP=answer:social-1, kills itself (SIGKILL)
 * right after the model's answer for that piece arrived and before the piece
 * is stored; the restarted process stores the piece from the recorded answer.
 * Every model request is counted by the local OpenAI-protocol server.
 */
class Shared extends Context.Service<Shared, { readonly url: string }>()("test/workflows-model-once/Shared") {}

const SharedLive = Layer.effect(Shared, Effect.map(sharedDatabase, (url) => ({ url })))

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const waitUntil = <E, R>(done: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline && !(yield* done)) yield* Effect.promise(() => sleep(50))
  })

layer(SharedLive, { timeout: 300_000, excludeTestServices: true })("model calls across kill -9", (it) => {
  it.effect(
    "a process killed between a model answer and its piece: after the restart, model calls equal pieces written",
    () =>
      Effect.gen(function*() {
        const { url: database } = yield* Shared
        const model = yield* Effect.acquireRelease(Effect.promise(startOpenAiServer), (s) => Effect.promise(s.close))
        model.script({
          kind: "text",
          chunks: ["A fresh loaf\n\n", "Bread, baked daily. #Bread"],
          usage: { prompt: 10, completion: 10 }
        })
        const env = {
          ...modelServiceEnv(database, model.url, "model-once-test:1"),
          HERALD_TEST_CRASH_STEP: "answer:social-1"
        }
        const start = yield* processStarter({ env, entry: "test/support/crash-main.ts", readyTimeoutMs: 60_000 })
        let server = yield* start
        const provisioned = yield* Effect.promise(() =>
          send(server.url, "POST", "/api/admin/provision", {
            headers: { "x-admin-secret": "test-admin-secret" },
            body: { email: "model-once@example.com" }
          })
        )
        assert.strictEqual(provisioned.status, 200, provisioned.text)
        const { customerId, apiKey } = provisioned.json as { customerId: string; apiKey: string }
        const api = (method: string, path: string, body?: unknown) =>
          Effect.promise(() =>
            send(server.url, method, path, {
              headers: { authorization: `Bearer ${apiKey}` },
              ...(body === undefined ? {} : { body })
            })
          )
        const exited = new Promise((r) => server.child.once("exit", r))
        const run = yield* api("POST", `/api/workflows/${customerId}/weekly-content-plan/run`, {
          input: { platforms: ["x"], postsPerWeek: 3, topics: ["bread"] }
        })
        assert.strictEqual(run.status, 200, run.text)
        const runId = run.json.runId as string
        // The process kills itself once the answer for social-1 is recorded.
        yield* Effect.promise(() => exited)
        const pieces = () =>
          withSql(database, (sql) =>
            Effect.map(
              sql<{ n: number }>`SELECT count(*)::int AS n FROM content WHERE customer_id = ${customerId}`,
              (rows) => rows[0]!.n
            ))
        // The blog post and social-0 were stored; social-1's answer was recorded but its piece was not.
        assert.strictEqual(yield* pieces(), 2)
        assert.strictEqual(model.requests.length, 3)

        server = yield* start
        const status = () =>
          withSql(database, (sql) =>
            Effect.map(sql<{ status: string }>`SELECT status FROM workflow_runs WHERE id = ${runId}`, (rows) =>
              rows[0]!.status))
        yield* waitUntil(Effect.map(status(), (s) =>
          s === "suspended"))
        assert.strictEqual(yield* status(), "suspended")
        // One blog post and three social posts, and one model call for each: social-1's answer was not asked for twice.
        assert.strictEqual(yield* pieces(), 4)
        assert.strictEqual(model.requests.length, 4)
        const steps = (yield* api("GET", `/api/content/${customerId}?limit=100`)).json.content.map((p: any) =>
          p.metadata.step
        ).sort()
        assert.deepStrictEqual(steps, ["blog-0", "social-0", "social-1", "social-2"])
      }),
    300_000
  )
})
