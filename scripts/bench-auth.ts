/**
 * Authentication overhead bench.
 *
 *   node scripts/bench-auth.ts            # embedded PGlite (in memory)
 *   DATABASE_URL=postgres://... node scripts/bench-auth.ts
 *
 * Starts the whole app in this process and measures authenticated
 * `GET /api/customer/{id}` through the full stack (request id, pre-auth check,
 * Bearer parse, key-hash lookup, status gate, REST limit, tenant and role
 * checks, handler, error normalisation) against a bare `node:http` handler in
 * the same process doing the same work by hand: parse the Bearer header, check
 * the key's shape, hash it, run the same key-lookup SQL and the same customer
 * SELECT on the app's own SQL client (same pool, same database), answer JSON.
 *
 * The REST limit (60/min per customer) is not lifted: the bench provisions
 * BENCH_CUSTOMERS customers (default 10,000) and spreads requests round-robin,
 * so each stays under its budget; any non-2xx answer is reported.
 *
 * Env: BENCH_CUSTOMERS, BENCH_DURATION (s per run, default 5), BENCH_ROUNDS (default 3),
 * BENCH_CONNECTIONS (default 32). autocannon runs in this process too (2-core
 * machines have no spare core for it), which costs both handlers alike.
 */
import { Context, Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { hashApiKey, isWellFormedKey, parseBearer } from "../src/domain/ApiKeys.ts"
import { Customers } from "../src/features/customers/Customers.ts"
import { listenBare, load, type Result, runScript, startApp } from "./support/bench-kit.ts"

delete process.env.BASE_URL

const customersWanted = Number(process.env.BENCH_CUSTOMERS ?? 10000)
const duration = Number(process.env.BENCH_DURATION ?? 5)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
/** `full` skips the bare handler (for profiling the full stack alone with --cpu-prof). */
const only = process.env.BENCH_ONLY
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)

const run = (
  name: string,
  url: string,
  targets: ReadonlyArray<{ customerId: string; apiKey: string }>,
  seconds: number
) => {
  let i = 0
  return load(name, {
    url,
    connections,
    duration: seconds,
    requests: [{
      method: "GET",
      setupRequest: (request: any) => {
        const t = targets[i++ % targets.length]
        return { ...request, path: `/api/customer/${t.customerId}`, headers: { authorization: `Bearer ${t.apiKey}` } }
      }
    }]
  })
}

