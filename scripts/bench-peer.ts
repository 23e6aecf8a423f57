/**
 * Herald against what a user would pick instead, in the same run.
 *
 *   npm run bench:peer                       # --route auth
 *   npm run bench:peer -- --route health
 *   npm run bench:peer -- --workflows ...    # scripts/bench-peer-workflows.ts
 *
 * `--route auth`: Herald's authenticated `GET /api/customer/{id}` against
 * Fastify 5 + postgres.js doing the same work (scripts/support/peer-servers.ts),
 * both on one PostgreSQL database seeded with BENCH_CUSTOMERS (5,000) active
 * customers with one key each; requests go round-robin over the customers.
 * `--route health`: Herald's `GET /api/health` against bare `node:http`.
 *
 * Each server is a fresh process per round (started, warmed for BENCH_WARMUP
 * s, measured for BENCH_DURATION s, stopped); the order rotates per round.
 * autocannon runs in this process. Herald runs with LOG_LEVEL=warn (no
 * request line; the peers log nothing either), its rate limits raised out of
 * the way (the steps still run) and no Redis. Printed: each round, the ratio
 * of the best rounds and the median of the per-round ratios, and each
 * server's CPU time per answered request (from /proc, so Linux only): on a
 * machine shared with other work, throughput follows the load of the moment
 * while CPU per request barely does, so it is the steadier figure of cost.
 *
 * DATABASE_URL names the PostgreSQL server (default
 * postgres://postgres@127.0.0.1:5432/test); the bench drops and recreates a
 * database of its own there, BENCH_DATABASE (herald_bench_peer).
 * Env: BENCH_ROUNDS (6), BENCH_DURATION (5), BENCH_WARMUP (2),
 * BENCH_CONNECTIONS (32), BENCH_CUSTOMERS (5000), BENCH_CPU_PROF=dir (Herald
 * runs with --cpu-prof into dir), BENCH_BASELINE=dir (another checkout of
 * Herald, e.g. the code before a change, measured as "before" in the same
 * rounds; it needs its own node_modules or a link to these), BENCH_CHECKOUT=dir
 * (the checkout measured as "herald"; this one by default), BENCH_NODE_ARGS
 * (node flags for "herald" only, e.g. to try a V8 setting against "before"),
 * BENCH_LOG_LEVEL (LOG_LEVEL of the Herald processes, warn by default: info,
 * the service's default, adds the request line).
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import postgres from "postgres"
import { generateApiKey, hashApiKey } from "../src/domain/ApiKeys.ts"
import { load, type Result, runScript } from "./support/bench-kit.ts"
import { stopChild } from "./support/cluster-kit.ts"
import { bestOf, pairedMedian } from "./support/rounds.ts"
import { freePort, root, type StartedService, startService } from "./support/service-process.ts"

const args = process.argv.slice(2)

if (args.includes("--workflows")) {
  const script = join(root, "scripts", "bench-peer-workflows.ts")
  if (!existsSync(script)) {
    console.error("bench:peer --workflows runs scripts/bench-peer-workflows.ts, which this checkout does not have yet")
    process.exit(2)
  }
  const child = spawn(process.execPath, [script, ...args.filter((a) => a !== "--workflows")], {
    cwd: root,
    stdio: "inherit"
  })
  child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
} else {
  const routeAt = args.indexOf("--route")
  const route = routeAt === -1 ? "auth" : args[routeAt + 1]
  if (route !== "auth" && route !== "health") {
    console.error("usage: npm run bench:peer -- [--route auth|health] | --workflows [...]")
    process.exit(2)
  }
  runScript(bench(route))
}

/** One measured run, with the server process's CPU time (user + system) per answered request. */
interface Measured extends Result {
  readonly cpuUs: number
  /** Resident memory at the end of the run. */
  readonly rssMb: number
}

