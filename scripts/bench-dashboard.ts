/**
 * Dashboard render time for a busy customer: 10,000 content pieces (a fifth
 * of them waiting for approval), 100 webhooks with 10 delivery attempts each,
 * a team of 20. Times the render on the server (the Dashboard service, what
 * GET /dashboard and GET /api/dashboard/{id} run) and, beside it, the whole
 * HTTP round trip of GET /api/dashboard/{id}, which the REST limit (60 a
 * minute per customer) keeps to 50 samples. Prints p50/p99 (target p99 < 50 ms).
 *
 * Also 1,000 workflow runs over the six catalog workflows (the workflows
 * section reads the last three of each), and the published pieces carry
 * published_at and provider figures (the analytics section's period).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:dashboard
 * Without DATABASE_URL it runs on an in-memory PGlite.
 */
import { Context, Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { Customers } from "../src/features/customers/Customers.ts"
import { Dashboard, DashboardSections } from "../src/features/dashboard/Dashboard.ts"
import { externalDatabaseUrl, freshSchemaUrl, send } from "../test/support/harness.ts"
import { runScript, startApp } from "./support/bench-kit.ts"

const pieces = 10_000
const webhooks = 100
const attemptsPerWebhook = 10
const runs = 1_000
const renders = 500
const httpSamples = 50

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const report = (name: string, samples: ReadonlyArray<number>) =>
  console.log(
    `${name.padEnd(34)} n=${String(samples.length).padStart(4)}  p50 ${percentile(samples, 50).toFixed(2)} ms  p99 ${
      percentile(samples, 99).toFixed(2)
    } ms`
  )

runScript(Effect.gen(function*() {
  const external = externalDatabaseUrl()
  const databaseUrl = external === undefined ? "pglite://memory" : yield* freshSchemaUrl(external)
  const { context, url } = yield* startApp({
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    dbResponseTimeoutMs: 300_000
  })
  const sql = Context.get(context, SqlClient.SqlClient)
  const dashboard = Context.get(context, Dashboard)
  const { customer, apiKey } = yield* Context.get(context, Customers).provision({
    email: "busy@bench.test",
    status: "active",
    brandName: "Busy <Brand>",
    trialEndsAt: new Date(Date.now() + 10 * 86_400_000)
  })
  const id = customer.id

  const seedStart = Date.now()
  yield* sql`INSERT INTO content (id, customer_id, type, status, platform, title, body, published_url, created_at)
    SELECT 'cnt_' || md5(${id} || g), ${id}::uuid,
      (ARRAY['blog', 'social', 'email', 'ad', 'outreach'])[1 + g % 5],
      (ARRAY['draft', 'pending_approval', 'approved', 'published', 'rejected'])[1 + (g / 5) % 5],
      (ARRAY['x', 'linkedin', 'instagram', 'facebook', 'tiktok', 'pinterest'])[1 + g % 6],
      'Title <b>' || g || '</b>', repeat('body ', 80),
      CASE WHEN (g / 5) % 5 = 3 THEN 'https://example.com/p/' || g ELSE NULL END,
      now() - g * interval '1 minute'
    FROM generate_series(1, ${pieces}) g`
  yield* sql`INSERT INTO webhooks (id, customer_id, url, events, secret, created_at)
    SELECT 'wh_' || md5(${id} || g), ${id}::uuid, 'https://user:pw@hooks.example.com/' || g || '?token=t',
      ARRAY['content.created', 'content.approved'], 'whsec_x', now() - g * interval '1 hour'
    FROM generate_series(1, ${webhooks}) g`
  yield* sql`INSERT INTO webhook_events (id, customer_id, type, data) VALUES ('evt_bench', ${id}, 'content.created', '{}'::jsonb)`
  yield* sql`INSERT INTO webhook_deliveries (id, event_id, webhook_id, status)
    SELECT 'dlv_' || w.id, 'evt_bench', w.id, 'succeeded' FROM webhooks w WHERE w.customer_id = ${id}`
  yield* sql`INSERT INTO webhook_attempts (id, delivery_id, webhook_id, event_id, event_type, attempt, status_code, duration_ms, attempted_at)
    SELECT 'att_' || md5(w.id || a), 'dlv_' || w.id, w.id, 'evt_bench', 'content.created', a, 200, 40 + a, now() - a * interval '1 minute'
    FROM webhooks w CROSS JOIN generate_series(1, ${attemptsPerWebhook}) a WHERE w.customer_id = ${id}`
  yield* sql`INSERT INTO team_members (id, customer_id, email, role)
    SELECT 'mem_' || g, ${id}::uuid, 'member' || g || '@bench.test', 'editor' FROM generate_series(1, 20) g`
  // Published pieces spread over the last 60 days, with the provider's figures for the social ones.
  yield* sql`UPDATE content SET published_at = created_at - (abs(hashtext(id)) % 60) * interval '1 day'
    WHERE customer_id = ${id} AND status = 'published'`
  yield* sql`INSERT INTO post_metrics (content_id, customer_id, platform, impressions, engagements)
    SELECT id, customer_id, platform, 100 + abs(hashtext(id)) % 900, abs(hashtext(id)) % 50
    FROM content WHERE customer_id = ${id} AND status = 'published' AND type = 'social'`
  yield* sql`INSERT INTO workflow_runs (id, customer_id, workflow_id, status, triggered_by, execution_id, engine_swept, created_at, started_at, completed_at)
    SELECT 'run_bench_' || g, ${id}::uuid,
      (ARRAY['weekly-content-plan', 'daily-social-posts', 'monthly-seo-audit', 'competitor-research', 'lead-magnet', 'performance-report'])[1 + g % 6],
      CASE WHEN g % 7 = 0 THEN 'failed' ELSE 'succeeded' END, 'cron', NULL, true,
      now() - g * interval '1 hour', now() - g * interval '1 hour', now() - g * interval '1 hour' + interval '2 minutes'
    FROM generate_series(1, ${runs}) g`
  yield* sql`ANALYZE`
  console.log(
    `seeded ${pieces} pieces, ${runs} runs, ${webhooks} webhooks x ${attemptsPerWebhook} attempts, 20 members in ${
      ((Date.now() - seedStart) / 1000).toFixed(1)
    } s`
  )

  const keyRow = yield* sql<{ id: string }>`SELECT id FROM api_keys WHERE customer_id = ${id} AND member_id IS NULL`
  const principal = { customerId: id, memberId: null, keyId: keyRow[0].id, role: "owner" as const }

  // Warm-up, then the server-side render, one at a time.
  for (let i = 0; i < 20; i++) yield* dashboard.page(principal, "csrf-token")
  const server: Array<number> = []
  let bytes = 0
  for (let i = 0; i < renders; i++) {
    const start = performance.now()
    const page = yield* dashboard.page(principal, "csrf-token")
    server.push(performance.now() - start)
    bytes = page.value.length
  }
  const http: Array<number> = []
  for (let i = 0; i < httpSamples; i++) {
    const start = performance.now()
    const res = yield* Effect.promise(() =>
      send(url, "GET", `/api/dashboard/${id}`, { headers: { authorization: `Bearer ${apiKey}` } })
    )
    http.push(performance.now() - start)
    if (res.status !== 200) {
      return yield* Effect.die(new Error(`GET /api/dashboard: ${res.status} ${res.text.slice(0, 200)}`))
    }
  }
  console.log(`page size ${(bytes / 1024).toFixed(1)} KiB (${external === undefined ? "PGlite" : "PostgreSQL"})`)
  report("render (server, Dashboard.page)", server)
  report("GET /api/dashboard/{id} (HTTP)", http)
  // Where the time goes: each section alone.
  const registry = Context.get(context, DashboardSections)
  const customerView = yield* Context.get(context, Customers).get(id)
  for (const section of registry.all()) {
    const samples: Array<number> = []
    for (let i = 0; i < 100; i++) {
      const start = performance.now()
      yield* section.render({
        customer: customerView,
        principal,
        now: new Date(),
        csrf: "csrf-token",
        query: new URLSearchParams()
      })
      samples.push(performance.now() - start)
    }
    report(`  section ${section.id}`, samples)
  }
  console.log(`target: p99 < 50 ms -> ${percentile(server, 99) < 50 ? "met" : "NOT met"} (server render)`)
}))
