/**
 * Throughput of the durable workflow engine as configured by the service
 * (effect/workflow on effect/cluster, messages in our database): starts RUNS
 * (default 1,000) executions of a three-step workflow whose activities do
 * nothing, all at once, and prints runs per second until every result is
 * recorded, p50/p99 start-to-result and the process's CPU per run.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node scripts/bench-workflows.ts
 * Without DATABASE_URL it runs on an in-memory PGlite. `RUNS=200` for a quick look.
 * `npm run bench:peer -- --workflows` runs the same workload against DBOS.
 */
import { Effect } from "effect"
import { externalDatabaseUrl, freshSchemaUrl } from "../test/support/harness.ts"
import { runScript } from "./support/bench-kit.ts"
import { burst, heraldRunner } from "./support/workflow-bench.ts"

const runs = Number(process.env.RUNS ?? 1000)

runScript(Effect.gen(function*() {
  const external = externalDatabaseUrl()
  const databaseUrl = external === undefined ? "pglite://memory" : yield* freshSchemaUrl(external)
  const runOne = yield* heraldRunner(databaseUrl)
  const result = yield* Effect.promise(() => burst(runOne, runs))
  console.log(JSON.stringify({ database: external === undefined ? "pglite" : "postgresql", ...result }))
}))
