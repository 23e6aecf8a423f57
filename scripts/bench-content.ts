/**
 * Keyset paging cost against table size. Seeds 1,000,000 content rows over
 * 10,000 customers (100 each) in one INSERT ... SELECT generate_series, and
 * beside it, in another database, 10,000 rows over 100 customers (the same
 * 100 each); then times the first page and the 10th page (limit 10, reached
 * by cursor) of both through the real HTTP API, in turn request by request.
 * Prints p50/p99 of each and the ratio of p99s (target <= 1.5).
 *
 * The REST limit is 60 requests a minute per customer, so the samples are
 * spread over 100 customers of identical shape, 49 requests each (2,000
 * samples per figure, so that p99 is not a handful of scheduler hiccups).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node scripts/bench-content.ts
 * Without DATABASE_URL it runs on an in-memory PGlite (slow to seed).
 */
import { Context, Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { Customers } from "../src/features/customers/Customers.ts"
import { externalDatabaseUrl, freshSchemaUrl, send } from "../test/support/harness.ts"
import { runScript, startApp } from "./support/bench-kit.ts"

const targets = 100
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

interface Prepared {
  readonly rows: number
  readonly url: string
  /** Per target: its key, and the paths of its first and tenth page. */
  readonly pages: ReadonlyArray<{ readonly key: string; readonly first: string; readonly tenth: string }>
}

/** An app on a fresh database seeded with `customers` x 100 rows, and each target's page paths. */
const prepare = (customers: number) =>
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
    // Settled as a live table would be: otherwise autovacuum of the fresh million rows runs during the timing.
    yield* sql`VACUUM ANALYZE content`
    const [{ n }] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM content`
    console.log(`seeded ${n} rows over ${customers} customers in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`)

    const pages = yield* Effect.promise(() =>
      Promise.all(keys.map(async ([id, key]) => {
        const first = `/api/content/${id}?limit=10`
        let tenth = first
        for (let page = 1; page < 10; page++) {
          const { json } = await timed(url, tenth, key)
          tenth = `${first}&cursor=${encodeURIComponent(json.nextCursor)}`
        }
        return { key, first, tenth }
      }))
    )
    return { rows: n, url, pages } satisfies Prepared
  })

/**
 * Both databases are timed in one loop, request by request in turn, so that
 * whatever else the machine does (GC, autovacuum, background fibers) falls on
 * both alike; p99 is otherwise a handful of such hiccups.
 */
const sample = (sets: ReadonlyArray<Prepared>) =>
  Effect.promise(async () => {
    const times = sets.map(() => ({ first: [] as Array<number>, tenth: [] as Array<number> }))
    for (let i = 0; i < samplesPerTarget; i++) {
      for (let t = 0; t < targets; t++) {
        for (let s = 0; s < sets.length; s++) {
          const { key, first, tenth } = sets[s].pages[t]
          times[s].first.push((await timed(sets[s].url, first, key)).ms)
          const last = await timed(sets[s].url, tenth, key)
          if (last.json.content.length !== 10 || last.json.nextCursor !== null) {
            throw new Error("page 10 is not the last full page")
          }
          times[s].tenth.push(last.ms)
        }
      }
    }
    return sets.map((set, s) => {
      const figures = {
        p50First: percentile(times[s].first, 50),
        p99First: percentile(times[s].first, 99),
        p50Tenth: percentile(times[s].tenth, 50),
        p99Tenth: percentile(times[s].tenth, 99)
      }
      console.log(
        `${set.rows} rows: first page p50 ${figures.p50First.toFixed(2)} ms p99 ${figures.p99First.toFixed(2)} ms; ` +
          `10th page p50 ${figures.p50Tenth.toFixed(2)} ms p99 ${figures.p99Tenth.toFixed(2)} ms (${
            times[s].first.length
          } samples each)`
      )
      return figures
    })
  })

const main = Effect.gen(function*() {
  const sets = [yield* prepare(10_000), yield* prepare(100)]
  const [large, small] = yield* sample(sets)
  console.log(
    `p99 ratio 1M/10k: first page ${(large.p99First / small.p99First).toFixed(2)}, ` +
      `10th page ${(large.p99Tenth / small.p99Tenth).toFixed(2)} (target <= 1.5)`
  )
}).pipe(Effect.scoped)

runScript(main)
