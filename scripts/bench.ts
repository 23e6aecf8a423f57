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
 * profile with `node --cpu-prof scripts/bench.ts`).
 */
import { Context, Effect, Layer, Option, Redacted, Scope } from "effect"
import { HttpServer } from "effect/http"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { AppConfig, appConfig } from "../src/Config.ts"
import { AppWithoutConfig } from "../src/server/App.ts"

delete process.env.BASE_URL

// autocannon ships no type declarations.
const autocannon = createRequire(import.meta.url)("autocannon") as (
  options: Record<string, unknown>,
  callback: (error: unknown, result: any) => void
) => unknown

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const warmup = Number(process.env.BENCH_WARMUP ?? 2)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const only = process.env.BENCH_ONLY
const target = 0.6

interface Result {
  readonly name: string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  readonly total: number
}

const run = (name: string, url: string, seconds: number) =>
  new Promise<Result>((resolve, reject) => {
    autocannon({ url: `${url}/api/health`, connections, duration: seconds }, (error, result) => {
      if (error) return reject(error)
      resolve({
        name,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        total: result.requests.total
      })
    })
  })

/** The baseline: the same liveness body, nothing else. */
const startBare = () =>
  new Promise<{ server: Server; url: string }>((resolve) => {
    const server = createServer((_request, response) => {
      const body = JSON.stringify({ service: "herald", status: "ok", timestamp: new Date().toISOString() })
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      response.end(body)
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({ server, url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}` })
    })
  })

const startApp = Effect.gen(function*() {
  const base = yield* appConfig
  const external = process.env.DATABASE_URL
  const config = {
    ...base,
    port: 0,
    host: "127.0.0.1",
    logLevel: "warn" as const,
    databaseUrl: Option.some(Redacted.make(external !== undefined && external.length > 0 ? external : "pglite://memory")),
    redisUrl: Option.none()
  }
  const scope = yield* Scope.Scope
  const context = yield* Layer.buildWithScope(
    AppWithoutConfig.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config))),
    scope
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag === "UnixPathAddress") return yield* Effect.die("expected an internet address")
  return `http://127.0.0.1:${address.port}`
})

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

const program = Effect.gen(function*() {
  const appUrl = yield* startApp
  const bare = yield* Effect.acquireRelease(
    Effect.promise(startBare),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

  const check = yield* Effect.promise(() => fetch(`${appUrl}/api/health`))
  if (check.status !== 200 || check.headers.get("x-request-id") === null) {
    return yield* Effect.die(`app health answered ${check.status}`)
  }

  console.log(`GET /api/health, ${connections} connections, ${rounds} x ${duration} s per server (after ${warmup} s warm-up)\n`)
  const servers = [["bare node:http", bare.url], ["herald", appUrl]] as const
  const chosen = servers.filter(([name]) => only === undefined || name === only)
  for (const [name, url] of chosen) if (warmup > 0) yield* Effect.promise(() => run(name, url, warmup))
  const all: Array<Result> = []
  for (let round = 1; round <= rounds; round++) {
    for (const [name, url] of chosen) {
      const result = yield* Effect.promise(() => run(name, url, duration))
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
  console.log(`\nratio herald / bare: ${ratio.toFixed(2)} (target >= ${target})${ratio >= target ? "" : "  BELOW TARGET"}`)
  if (app.non2xx > 0 || app.errors > 0) console.log(`warning: herald answered ${app.non2xx} non-2xx and ${app.errors} errors`)
})

Effect.runPromise(Effect.scoped(program)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
