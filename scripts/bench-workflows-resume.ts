/**
 * Resume after kill -9: a server process (`node src/main.ts`) starts RUNS
 * (default 100) daily-social-posts runs whose model (the OpenAI-compatible
 * provider against a local protocol server) answers in 400 ms; once a tenth of
 * the runs' first pieces are written (so nearly all runs are in flight) it is killed with SIGKILL and started again (same runner
 * address). Prints the time from the new process answering until every run
 * reached its approval wait, and checks that no piece was written twice.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node scripts/bench-workflows-resume.ts
 * Without DATABASE_URL it runs on a PGlite served on a loopback port.
 */
import { Effect } from "effect"
import { signOrchestratorRequest } from "../src/domain/OrchestratorSignature.ts"
import { externalDatabaseUrl, send } from "../test/support/harness.ts"
import { startOpenAiServer } from "../test/support/openai-server.ts"
import { sharedDatabase, startServer, withSql } from "../test/support/processes.ts"
import { runScript } from "./support/bench-kit.ts"

const runs = Number(process.env.RUNS ?? 100)
const key = "bench-resume-key"
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

runScript(Effect.gen(function*() {
  const database = yield* sharedDatabase
  const model = yield* Effect.acquireRelease(Effect.promise(startOpenAiServer), (s) => Effect.promise(s.close))
  model.script({ kind: "text", chunks: ["Title\n\n", "Body"], usage: { prompt: 1, completion: 1 }, delayMs: 400 })
  const env = {
    DATABASE_URL: database,
    ADMIN_SECRET: "s",
    LOG_LEVEL: "error",
    LLM_PROVIDER: "openai",
    LLM_BASE_URL: model.url,
    ORCHESTRATOR_SIGNING_KEY: key,
    WORKFLOW_RUNNER_ADDRESS: "bench-resume:1",
    ...(externalDatabaseUrl() === undefined ? { PG_MAX_CONNECTIONS: "1", WORKFLOW_RUNNER_STORAGE: "memory" } : {})
  }
  let server = yield* Effect.promise(() => startServer({ env, readyTimeoutMs: 60_000 }))
  yield* Effect.addFinalizer(() => Effect.promise(() => server.kill(2000)))
  const provisioned = yield* Effect.promise(() =>
    send(server.url, "POST", "/api/admin/provision", {
      headers: { "x-admin-secret": "s" },
      body: { email: "bench@example.com" }
    })
  )
  const customerId = provisioned.json.customerId as string
  yield* withSql(
    database,
    (sql) =>
      sql`UPDATE workflows SET config = '{"platforms": ["x", "linkedin"]}'::jsonb WHERE customer_id = ${customerId}`
  )
  // Started all at once, so that they are all in flight when the process is killed.
  yield* Effect.forEach(Array.from({ length: runs }), () =>
    Effect.gen(function*() {
      const text = JSON.stringify({ workflow: "daily-social-posts", customerId })
      const res = yield* Effect.promise(() =>
        send(server.url, "POST", "/api/orchestrator", {
          headers: {
            "content-type": "application/json",
            "x-orchestrator-signature": signOrchestratorRequest(key, text, Math.floor(Date.now() / 1000))
          },
          body: text,
          raw: true
        })
      )
      if (res.status !== 200) throw new Error(`start: ${res.status} ${res.text}`)
    }), { concurrency: runs, discard: true })
  const count = (query: string) =>
    withSql(database, (sql) => Effect.map(sql.unsafe<{ n: number }>(query, [customerId]), (rows) => Number(rows[0]!.n)))
  // Killed early, with a few pieces written: (nearly) every run is in flight, some in the middle of a step.
  while ((yield* count("SELECT count(*)::int AS n FROM content WHERE customer_id = $1")) < Math.max(1, runs / 10)) {
    yield* Effect.promise(() => sleep(20))
  }
  const inFlight = yield* count(
    "SELECT count(*)::int AS n FROM workflow_runs WHERE customer_id = $1 AND status IN ('pending', 'running')"
  )
  server.child.kill("SIGKILL")
  yield* Effect.promise(() => new Promise((r) => server.child.once("exit", r)))
  server = yield* Effect.promise(() => startServer({ env, readyTimeoutMs: 60_000 }))
  const t0 = performance.now()
  while (
    (yield* count("SELECT count(*)::int AS n FROM workflow_runs WHERE customer_id = $1 AND status = 'suspended'")) <
      runs
  ) {
    if (performance.now() - t0 > 120_000) throw new Error("runs did not all resume within 120 s")
    yield* Effect.promise(() => sleep(50))
  }
  const seconds = (performance.now() - t0) / 1000
  const pieces = yield* count("SELECT count(*)::int AS n FROM content WHERE customer_id = $1")
  const distinct = yield* count(
    "SELECT count(DISTINCT (run_id, metadata->>'step'))::int AS n FROM content WHERE customer_id = $1"
  )
  console.log(JSON.stringify({
    database: externalDatabaseUrl() === undefined ? "pglite" : "postgresql",
    runs,
    inFlightAtKill: inFlight,
    secondsUntilAllResumed: Number(seconds.toFixed(2)),
    pieces,
    duplicatePieces: pieces - distinct
  }))
}))