const main = Effect.gen(function*() {
  // An empty DATABASE_URL counts as unset (see appConfig).
  const databaseUrl = process.env.DATABASE_URL || "pglite://memory"
  const { context, config, url: appUrl } = yield* startApp({
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    statusProbeIntervalMs: 3_600_000
  })
  const customers = Context.get(context, Customers)
  const sql = Context.get(context, SqlClient.SqlClient)

  console.log(`database: ${databaseUrl.startsWith("pglite") ? "PGlite (embedded, in memory)" : "PostgreSQL"}`)
  const started = Date.now()
  const targets: Array<{ customerId: string; apiKey: string }> = []
  for (let n = 0; n < customersWanted; n++) {
    const { customer, apiKey } = yield* customers.provision({ email: `bench-${n}@example.com`, status: "active" })
    targets.push({ customerId: customer.id, apiKey })
  }
  console.log(`provisioned ${targets.length} customers in ${((Date.now() - started) / 1000).toFixed(1)} s`)

  // The bare handler: the same work, none of the framework.
  const prefix = config.apiKeyPrefix
  const bareUrl = yield* listenBare((req, res) => {
    const reply = (status: number, body: unknown) => {
      const text = JSON.stringify(body)
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
      res.end(text)
    }
    const match = /^\/api\/customer\/([^/?]+)$/.exec(req.url ?? "")
    if (match === null) return reply(404, { error: "Not found" })
    const parsed = parseBearer(req.headers.authorization)
    if (parsed._tag !== "Key" || !isWellFormedKey(prefix, parsed.key)) return reply(401, { error: "Invalid API key" })
    const hash = hashApiKey(parsed.key)
    Effect.runPromise(Effect.gen(function*() {
      const keys = yield* sql<{ customerId: string; status: string }>`
        SELECT k.id, k.customer_id, k.member_id, k.role, k.key_hash, c.status
        FROM api_keys k JOIN customers c ON c.id = k.customer_id
        WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`
      const key = keys[0]
      if (key === undefined) return [401, { error: "Invalid API key" }] as const
      if (key.customerId !== match[1]) return [403, { error: "Forbidden" }] as const
      const rows = yield* sql<Record<string, unknown>>`
        SELECT id, email, plan, status, brand_name, created_at, trial_ends_at
        FROM customers WHERE id = ${match[1]}`
      const row = rows[0]
      return [200, {
        id: row.id,
        email: row.email,
        plan: "pro",
        status: row.status,
        brandName: row.brandName,
        mcpEndpoint: `${config.baseUrl}/mcp/sse?token=YOUR_API_KEY`,
        createdAt: new Date(row.createdAt as string).toISOString(),
        trialEndsAt: row.trialEndsAt === null ? null : new Date(row.trialEndsAt as string).toISOString()
      }] as const
    })).then(([status, body]) => reply(status, body), () => reply(500, { error: "Internal server error" }))
  })

  // Same-run sanity check: both answer the same body for one customer.
  const probe = async (url: string) => {
    const r = await fetch(`${url}/api/customer/${targets[0].customerId}`, {
      headers: { authorization: `Bearer ${targets[0].apiKey}` }
    })
    return { status: r.status, body: await r.json() as Record<string, unknown> }
  }
  const [a, b] = yield* Effect.promise(() => Promise.all([probe(appUrl), probe(bareUrl)]))
  if (a.status !== 200 || b.status !== 200 || JSON.stringify(a.body) !== JSON.stringify(b.body)) {
    return yield* Effect.die(new Error(`handlers disagree: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`))
  }

  // Each request goes to the next customer, so each takes well under its 60 a minute:
  // a run of R requests spends about R / customers of each budget.
  console.log(
    `${connections} connections; ${rounds} rounds of ${duration} s per handler, alternating, after a 2 s warm-up of each`
  )
  if (only === "full") {
    const r = yield* run("full stack", appUrl, targets, duration)
    console.log(`full stack ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms, non-2xx ${r.non2xx}`)
    return
  }
  yield* run("warm-up bare", bareUrl, targets, 2)
  yield* run("warm-up full", appUrl, targets, 2)
  const bareRuns: Array<Result> = []
  const fullRuns: Array<Result> = []
  for (let round = 0; round < rounds; round++) {
    // Alternate the order so drift on a shared machine hits both alike.
    if (round % 2 === 0) {
      bareRuns.push(yield* run("bare node:http", bareUrl, targets, duration))
      fullRuns.push(yield* run("full stack", appUrl, targets, duration))
    } else {
      fullRuns.push(yield* run("full stack", appUrl, targets, duration))
      bareRuns.push(yield* run("bare node:http", bareUrl, targets, duration))
    }
    console.log(
      `  round ${round + 1}: bare ${bareRuns[round].rps.toFixed(0)} req/s, full ${fullRuns[round].rps.toFixed(0)} req/s`
    )
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const summary = (name: string, runs: ReadonlyArray<Result>): Result => ({
    name,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    total: runs.reduce((n, r) => n + r.total, 0)
  })
  const bareResult = summary("bare node:http", bareRuns)
  const fullResult = summary("full stack", fullRuns)
  const line = (r: Result) =>
    `${r.name.padEnd(16)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${
      String(r.p99).padStart(4)
    } ms   ${r.total} requests, non-2xx ${r.non2xx}, errors ${r.errors}`
  console.log("medians over the rounds:")
  console.log(line(bareResult))
  console.log(line(fullResult))
  const ratio = fullResult.rps / bareResult.rps
  console.log(`ratio full/bare: ${ratio.toFixed(2)} (target >= 0.70) ${ratio >= 0.7 ? "OK" : "BELOW TARGET"}`)
  if (fullResult.non2xx > 0) {
    console.log(
      `warning: ${fullResult.non2xx} non-2xx answers on the full stack (rate limit hit? raise BENCH_CUSTOMERS)`
    )
  }
})

runScript(main)
