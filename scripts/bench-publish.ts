/**
 * Publisher lateness: POSTS approved social pieces all due in the same second
 * on the sandbox provider; prints the time until all are published and the
 * lateness (actual publish time minus due time) p50/p99/max. Uses an
 * in-memory PGlite unless DATABASE_URL points at PostgreSQL (a scratch
 * database: the migrations run in it). Target: p99 lateness under 2 s on PostgreSQL.
 *   node scripts/bench-publish.ts [POSTS=10000]
 */
import { Context, Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { externalDatabaseUrl, freshSchemaUrl } from "../test/support/harness.ts"
import { runScript, startApp } from "./support/bench-kit.ts"

const posts = Number(process.argv[2] ?? 10_000)
delete process.env.BASE_URL

const program = Effect.gen(function*() {
  const external = externalDatabaseUrl()
  // A schema of its own each run: earlier runs' rows stay in the database.
  const databaseUrl = external === undefined ? "pglite://memory" : yield* freshSchemaUrl(external)
  const { context } = yield* startApp({
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    publishPollIntervalMs: 50
  })
  const sql = Context.get(context, SqlClient.SqlClient)
  const customerId = crypto.randomUUID()
  yield* sql`INSERT INTO customers (id, email, status) VALUES (${customerId}, 'bench-publish@example.com', 'active')`
  yield* sql`INSERT INTO social_connections (customer_id, platform, account_name) VALUES (${customerId}, 'x', 'bench')`
  // Everything is due at one instant a little ahead, so the queue is full before the first is due.
  const insertSeconds = Math.max(2, Math.ceil(posts / 5000) + 1)
  const [{ due }] = yield* sql<
    { due: Date }
  >`SELECT date_trunc('second', now()) + make_interval(secs => ${insertSeconds}) AS due`
  yield* sql`INSERT INTO content (id, customer_id, type, status, platform, body, metadata, scheduled_at)
    SELECT 'cnt_bench_' || g, ${customerId}, 'social', 'approved', 'x', 'Bench post ' || g || ' https://example.com/p/' || g,
      '{"media": []}'::jsonb, ${due} FROM generate_series(1, ${posts}) AS g`
  yield* sql`INSERT INTO publish_jobs (content_id, customer_id, platform, status, due_at, next_attempt_at)
    SELECT 'cnt_bench_' || g, ${customerId}, 'x', 'queued', ${due}, ${due} FROM generate_series(1, ${posts}) AS g`
  const queuedAt = Date.now()
  if (queuedAt > new Date(due).getTime()) console.log("warning: the queue filled after the due time")
  for (;;) {
    const [{ n }] = yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM publish_jobs
      WHERE customer_id = ${customerId} AND status = 'published'`
    if (Number(n) === posts) break
    yield* Effect.sleep("200 millis")
  }
  const [stats] = yield* sql<{ p50: string; p99: string; max: string; attempts: string; published: string }>`
    SELECT
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM c.published_at - j.due_at))::text AS p50,
      percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM c.published_at - j.due_at))::text AS p99,
      max(extract(epoch FROM c.published_at - j.due_at))::text AS max,
      (SELECT count(*) FROM publish_attempts WHERE customer_id = ${customerId})::text AS attempts,
      count(*)::text AS published
    FROM publish_jobs j JOIN content c ON c.id = j.content_id
    WHERE j.customer_id = ${customerId} AND c.status = 'published'`
  console.log(`database: ${external === undefined ? "pglite (in memory)" : "postgresql"}`)
  console.log(
    `posts: ${posts} due at ${
      new Date(due).toISOString()
    }, all published ${stats.published}, attempts recorded ${stats.attempts}`
  )
  console.log(`all published ${Number(stats.max).toFixed(2)} s after the due time`)
  console.log(
    `lateness p50 ${Number(stats.p50).toFixed(3)} s, p99 ${Number(stats.p99).toFixed(3)} s, max ${
      Number(stats.max).toFixed(3)
    } s (target p99 < 2 s on PostgreSQL)`
  )
})

runScript(program)
