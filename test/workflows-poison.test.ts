import { assert, describe, it, layer } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { Context, Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { externalDatabaseUrl, send } from "./support/harness.ts"
import { provisionAt, type ServerProcess, sharedDatabase, startServer, withSql } from "./support/processes.ts"

/**
 * A run whose step kills its process: real server processes on one
 * database, started through test/support/crash-main.ts, whose
 * HERALD_TEST_CRASH_STEP makes a named step SIGKILL its process when it
 * starts. The run is resumed
 * at each restart and kills the process again, until its step has died
 * three times: then it is failed, and the process stays up.
 */
class Shared extends Context.Service<Shared, { readonly url: string }>()("test/workflows-poison/Shared") {}

const SharedLive = Layer.effect(Shared, Effect.map(sharedDatabase, (url) => ({ url })))

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const exited = (server: ServerProcess) =>
  new Promise<string | null>((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve(server.child.signalCode)
    server.child.once("exit", (_code, signal) => resolve(signal))
  })

/** Starts the service; every process started is killed when the test's scope closes. */
const starter = (servers: Array<ServerProcess>, env: Record<string, string | undefined>) => ({
  start: (crashStep: string | undefined) =>
    Effect.promise(async () => {
      const server = await startServer({
        env: { ...env, HERALD_TEST_CRASH_STEP: crashStep },
        entry: "test/support/crash-main.ts",
        readyTimeoutMs: 120_000
      })
      servers.push(server)
      return server
    }),
  /**
   * A start that resumes the poison run: the process may die before it
   * answers its health check or just after; either way it must die of its
   * own SIGKILL.
   */
  startToCrash: (crashStep: string) =>
    Effect.promise(async () => {
      try {
        const server = await startServer({
          env: { ...env, HERALD_TEST_CRASH_STEP: crashStep },
          entry: "test/support/crash-main.ts",
          readyTimeoutMs: 120_000
        })
        servers.push(server)
        return await exited(server)
      } catch (error) {
        const message = String(error)
        assert.match(message, /^Error: server exited \(SIGKILL\) before it was ready/, message)
        return "SIGKILL"
      }
    })
})

/** Starts the poison run (its scan step kills the process at its start, so the answer may never come). */
const startPoisonRun = (server: ServerProcess, customerId: string, apiKey: string) =>
  Effect.promise(() =>
    send(server.url, "POST", `/api/workflows/${customerId}/monthly-seo-audit/run`, {
      headers: { authorization: `Bearer ${apiKey}` },
      body: { input: { url: "https://example.com/" } }
    }).catch(() => undefined)
  )

layer(SharedLive, { timeout: 240_000, excludeTestServices: true })("a run whose step kills its process", (it) => {
  it.effect(
    "dies with its process three times, is then failed with `step crashed` (event and webhook as any failure); the service stays up and other runs complete; two deaths still resume",
    () =>
      Effect.gen(function*() {
        const { url: database } = yield* Shared
        const base = {
          DATABASE_URL: database,
          ADMIN_SECRET: "test-admin-secret",
          LOG_LEVEL: "error",
          WORKFLOW_POLL_INTERVAL_MS: "200",
          // The restarted process is the same runner (as a service restarted on its port is): it takes its shards back at once.
          WORKFLOW_RUNNER_ADDRESS: "poison-test:1",
          ...(externalDatabaseUrl() === undefined ? { PG_MAX_CONNECTIONS: "1", WORKFLOW_RUNNER_STORAGE: "memory" } : {})
        }
        const servers: Array<ServerProcess> = []
        yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(servers.map((s) => s.kill(3000)))))
        const { start, startToCrash } = starter(servers, base)
        const q = <A extends object>(query: string, params: ReadonlyArray<unknown>) =>
          withSql(database, (sql) => sql.unsafe<A>(query, params as Array<any>))
        const runState = (runId: string) =>
          Effect.map(
            q<{ status: string; error: string | null }>("SELECT status, error FROM workflow_runs WHERE id = $1", [
              runId
            ]),
            (rows) => rows[0]!
          )
        const stepState = (runId: string, name: string) =>
          Effect.map(
            q<{ status: string; attempts: number; unfinishedStarts: number }>(
              "SELECT status, attempts, unfinished_starts FROM workflow_steps WHERE run_id = $1 AND name = $2",
              [runId, name]
            ),
            (rows) => rows[0]
          )
        const awaitStatus = (runId: string, statuses: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            let state = yield* runState(runId)
            for (let i = 0; i < 600 && !statuses.includes(state.status); i++) {
              yield* Effect.promise(() => sleep(100))
              state = yield* runState(runId)
            }
            return state
          })

        let server = yield* start("scan-site")
        const { customerId, apiKey } = yield* Effect.promise(() =>
          provisionAt(server, { email: "poison@example.com", brandName: "Crumb" })
        )
        const api = (method: string, path: string, body?: unknown) =>
          Effect.promise(() =>
            send(server.url, method, path, {
              headers: { authorization: `Bearer ${apiKey}` },
              ...(body === undefined ? {} : { body })
            })
          )

        // A run waiting for approval across the crash loop.
        const waiting =
          (yield* api("POST", `/api/workflows/${customerId}/lead-magnet/run`, { input: { topics: ["bread"] } })).json
            .runId as string
        assert.strictEqual((yield* awaitStatus(waiting, ["suspended"])).status, "suspended")

        yield* startPoisonRun(server, customerId, apiKey)
        assert.strictEqual(yield* Effect.promise(() => exited(server)), "SIGKILL")
        const [poison] = yield* q<{ id: string }>(
          "SELECT id FROM workflow_runs WHERE customer_id = $1 AND workflow_id = 'monthly-seo-audit'",
          [customerId]
        )
        const runId = poison!.id
        assert.deepStrictEqual(yield* stepState(runId, "scan-site"), {
          status: "running",
          attempts: 1,
          unfinishedStarts: 1
        })

        // Each start resumes it and dies again.
        for (const deaths of [2, 3]) {
          assert.strictEqual(yield* startToCrash("scan-site"), "SIGKILL")
          assert.deepStrictEqual(yield* stepState(runId, "scan-site"), {
            status: "running",
            attempts: deaths,
            unfinishedStarts: deaths
          })
          assert.strictEqual((yield* runState(runId)).status, "running")
        }

        // The fourth start fails the run instead of starting the step again: the process stays up.
        server = yield* start("scan-site")
        const failed = yield* awaitStatus(runId, ["failed", "succeeded"])
        assert.deepStrictEqual(
          failed,
          { status: "failed", error: "step crashed" },
          `process exit: ${server.child.signalCode}`
        )
        const detail = (yield* api("GET", `/api/runs/${customerId}/${runId}`)).json
        assert.strictEqual(detail.status, "failed")
        assert.strictEqual(detail.error, "step crashed")
        assert.deepStrictEqual(detail.steps.map((s: any) => [s.name, s.status, s.error]), [[
          "scan-site",
          "failed",
          "step crashed"
        ]])
        assert.strictEqual(
          (yield* stepState(runId, "scan-site"))!.attempts,
          3,
          "the step ran again after its third death"
        )
        const events = (yield* api("GET", `/api/events/${customerId}?limit=200`)).json.events
          .filter((e: any) => e.data.runId === runId).map((e: any) => [e.type, e.data.status, e.data.error]).reverse()
        assert.deepStrictEqual(events, [["workflow.started", "running", null], [
          "workflow.failed",
          "failed",
          "step crashed"
        ]])
        const hooks = yield* q<{ data: any }>(
          "SELECT data FROM webhook_events WHERE customer_id = $1 AND type = 'workflow.completed'",
          [customerId]
        )
        const hook = hooks.map((h) => typeof h.data === "string" ? JSON.parse(h.data) : h.data).filter((d) =>
          d.runId === runId
        )
        assert.deepStrictEqual(hook.map((d) => [d.status, d.error]), [["failed", "step crashed"]])

        // Other runs complete on the process that stayed up: the one that waited, and a new one.
        const pieces = yield* q<{ id: string }>("SELECT id FROM content WHERE customer_id = $1 AND run_id = $2", [
          customerId,
          waiting
        ])
        assert.isAbove(pieces.length, 0)
        for (const piece of pieces) {
          assert.strictEqual(
            (yield* api("POST", `/api/content/${customerId}/${piece.id}/review`, { action: "approve" })).status,
            200
          )
        }
        assert.strictEqual((yield* awaitStatus(waiting, ["succeeded", "failed"])).status, "succeeded")
        const fresh = (yield* api("POST", `/api/workflows/${customerId}/performance-report/run`, {})).json
          .runId as string
        assert.strictEqual((yield* awaitStatus(fresh, ["succeeded", "failed"])).status, "succeeded")
        assert.strictEqual(server.child.exitCode, null)
        assert.strictEqual(server.child.signalCode, null)
        assert.strictEqual((yield* api("GET", "/api/health")).status, 200)

        // Two deaths are not three: a step that died with its process twice and then gets through is resumed as
        // after any restart, and its run completes.
        yield* Effect.promise(() => server.kill())
        server = yield* start("read-analytics")
        yield* Effect.promise(() =>
          send(server.url, "POST", `/api/workflows/${customerId}/performance-report/run`, {
            headers: { authorization: `Bearer ${apiKey}` },
            body: {}
          })
            .catch(() => undefined)
        )
        assert.strictEqual(yield* Effect.promise(() => exited(server)), "SIGKILL")
        const [twice] = yield* q<{ id: string }>(
          "SELECT id FROM workflow_runs WHERE customer_id = $1 AND workflow_id = 'performance-report' AND id <> $2",
          [customerId, fresh]
        )
        assert.strictEqual(yield* startToCrash("read-analytics"), "SIGKILL")
        assert.deepStrictEqual(yield* stepState(twice!.id, "read-analytics"), {
          status: "running",
          attempts: 2,
          unfinishedStarts: 2
        })
        server = yield* start(undefined)
        assert.deepStrictEqual(yield* awaitStatus(twice!.id, ["succeeded", "failed"]), {
          status: "succeeded",
          error: null
        })
        assert.deepStrictEqual(yield* stepState(twice!.id, "read-analytics"), {
          status: "succeeded",
          attempts: 3,
          unfinishedStarts: 0
        })
      }),
    240_000
  )
})

