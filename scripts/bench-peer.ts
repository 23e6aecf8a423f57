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
 * s, measured for BENCH_DURATION s, stopped); the order alternates per round.
 * autocannon runs in this process. Herald runs with LOG_LEVEL=warn (no
 * request line; the peers log nothing either), its rate limits raised out of
 * the way (the steps still run) and no Redis. Printed: each round, the ratio
 * of the best rounds and the median of the per-round ratios.
 *
 * DATABASE_URL names the PostgreSQL server (default
 * postgres://postgres@127.0.0.1:5432/test); the bench drops and recreates a
 * database of its own there, BENCH_DATABASE (herald_bench_peer).
 * Env: BENCH_ROUNDS (6), BENCH_DURATION (5), BENCH_WARMUP (2),
 * BENCH_CONNECTIONS (32), BENCH_CUSTOMERS (5000), BENCH_CPU_PROF=dir (Herald
 * runs with --cpu-prof into dir).
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import postgres from "postgres"
import { generateApiKey, hashApiKey } from "../src/domain/ApiKeys.ts"
import { stopChild } from "./support/cluster-kit.ts"
import { load, type Result, runScript } from "./support/bench-kit.ts"
import { freePort, root, type StartedService, startService } from "./support/service-process.ts"

const args = process.argv.slice(2)

if (args.includes("--workflows")) {
  const script = join(root, "scripts", "bench-peer-workflows.ts")
  if (!existsSync(script)) {
    console.error("bench:peer --workflows runs scripts/bench-peer-workflows.ts, which this checkout does not have yet")
    process.exit(2)
  }
  const child = spawn(process.execPath, [script, ...args.filter((a) => a !== "--workflows")], { cwd: root, stdio: "inherit" })
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
    LOG_LEVEL: "warn",
    RATE_LIMIT_REST_PER_MIN: "1000000000",
    RATE_LIMIT_PREAUTH_PER_MIN: "1000000000"
  }
  const peerName = route === "auth" ? "fastify" : "bare"
  const path = route === "auth" ? "/api/customer/{id}" : "/api/health"

  const startHerald = () =>
    startService(heraldSettings, 120_000, cpuProf === undefined ? {} : { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`] })
  const startPeer = async (): Promise<StartedService> => {
    const port = await freePort()
    const child = spawn(process.execPath, ["scripts/support/peer-servers.ts", peerName], {
      cwd: root,
      env: { ...process.env, ...common, PORT: String(port) },
      stdio: ["ignore", "ignore", "inherit"]
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })))
    const url = `http://127.0.0.1:${port}`
    const began = performance.now()
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      if (child.exitCode !== null) throw new Error(`${peerName} exited at start`)
      try {
        if ((await fetch(`${url}/api/health`)).status === 200) return { url, child, exited, startMs: performance.now() - began }
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
    // Herald's first start applies its migrations; both servers then read the same tables.
    const first = yield* Effect.promise(startHerald)
    yield* Effect.promise(() => stopChild(first.child))

    const targets: Array<{ customerId: string; apiKey: string }> = []
    if (route === "auth") {
      const db = postgres(databaseUrl, { max: 1, onnotice: () => undefined })
      yield* Effect.promise(async () => {
        for (let n = 0; n < customersWanted; n++) targets.push({ customerId: crypto.randomUUID(), apiKey: generateApiKey(prefix) })
        for (let at = 0; at < targets.length; at += 1000) {
          const chunk = targets.slice(at, at + 1000)
          await db`INSERT INTO customers ${db(chunk.map((t, i) => ({ id: t.customerId, email: `bench-${at + i}@example.com`, status: "active" })))}`
          await db`INSERT INTO api_keys ${db(chunk.map((t) => ({
            id: `key_${t.customerId.replaceAll("-", "").slice(0, 24)}`,
            customer_id: t.customerId,
            key_hash: hashApiKey(t.apiKey),
            role: "owner"
          })))}`
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
            return { ...request, path: `/api/customer/${t.customerId}`, headers: { authorization: `Bearer ${t.apiKey}` } }
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
      return { status: response.status, fields: Object.keys(body).sort().join(","), body: route === "auth" ? JSON.stringify(body) : "" }
    }

    /** One fresh process: started, checked, warmed, measured, stopped. */
    const measure = (name: string, start: () => Promise<StartedService>) =>
      Effect.gen(function*() {
        const started = yield* Effect.promise(start)
        return yield* Effect.gen(function*() {
          const answer = yield* Effect.promise(() => probe(started.url))
          if (answer.status !== 200) return yield* Effect.die(new Error(`${name} answered ${answer.status}`))
          if (warmup > 0) yield* load(name, options(started.url, warmup))
          const result = yield* load(name, options(started.url, duration))
          return { result, answer }
        }).pipe(Effect.ensuring(Effect.promise(() => stopChild(started.child))))
      })

    const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 })
    console.log(`GET ${path}: herald vs ${peerName}, ${connections} connections, ${rounds} rounds of ${duration} s ` +
      `(after ${warmup} s warm-up), a fresh process each, alternating\n`)
    const pairs: Array<{ herald: Result; peer: Result }> = []
    for (let round = 1; round <= rounds; round++) {
      const runs: Record<string, Result> = {}
      const order = round % 2 === 1 ? ["peer", "herald"] as const : ["herald", "peer"] as const
      const answers: Array<string> = []
      for (const who of order) {
        const { answer, result } = who === "herald" ? yield* measure("herald", startHerald) : yield* measure(peerName, startPeer)
        runs[who] = result
        answers.push(`${answer.fields} ${answer.body}`)
      }
      if (answers[0] !== answers[1]) return yield* Effect.die(new Error(`the servers answer different fields: ${answers.join(" vs ")}`))
      const pair = { herald: runs.herald, peer: runs.peer }
      pairs.push(pair)
      const bad = [pair.herald, pair.peer].filter((r) => r.non2xx > 0 || r.errors > 0)
        .map((r) => `  ${r.name}: ${r.non2xx} non-2xx, ${r.errors} errors`).join("")
      console.log(`round ${round}  ${peerName} ${fmt(pair.peer.rps).padStart(7)} req/s (p99 ${pair.peer.p99} ms)   ` +
        `herald ${fmt(pair.herald.rps).padStart(7)} req/s (p99 ${pair.herald.p99} ms)   ratio ${(pair.herald.rps / pair.peer.rps).toFixed(2)}${bad}`)
    }
    const best = (rs: ReadonlyArray<Result>) => Math.max(...rs.map((r) => r.rps))
    const ratios = pairs.map((p) => p.herald.rps / p.peer.rps).sort((a, b) => a - b)
    const middle = ratios.length / 2
    const median = ratios.length % 2 === 1 ? ratios[Math.floor(middle)] : (ratios[middle - 1] + ratios[middle]) / 2
    const bestHerald = best(pairs.map((p) => p.herald))
    const bestPeer = best(pairs.map((p) => p.peer))
    console.log(`\nbest round: herald ${fmt(bestHerald)} req/s, ${peerName} ${fmt(bestPeer)} req/s`)
    console.log(`best-of ratio herald / ${peerName}: ${(bestHerald / bestPeer).toFixed(2)}`)
    console.log(`paired median ratio:  ${median.toFixed(2)}`)
  })
}
