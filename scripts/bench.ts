/**
 * Foundation bench: `GET /api/health` through the whole HTTP core against a
 * bare `node:http` server answering the same JSON.
 *
 *   npm run bench                                  # embedded PGlite in memory
 *   DATABASE_URL=postgres://... npm run bench
 *
 * Both servers run in this process (LOG_LEVEL=warn, so no per-request log
 * line), and so does autocannon (a 2-core machine has no spare core for it),
 * which costs both alike. Each run is preceded by a short warm-up. The ratio
 * app / bare is the figure to watch (target >= 0.6).
 *
 * Env: BENCH_DURATION (s per run, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_WARMUP (s, default 2), BENCH_ROUNDS (default 2: the servers alternate,
 * and each one's best round counts, so load from other processes on a shared
 * machine weighs less), BENCH_ONLY=herald (skip the baseline, e.g. to
 * profile with `node --cpu-prof scripts/bench.ts`), BENCH_WORKERS=1 (autocannon in
 * a worker thread, on the other core).
 */
import { Effect, Option, Redacted } from "effect"
import { listenBare, load, type Result, runScript, startApp } from "./support/bench-kit.ts"

delete process.env.BASE_URL

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const warmup = Number(process.env.BENCH_WARMUP ?? 2)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const only = process.env.BENCH_ONLY
const workers = Number(process.env.BENCH_WORKERS ?? 0)
const target = 0.6

const run = (name: string, url: string, seconds: number) =>
  load(name, { url: `${url}/api/health`, connections, duration: seconds, ...(workers > 0 ? { workers } : {}) })

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

const program = Effect.gen(function*() {
  const external = process.env.DATABASE_URL
  const { url: appUrl } = yield* startApp({
    logLevel: "warn",
    databaseUrl: Option.some(
      Redacted.make(external !== undefined && external.length > 0 ? external : "pglite://memory")
    )
  })
  // The baseline: the same liveness body, nothing else.
  const bareUrl = yield* listenBare((_request, response) => {
    const body = JSON.stringify({ service: "herald", status: "ok", timestamp: new Date().toISOString() })
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  })

  const check = yield* Effect.promise(() => fetch(`${appUrl}/api/health`))
  if (check.status !== 200 || check.headers.get("x-request-id") === null) {
    return yield* Effect.die(`app health answered ${check.status}`)
  }

  console.log(
    `GET /api/health, ${connections} connections, ${rounds} x ${duration} s per server (after ${warmup} s warm-up)\n`
  )
  const servers = [["bare node:http", bareUrl], ["herald", appUrl]] as const
  const chosen = servers.filter(([name]) => only === undefined || name === only)
  for (const [name, url] of chosen) if (warmup > 0) yield* run(name, url, warmup)
  const all: Array<Result> = []
  for (let round = 1; round <= rounds; round++) {
    for (const [name, url] of chosen) {
      const result = yield* run(name, url, duration)
      all.push(result)
      console.log(`round ${round}  ${name.padEnd(16)} ${fmt(result.rps).padStart(8)} req/s`)
    }
  }
  const results = chosen.map(([name]) =>
    all.filter((r) => r.name === name).reduce((best, r) => (r.rps > best.rps ? r : best))
  )

  console.log("\nbest round per server")
  console.log("server           req/s      p50 ms  p99 ms  requests   non-2xx  errors")
  for (const r of results) {
    console.log(
      `${r.name.padEnd(16)} ${fmt(r.rps).padStart(8)}  ${fmt(r.p50, 1).padStart(6)}  ${fmt(r.p99, 1).padStart(6)}  ` +
        `${fmt(r.total).padStart(9)}  ${String(r.non2xx).padStart(7)}  ${String(r.errors).padStart(6)}`
    )
  }
  if (results.length < 2) return
  const [baseline, app] = results
  const ratio = app.rps / baseline.rps
  console.log(
    `\nratio herald / bare: ${ratio.toFixed(2)} (target >= ${target})${ratio >= target ? "" : "  BELOW TARGET"}`
  )
  if (app.non2xx > 0 || app.errors > 0) {
    console.log(`warning: herald answered ${app.non2xx} non-2xx and ${app.errors} errors`)
  }
})

runScript(program)
