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
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:peer -- --workflows [--rounds 3] [--runs 1000] [--latency-runs 200] [--count] [--engines herald-pg,herald-cluster,dbos]
 *
 * Herald's engine is measured as each WORKFLOW_ENGINE builds it: `herald-pg`
 * (its own tables) and `herald-cluster` (effect/cluster's stored messages);
 * ratios are each Herald engine's against DBOS.
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
const allEngines = ["herald-pg", "herald-cluster", "dbos"] as const
type EngineName = typeof allEngines[number]
const isEngine = (name: string | undefined): name is EngineName => allEngines.includes(name as EngineName)
const engines: ReadonlyArray<EngineName> = (argument("engines") ?? allEngines.join(",")).split(",").filter(isEngine)
const heraldEngines = engines.filter((engine) => engine !== "dbos")

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
    const runOne = engine === "dbos"
      ? yield* dbosRunner(databaseUrl)
      : yield* heraldRunner(databaseUrl, engine === "herald-pg" ? "postgres" : "cluster")
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
    r.engine.padEnd(14)
  } burst ${r.burst.runs} runs: ${r.burst.runsPerSecond} runs/s (${r.burst.seconds} s, p50 ${r.burst.p50Ms} ms, p99 ${r.burst.p99Ms} ms, CPU ${r.burst.cpuMsPerRun} ms/run)` +
  ` | one at a time: p50 ${r.oneAtATime.p50Ms} ms, p99 ${r.oneAtATime.p99Ms} ms (CPU ${r.oneAtATime.cpuMsPerRun} ms/run)` +
  (r.statementsPerRun === undefined
    ? ""
    : ` | statements/run: burst ${r.statementsPerRun.burst}, one at a time ${r.statementsPerRun.oneAtATime}`)

const parent = Effect.gen(function*() {
  console.log(
    `workflows: ${runs} runs at once, then ${latencyRuns} one at a time; ${rounds} rounds, each engine a fresh process`
  )
  const results: Array<Partial<Record<EngineName, Round>>> = []
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? engines : [...engines].reverse()
    const pair: Partial<Record<EngineName, Round>> = {}
    for (const engine of order) {
      const result = yield* runChild(engine, [])
      pair[engine] = result
      console.log(`round ${round + 1} ${describe(result)}`)
    }
    results.push(pair)
  }
  const all = (engine: EngineName, f: (r: Round) => number) => results.map((pair) => f(pair[engine]!))
  const summary = Object.fromEntries(heraldEngines.map((herald) => {
    const bestHerald = bestOf(results, (p) => p[herald]!.burst.runsPerSecond)
    const bestDbos = bestOf(results, (p) => p.dbos!.burst.runsPerSecond)
    const paired = (f: (r: Round) => number) => pairedMedian(results, (p) => f(p[herald]!), (p) => f(p.dbos!))
    return [herald, {
      throughputBestOf: { herald: bestHerald, dbos: bestDbos, ratio: fixed(bestHerald / bestDbos) },
      throughputPairedMedian: fixed(paired((r) => r.burst.runsPerSecond)),
      oneAtATimeP50Median: {
        herald: median(all(herald, (r) => r.oneAtATime.p50Ms)),
        dbos: median(all("dbos", (r) => r.oneAtATime.p50Ms))
      },
      oneAtATimeP99Best: {
        herald: bestOf(results, (p) => p[herald]!.oneAtATime.p99Ms, "lower"),
        dbos: bestOf(results, (p) => p.dbos!.oneAtATime.p99Ms, "lower")
      },
      oneAtATimeP99PairedMedianRatio: fixed(paired((r) => r.oneAtATime.p99Ms)),
      cpuMsPerRunMedian: {
        burst: {
          herald: median(all(herald, (r) => r.burst.cpuMsPerRun)),
          dbos: median(all("dbos", (r) => r.burst.cpuMsPerRun))
        },
        oneAtATime: {
          herald: median(all(herald, (r) => r.oneAtATime.cpuMsPerRun)),
          dbos: median(all("dbos", (r) => r.oneAtATime.cpuMsPerRun))
        }
      }
    }]
  }))
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
  if (isEngine(engine)) return yield* child(engine, base)
  if (!engines.includes("dbos") || heraldEngines.length === 0) {
    return yield* Effect.die(`--engines needs dbos and a Herald engine among ${allEngines.join(", ")}`)
  }
  yield* parent
}))
