/**
 * Webhook delivery throughput: emits EVENTS outbox events for HOOKS
 * subscriptions (each on its own local receiver) and prints deliveries per
 * second from the commit to the last 2xx. Uses an in-memory PGlite unless
 * DATABASE_URL points at PostgreSQL (a scratch database: the migrations run in it).
 *   node scripts/bench-webhooks.ts [EVENTS=2000] [HOOKS=4]
 */
import { Context, Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { newCustomerId } from "../src/domain/Ids.ts"
import { Outbox } from "../src/platform/Outbox.ts"
import { listenBare, runScript, startApp } from "./support/bench-kit.ts"

const events = Number(process.argv[2] ?? 2000)
const hooks = Number(process.argv[3] ?? 4)
delete process.env.BASE_URL

const program = Effect.gen(function*() {
  const external = process.env.DATABASE_URL
  const { context } = yield* startApp({
    databaseUrl: Option.some(Redacted.make(external?.startsWith("postgres") === true ? external : "pglite://memory")),
    allowPrivateTargets: true,
    webhookPollIntervalMs: 50
  })
  const sql = Context.get(context, SqlClient.SqlClient)
  const outbox = Context.get(context, Outbox)

  let received = 0
  let done: () => void = () => undefined
  const finished = new Promise<void>((resolve) => (done = resolve))
  const urls: Array<string> = []
  for (let i = 0; i < hooks; i++) {
    const url = yield* listenBare((req, res) => {
      req.resume()
      req.on("end", () => {
        res.end("ok")
        if (++received === events * hooks) done()
      })
    })
    urls.push(`${url}/hook`)
  }

  const customerId = newCustomerId()
  yield* sql`INSERT INTO customers (id, email, status) VALUES (${customerId}, 'bench@example.com', 'active')`
  for (const [i, url] of urls.entries()) {
    yield* sql`INSERT INTO webhooks (id, customer_id, url, events, secret)
      VALUES (${`wh_bench_${i}`}, ${customerId}, ${url}, ${["team.invited"]}, ${
      "whsec_" + Buffer.alloc(32, i).toString("base64")
    })`
  }

  const start = performance.now()
  for (let batch = 0; batch < events; batch += 100) {
    yield* Effect.gen(function*() {
      for (let i = batch; i < Math.min(events, batch + 100); i++) {
        yield* outbox.emit(customerId, "team.invited", { memberId: `mem_${i}`, email: `m${i}@example.com` })
      }
    }).pipe(sql.withTransaction)
  }
  const emitted = performance.now()
  yield* Effect.promise(() => finished)
  const seconds = (performance.now() - start) / 1000
  console.log(`database: ${external?.startsWith("postgres") === true ? "postgresql" : "pglite"}`)
  console.log(`events: ${events}, subscriptions: ${hooks}, deliveries: ${events * hooks}`)
  console.log(`emit: ${((emitted - start) / 1000).toFixed(2)} s`)
  console.log(`delivered all in ${seconds.toFixed(2)} s: ${Math.round((events * hooks) / seconds)} deliveries/s`)
})

runScript(program)
