/**
 * Herald's durable workflow engine against DBOS Transact (`@dbos-inc/dbos-sdk`),
 * what a TypeScript user would pick instead for durable workflows on
 * PostgreSQL, on the same workload (`support/workflow-bench.ts`): RUNS
 * (default 1,000) three-step no-op runs started at once, timed until every
 * result is recorded, then LATENCY_RUNS (default 200) runs one at a time.
 * Each engine runs in a fresh process per round, in a fresh schema of the same
 * PostgreSQL, the order alternating between rounds; each round is printed,
 * then the best-of ratio and the median of the rounds' ratios.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:peer -- --workflows [--rounds 3] [--runs 1000] [--latency-runs 200] [--count]
 *
 * `--count` adds one round per engine through a statement-counting proxy
 * (its figures are statements per run; its times are not compared).
 * Both engines use a pool of 10 connections (their defaults).
 */
import { DBOS } from "@dbos-inc/dbos-sdk"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { externalDatabaseUrl, freshSchemaUrl } from "../test/support/harness.ts"
import { runScript } from "./support/bench-kit.ts"
import { startStatementCounter } from "./support/pg-statement-counter.ts"
import { bestOf, median, pairedMedian } from "./support/rounds.ts"
import { burst, heraldRunner, oneAtATime, type Phase, type RunOne } from "./support/workflow-bench.ts"

const argument = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const rounds = Number(argument("rounds") ?? 3)
const runs = Number(argument("runs") ?? process.env.RUNS ?? 1000)
const latencyRuns = Number(argument("latency-runs") ?? process.env.LATENCY_RUNS ?? 200)
const counting = process.argv.includes("--count")
const engines = ["herald", "dbos"] as const
type EngineName = typeof engines[number]

interface Round {
  readonly engine: EngineName
  readonly burst: Phase
  readonly oneAtATime: Phase
  readonly statementsPerRun?: { readonly burst: number; readonly oneAtATime: number }
  /** One at a time: statements per run by text, the most frequent first. */
  readonly statementKinds?: ReadonlyArray<readonly [string, number]>
}

const dbosRunner = (databaseUrl: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const schema = new URL(databaseUrl).searchParams.get("options")!.replace("-c search_path=", "")
      const noop = async () => {}
      const benchRun = DBOS.registerWorkflow(async (_id: number) => {
        await DBOS.runStep(noop, { name: "one" })
        await DBOS.runStep(noop, { name: "two" })
        await DBOS.runStep(noop, { name: "three" })
      }, { name: "BenchRun" })
      const url = new URL(databaseUrl)
      url.searchParams.delete("options")
      DBOS.setConfig({
        name: "herald-bench",
        systemDatabaseUrl: url.toString(),
        systemDatabaseSchemaName: schema,
        logLevel: "error"
      })
      await DBOS.launch()
      const runOne: RunOne = async (id) => {
        const handle = await DBOS.startWorkflow(benchRun, { workflowID: `bench-${id}` })(id)
        return handle.getResult()
      }
      return runOne
    }),
    () => Effect.promise(() => DBOS.shutdown())
  )

// Statements that differ only past their start (a list of shards, a lock key) are one kind.
const statementKinds = (byText: ReadonlyMap<string, number>) => {
  const kinds = new Map<string, number>()
  for (const [text, n] of byText) kinds.set(text.slice(0, 110), (kinds.get(text.slice(0, 110)) ?? 0) + n)
  return [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([text, n]) =>
    [text, Number((n / latencyRuns).toFixed(2))] as const
  )
}

/** One engine's round, in this (fresh) process. */
const child = (engine: EngineName, base: string) =>
  Effect.gen(function*() {
    const counter = counting
      ? yield* Effect.promise(() => {
        const u = new URL(base)
        return startStatementCounter(u.hostname, Number(u.port || 5432))
      })
      : undefined
    let target = base
    if (counter !== undefined) {
      const u = new URL(base)
      u.hostname = "127.0.0.1"
      u.port = String(counter.port)
      target = u.toString()
    }
    const databaseUrl = yield* freshSchemaUrl(target)
    const runOne = engine === "herald" ? yield* heraldRunner(databaseUrl) : yield* dbosRunner(databaseUrl)
    counter?.reset()
    const burstPhase = yield* Effect.promise(() => burst(runOne, runs))
    const burstStatements = counter?.statements() ?? 0
    counter?.reset()
    const latencyPhase = yield* Effect.promise(() => oneAtATime(runOne, latencyRuns, runs))
    const round: Round = {
      engine,
      burst: burstPhase,
      oneAtATime: latencyPhase,
      ...(counter === undefined ? {} : {
        statementsPerRun: {
          burst: Number((burstStatements / runs).toFixed(1)),
          oneAtATime: Number((counter.statements() / latencyRuns).toFixed(1))
        },
        statementKinds: statementKinds(counter.byText())
      })
    }
    console.log(`ROUND ${JSON.stringify(round)}`)
  })

