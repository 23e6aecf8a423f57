/**
 * Keyset paging cost against table size. Seeds 1,000,000 content rows over
 * 10,000 customers (100 each) in one INSERT ... SELECT generate_series, then
 * 10,000 rows over 100 customers (the same 100 each), and times the first
 * page and the 10th page (limit 10, reached by cursor) through the real HTTP
 * API. Prints p50/p99 of both and the ratio of p99s (target <= 1.5).
 *
 * The REST limit is 60 requests a minute per customer, so the samples are
 * spread over 25 customers of identical shape, 50 requests each.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node scripts/bench-content.ts
 * Without DATABASE_URL it runs on an in-memory PGlite (slow to seed).
 */
import { Context, Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { Customers } from "../src/server/Customers.ts"
import { externalDatabaseUrl, freshSchemaUrl, send } from "../test/support/harness.ts"
import { runScript, startApp } from "./support/bench-kit.ts"

const targets = 25
const perCustomer = 100
const samplesPerTarget = 20

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const timed = async (url: string, path: string, key: string) => {
  const start = performance.now()
  const res = await send(url, "GET", path, { headers: { authorization: `Bearer ${key}` } })
  const ms = performance.now() - start
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`)
  return { ms, json: res.json }
}

const run = (customers: number) =>
  Effect.gen(function*() {
    const external = externalDatabaseUrl()
    const databaseUrl = external === undefined ? "pglite://memory" : yield* freshSchemaUrl(external)
    const { context, url } = yield* startApp({
      databaseUrl: Option.some(Redacted.make(databaseUrl)),
      // The million-row seed is one long statement: the hung-database guard must not cut it.
      dbResponseTimeoutMs: 300_000
    })
    const sql = Context.get(context, SqlClient.SqlClient)
    const accounts = Context.get(context, Customers)

    const keys: Array<readonly [string, string]> = []
    for (let i = 0; i < targets; i++) {
      const { customer, apiKey } = yield* accounts.provision({ email: `target${i}@bench.test`, status: "active" })
      keys.push([customer.id, apiKey])
    }
    const seedStart = Date.now()
    yield* sql`INSERT INTO customers (id, email, status)
      SELECT md5('bench' || g)::uuid, 'c' || g || '@bench.test', 'active'
      FROM generate_series(1, ${customers - targets}) g`
    yield* sql`INSERT INTO content (id, customer_id, type, status, platform, title, body, created_at)
      SELECT 'cnt_' || md5(c.id::text || g), c.id,
        (ARRAY['blog', 'social', 'email', 'ad', 'outreach'])[1 + g % 5],
        (ARRAY['draft', 'pending_approval', 'approved', 'published', 'rejected'])[1 + (g / 5) % 5],
        (ARRAY['x', 'linkedin', 'instagram', 'facebook', 'tiktok', 'pinterest'])[1 + g % 6],
        'Title ' || g, repeat('body ', 40),
        now() - g * interval '1 minute' - random() * interval '30 seconds'
      FROM customers c CROSS JOIN generate_series(1, ${perCustomer}) g`
    yield* sql`ANALYZE content`
    const [{ n }] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM content`
    console.log(`seeded ${n} rows over ${customers} customers in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`)

    const first: Array<number> = []
    const tenth: Array<number> = []
    yield* Effect.promise(async () => {
      for (const [id, key] of keys) {
        let cursor = ""
        for (let page = 1; page < 10; page++) {
          const { json } = await timed(url, `/api/content/${id}?limit=10${cursor}`, key)
          cursor = `&cursor=${encodeURIComponent(json.nextCursor)}`
        }
        for (let i = 0; i < samplesPerTarget; i++) {
          first.push((await timed(url, `/api/content/${id}?limit=10`, key)).ms)
          const last = await timed(url, `/api/content/${id}?limit=10${cursor}`, key)
          if (last.json.content.length !== 10 || last.json.nextCursor !== null) throw new Error("page 10 is not the last full page")
          tenth.push(last.ms)
        }
      }
    })
    const figures = { p50First: percentile(first, 50), p99First: percentile(first, 99), p50Tenth: percentile(tenth, 50), p99Tenth: percentile(tenth, 99) }
    console.log(`${n} rows: first page p50 ${figures.p50First.toFixed(2)} ms p99 ${figures.p99First.toFixed(2)} ms; ` +
      `10th page p50 ${figures.p50Tenth.toFixed(2)} ms p99 ${figures.p99Tenth.toFixed(2)} ms (${first.length} samples each)`)
    return figures
  }).pipe(Effect.scoped)

const main = Effect.gen(function*() {
  const large = yield* run(10_000)
  const small = yield* run(100)
  console.log(`p99 ratio 1M/10k: first page ${(large.p99First / small.p99First).toFixed(2)}, ` +
    `10th page ${(large.p99Tenth / small.p99Tenth).toFixed(2)} (target <= 1.5)`)
})

runScript(main)