const embeddedOnly = externalDatabaseUrl() === undefined ? describe : describe.skip

embeddedOnly("a run whose step kills its process, on the embedded PGlite (DATA_DIR)", () => {
  it.live(
    "the step's deaths are on disk with the run: after the third the run is failed and the process stays up",
    () =>
      Effect.gen(function*() {
        const dataDir = mkdtempSync(join(tmpdir(), "herald-poison-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const servers: Array<ServerProcess> = []
        yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(servers.map((s) => s.kill(3000)))))
        const { start, startToCrash } = starter(servers, {
          DATABASE_URL: undefined,
          DATA_DIR: dataDir,
          ADMIN_SECRET: "test-admin-secret",
          LOG_LEVEL: "error",
          WORKFLOW_POLL_INTERVAL_MS: "200",
          // The run is read through the API while the process holds the database.
          RATE_LIMIT_REST_PER_MIN: "10000"
        })
        let server = yield* start("scan-site")
        const { customerId, apiKey } = yield* Effect.promise(() =>
          provisionAt(server, { email: "poison@example.com", brandName: "Crumb" })
        )
        yield* startPoisonRun(server, customerId, apiKey)
        assert.strictEqual(yield* Effect.promise(() => exited(server)), "SIGKILL")
        for (let i = 0; i < 2; i++) assert.strictEqual(yield* startToCrash("scan-site"), "SIGKILL")

        server = yield* start("scan-site")
        const api = (path: string) =>
          Effect.promise(() => send(server.url, "GET", path, { headers: { authorization: `Bearer ${apiKey}` } }))
        const runs = () =>
          Effect.map(api(`/api/runs/${customerId}?workflow=monthly-seo-audit`), (r) => r.json.runs as Array<any>)
        let [run] = yield* runs()
        for (let i = 0; i < 300 && run.status !== "failed"; i++) {
          yield* Effect.promise(() => sleep(200))
          ;[run] = yield* runs()
        }
        assert.strictEqual(run.status, "failed", `process exit: ${server.child.signalCode}`)
        assert.strictEqual(run.error, "step crashed")
        const events = (yield* api(`/api/events/${customerId}?limit=200`)).json.events
          .filter((e: any) => e.data.runId === run.runId).map((e: any) => e.type).reverse()
        assert.deepStrictEqual(events, ["workflow.started", "workflow.failed"])
        assert.strictEqual((yield* api("/api/health")).status, 200)
        assert.strictEqual(server.child.exitCode, null)
        assert.strictEqual(server.child.signalCode, null)

        // Stopped, its database is read directly: the step ran three times, and the webhook was queued.
        yield* Effect.promise(() => server.kill())
        const db = yield* Effect.acquireRelease(
          Effect.promise(() => PGlite.create(dataDir)),
          (db) => Effect.promise(() => db.close())
        )
        const steps = yield* Effect.promise(() =>
          db.query<{ status: string; attempts: number; error: string }>(
            "SELECT status, attempts, error FROM workflow_steps WHERE run_id = $1",
            [run.runId]
          )
        )
        assert.deepStrictEqual(steps.rows, [{ status: "failed", attempts: 3, error: "step crashed" }])
        const hooks = yield* Effect.promise(() =>
          db.query<{ status: string; error: string }>(
            "SELECT data->>'status' AS status, data->>'error' AS error FROM webhook_events WHERE type = 'workflow.completed' AND data->>'runId' = $1",
            [run.runId]
          )
        )
        assert.deepStrictEqual(hooks.rows, [{ status: "failed", error: "step crashed" }])
      }).pipe(Effect.scoped),
    240_000
  )
})