const runChild = (engine: EngineName, extra: ReadonlyArray<string>) =>
  Effect.promise(() =>
    new Promise<Round>((resolve, reject) => {
      const proc = spawn(process.execPath, [
        fileURLToPath(import.meta.url),
        "--child",
        engine,
        "--runs",
        String(runs),
        "--latency-runs",
        String(latencyRuns),
        ...extra
      ], {
        stdio: ["ignore", "pipe", "inherit"]
      })
      let out = ""
      proc.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
      proc.on("exit", (code) => {
        const line = out.split("\n").find((l) => l.startsWith("ROUND "))
        if (code !== 0 || line === undefined) return reject(new Error(`${engine} round failed (exit ${code}): ${out}`))
        resolve(JSON.parse(line.slice("ROUND ".length)) as Round)
      })
    })
  )

const fixed = (n: number, digits = 2) => Number(n.toFixed(digits))

const describe = (r: Round) =>
  `${
    r.engine.padEnd(6)
  } burst ${r.burst.runs} runs: ${r.burst.runsPerSecond} runs/s (${r.burst.seconds} s, p50 ${r.burst.p50Ms} ms, p99 ${r.burst.p99Ms} ms, CPU ${r.burst.cpuMsPerRun} ms/run)` +
  ` | one at a time: p50 ${r.oneAtATime.p50Ms} ms, p99 ${r.oneAtATime.p99Ms} ms (CPU ${r.oneAtATime.cpuMsPerRun} ms/run)` +
  (r.statementsPerRun === undefined
    ? ""
    : ` | statements/run: burst ${r.statementsPerRun.burst}, one at a time ${r.statementsPerRun.oneAtATime}`)

const parent = Effect.gen(function*() {
  console.log(
    `workflows: ${runs} runs at once, then ${latencyRuns} one at a time; ${rounds} rounds, each engine a fresh process`
  )
  const results: Array<{ herald: Round; dbos: Round }> = []
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? engines : [...engines].reverse()
    const pair: Partial<Record<EngineName, Round>> = {}
    for (const engine of order) {
      const result = yield* runChild(engine, [])
      pair[engine] = result
      console.log(`round ${round + 1} ${describe(result)}`)
    }
    results.push(pair as { herald: Round; dbos: Round })
  }
  const bestHerald = bestOf(results, (p) => p.herald.burst.runsPerSecond)
  const bestDbos = bestOf(results, (p) => p.dbos.burst.runsPerSecond)
  const p99Herald = bestOf(results, (p) => p.herald.oneAtATime.p99Ms, "lower")
  const p99Dbos = bestOf(results, (p) => p.dbos.oneAtATime.p99Ms, "lower")
  const summary = {
    throughputBestOf: { herald: bestHerald, dbos: bestDbos, ratio: fixed(bestHerald / bestDbos) },
    throughputPairedMedian: fixed(
      pairedMedian(results, (p) => p.herald.burst.runsPerSecond, (p) => p.dbos.burst.runsPerSecond)
    ),
    oneAtATimeP50Median: {
      herald: median(results.map((p) => p.herald.oneAtATime.p50Ms)),
      dbos: median(results.map((p) => p.dbos.oneAtATime.p50Ms))
    },
    oneAtATimeP99Best: { herald: p99Herald, dbos: p99Dbos },
    oneAtATimeP99PairedMedianRatio: fixed(
      pairedMedian(results, (p) => p.herald.oneAtATime.p99Ms, (p) => p.dbos.oneAtATime.p99Ms)
    ),
    cpuMsPerRunMedian: {
      herald: median(results.map((p) => p.herald.burst.cpuMsPerRun)),
      dbos: median(results.map((p) => p.dbos.burst.cpuMsPerRun))
    }
  }
  console.log(JSON.stringify(summary))
  if (counting) {
    for (const engine of engines) {
      const round = yield* runChild(engine, ["--count"])
      console.log(`counted ${describe(round)}`)
      for (const [text, perRun] of round.statementKinds ?? []) console.log(`  ${String(perRun).padStart(6)}  ${text}`)
    }
  }
})

runScript(Effect.gen(function*() {
  const base = externalDatabaseUrl()
  if (base === undefined) return yield* Effect.die("DBOS needs PostgreSQL: set DATABASE_URL")
  const engine = argument("child")
  if (engine === "herald" || engine === "dbos") return yield* child(engine, base)
  yield* parent
}))
