/**
 * Tracked-link redirect throughput: `GET /r/{code}` on herald (target from
 * memory once known, clicks counted in memory and written once a second) against a bare `node:http` server
 * answering the same 302 from an in-memory map, same process, same run.
 * Uses an in-memory PGlite unless DATABASE_URL points at PostgreSQL. Target: ratio >= 0.6.
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=50 node scripts/bench-redirect.ts
 */
import { Context, Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { externalDatabaseUrl, freshSchemaUrl } from "../test/support/harness.ts"
import { listenBare, load, runScript, startApp } from "./support/bench-kit.ts"

delete process.env.BASE_URL
const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const target = 0.6
const browser = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

const program = Effect.gen(function*() {
  const external = externalDatabaseUrl()
  // A schema of its own each run: earlier runs' rows stay in the database.
  const databaseUrl = external === undefined ? "pglite://memory" : yield* freshSchemaUrl(external)
  const { context, url: appUrl } = yield* startApp({
    logLevel: "warn",
    databaseUrl: Option.some(Redacted.make(databaseUrl))
  })
  const sql = Context.get(context, SqlClient.SqlClient)
  const customerId = crypto.randomUUID()
  const code = "benchcode01"
  const destination = "https://example.com/landing?utm_source=x&utm_medium=social&utm_campaign=herald"
  yield* sql`INSERT INTO customers (id, email, status) VALUES (${customerId}, 'bench-redirect@example.com', 'active')`
  yield* sql`INSERT INTO tracked_links (code, customer_id, platform, target) VALUES (${code}, ${customerId}, 'x', ${destination})`
  const map = new Map([[code, destination]])
  const bareUrl = yield* listenBare((request, response) => {
    const target = map.get((request.url ?? "").slice(3))
    if (target === undefined) {
      response.writeHead(404)
      return response.end()
    }
    response.writeHead(302, { location: target, "cache-control": "no-store" })
    response.end()
  })
  const check = yield* Effect.promise(() => fetch(`${appUrl}/r/${code}`, { redirect: "manual" }))
  if (check.status !== 302) return yield* Effect.die(`herald answered ${check.status}`)
  const options = (url: string) => ({
    url: `${url}/r/${code}`,
    connections,
    duration,
    headers: { "user-agent": browser }
  })
  yield* load("warm-up", { ...options(appUrl), duration: 2 })
  yield* load("warm-up", { ...options(bareUrl), duration: 2 })
  const bare = yield* load("bare node:http", options(bareUrl))
  const herald = yield* load("herald", options(appUrl))
  const [{ clicks }] = yield* sql<
    { clicks: string }
  >`SELECT coalesce(sum(clicks), 0)::text AS clicks FROM link_clicks WHERE code = ${code}`
  console.log(
    `database: ${
      external === undefined ? "pglite (in memory)" : "postgresql"
    }; ${connections} connections, ${duration} s each`
  )
  for (const r of [bare, herald]) {
    console.log(
      `${r.name.padEnd(16)} ${
        Math.round(r.rps).toString().padStart(7)
      } req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}`
    )
  }
  const ratio = herald.rps / bare.rps
  console.log(`clicks counted by herald: ${clicks}`)
  console.log(
    `ratio herald / bare: ${ratio.toFixed(2)} (target >= ${target})${ratio >= target ? "" : "  BELOW TARGET"}`
  )
})

runScript(program)