const residentMb = (pid: number | undefined): number => {
  try {
    const line = /VmRSS:\s*(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return line === null ? Number.NaN : Number(line[1]) / 1024
  } catch {
    return Number.NaN
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
const cpuSeconds = (pid: number | undefined): number => {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces; utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

function bench(route: "auth" | "health") {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 6)
  const duration = Number(process.env.BENCH_DURATION ?? 5)
  const warmup = Number(process.env.BENCH_WARMUP ?? 2)
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
  const customersWanted = Number(process.env.BENCH_CUSTOMERS ?? 5000)
  const cpuProf = process.env.BENCH_CPU_PROF
  const server = new URL(process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test")
  const databaseName = process.env.BENCH_DATABASE ?? "herald_bench_peer"
  const databaseUrl = Object.assign(new URL(server), { pathname: `/${databaseName}` }).toString()
  const prefix = "svc_live_"
  const baseUrl = "http://127.0.0.1:8080"
  const common = { DATABASE_URL: databaseUrl, API_KEY_PREFIX: prefix, BASE_URL: baseUrl }
  const heraldSettings: Record<string, string> = {
    ...common,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
    RATE_LIMIT_REST_PER_MIN: "1000000000",
    RATE_LIMIT_PREAUTH_PER_MIN: "1000000000"
  }
  const peerName = route === "auth" ? "fastify" : "bare"
  const path = route === "auth" ? "/api/customer/{id}" : "/api/health"

  const baseline = process.env.BENCH_BASELINE || undefined
  const checkout = process.env.BENCH_CHECKOUT || undefined
  const heraldFlags = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((flag) => flag.length > 0)
  const startHerald = (checkout: string | undefined, flags: ReadonlyArray<string> = []) =>
    startService(heraldSettings, 120_000, {
      nodeArgs: [...flags, ...(cpuProf === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`])],
      ...(checkout === undefined ? {} : { root: checkout })
    })
  const startPeer = async (): Promise<StartedService> => {
    const port = await freePort()
    const child = spawn(process.execPath, ["scripts/support/peer-servers.ts", peerName], {
      cwd: root,
      env: { ...process.env, ...common, PORT: String(port) },
      stdio: ["ignore", "ignore", "inherit"]
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal }))
    )
    const url = `http://127.0.0.1:${port}`
    const began = performance.now()
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      if (child.exitCode !== null) throw new Error(`${peerName} exited at start`)
      try {
        if ((await fetch(`${url}/api/health`)).status === 200) {
          return { url, child, exited, startMs: performance.now() - began }
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 25))
    }
    child.kill("SIGKILL")
    throw new Error(`${peerName} did not answer within 30 s`)
  }

  return Effect.gen(function*() {
    const admin = postgres(server.toString(), { max: 1, onnotice: () => undefined })
    yield* Effect.promise(async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`)
      await admin.unsafe(`CREATE DATABASE "${databaseName}"`)
      await admin.end()
    })
    // Herald's first start applies its migrations; every server then reads the same tables.
    const first = yield* Effect.promise(() => startHerald(checkout))
    yield* Effect.promise(() => stopChild(first.child))

    const targets: Array<{ customerId: string; apiKey: string }> = []
    if (route === "auth") {
      const db = postgres(databaseUrl, { max: 1, onnotice: () => undefined })
      yield* Effect.promise(async () => {
        for (let n = 0; n < customersWanted; n++) {
          targets.push({ customerId: crypto.randomUUID(), apiKey: generateApiKey(prefix) })
        }
        for (let at = 0; at < targets.length; at += 1000) {
          const chunk = targets.slice(at, at + 1000)
          await db`INSERT INTO customers ${
            db(chunk.map((t, i) => ({ id: t.customerId, email: `bench-${at + i}@example.com`, status: "active" })))
          }`
          await db`INSERT INTO api_keys ${
            db(chunk.map((t) => ({
              id: `key_${t.customerId.replaceAll("-", "").slice(0, 24)}`,
              customer_id: t.customerId,
              key_hash: hashApiKey(t.apiKey),
              role: "owner"
            })))
          }`
        }
        await db`ANALYZE`
        await db.end()
      })
      console.log(`seeded ${targets.length} active customers with one key each in database ${databaseName}`)
    }

    const options = (url: string, seconds: number) => {
      if (route === "health") return { url: `${url}/api/health`, connections, duration: seconds }
      let i = 0
      return {
        url,
        connections,
        duration: seconds,
        requests: [{
          method: "GET",
          setupRequest: (request: Record<string, unknown>) => {
            const t = targets[i++ % targets.length]
            return {
              ...request,
              path: `/api/customer/${t.customerId}`,
              headers: { authorization: `Bearer ${t.apiKey}` }
            }
          }
        }]
      }
    }

    const probe = async (url: string) => {
      const t = targets[0]
      const response = route === "auth"
        ? await fetch(`${url}/api/customer/${t.customerId}`, { headers: { authorization: `Bearer ${t.apiKey}` } })
        : await fetch(`${url}/api/health`)
      const body = await response.json() as Record<string, unknown>
      return {
        status: response.status,
        fields: Object.keys(body).sort().join(","),
        body: route === "auth" ? JSON.stringify(body) : ""
      }
    }

    /** One fresh process: started, checked, warmed, measured, stopped. */
    const measure = (name: string, start: () => Promise<StartedService>) =>
      Effect.gen(function*() {
        const started = yield* Effect.promise(start)
        return yield* Effect.gen(function*() {
          const answer = yield* Effect.promise(() => probe(started.url))
          if (answer.status !== 200) return yield* Effect.die(new Error(`${name} answered ${answer.status}`))
          if (warmup > 0) yield* load(name, options(started.url, warmup))
          const before = cpuSeconds(started.child.pid)
          const result = yield* load(name, options(started.url, duration))
          const cpuUs = (cpuSeconds(started.child.pid) - before) * 1e6 / Math.max(1, result.total)
          return { result: { ...result, cpuUs, rssMb: residentMb(started.child.pid) }, answer }
        }).pipe(Effect.ensuring(Effect.promise(() => stopChild(started.child))))
      })

    const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 })
    const contestants: Array<{ name: string; start: () => Promise<StartedService> }> = [
      { name: peerName, start: startPeer },
      { name: "herald", start: () => startHerald(checkout, heraldFlags) },
      ...(baseline === undefined ? [] : [{ name: "before", start: () => startHerald(baseline) }])
    ]
    console.log(
      `GET ${path}: ${
        contestants.map((c) => c.name).join(" vs ")
      }, ${connections} connections, ${rounds} rounds of ${duration} s ` +
        `(after ${warmup} s warm-up), a fresh process each, the order rotating${
          baseline === undefined ? "" : `; before = ${baseline}`
        }\n`
    )
    const runs: Array<Record<string, Measured>> = []
    for (let round = 1; round <= rounds; round++) {
      const results: Record<string, Measured> = {}
      const answers = new Set<string>()
      for (let k = 0; k < contestants.length; k++) {
        const { name, start } = contestants[(k + round - 1) % contestants.length]
        const { answer, result } = yield* measure(name, start)
        results[name] = result
        answers.add(`${answer.fields} ${answer.body}`)
      }
      if (answers.size > 1) {
        return yield* Effect.die(new Error(`the servers answer differently: ${[...answers].join(" vs ")}`))
      }
      runs.push(results)
      const cells = contestants.map(({ name }) => {
        const r = results[name]
        const bad = r.non2xx > 0 || r.errors > 0 ? ` [${r.non2xx} non-2xx, ${r.errors} errors]` : ""
        return `${name} ${fmt(r.rps).padStart(6)} req/s ${fmt(r.cpuUs).padStart(4)} µs CPU/req (p99 ${r.p99} ms, RSS ${
          fmt(r.rssMb)
        } MB)${bad}`
      })
      console.log(
        `round ${round}  ${cells.join("   ")}   herald/${peerName} ${
          (results.herald.rps / results[peerName].rps).toFixed(2)
        }`
      )
    }
    const best = (name: string) => bestOf(runs, (r) => r[name].rps)
    console.log(`\nbest round: ${contestants.map(({ name }) => `${name} ${fmt(best(name))} req/s`).join(", ")}`)
    const compare = (a: string, b: string) =>
      console.log(
        `${`${a} / ${b}:`.padEnd(20)} best-of ${(best(a) / best(b)).toFixed(2)}, paired median ${
          pairedMedian(runs, (r) => r[a].rps, (r) => r[b].rps).toFixed(2)
        }, ` +
          `CPU per request ${b} / ${a}: median ${pairedMedian(runs, (r) => r[b].cpuUs, (r) => r[a].cpuUs).toFixed(2)}`
      )
    compare("herald", peerName)
    if (baseline !== undefined) {
      compare("before", peerName)
      compare("herald", "before")
    }
  })
}
