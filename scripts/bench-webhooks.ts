/**
 * Webhook delivery throughput: emits EVENTS outbox events for HOOKS
 * subscriptions (each on its own local receiver) and prints deliveries per
 * second from the commit to the last 2xx. Uses an in-memory PGlite unless
 * DATABASE_URL points at PostgreSQL (a scratch database: the migrations run in it).
 *   node scripts/bench-webhooks.ts [EVENTS=2000] [HOOKS=4]
 */
import { Context, Effect, Layer, Option, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { AppConfig, appConfig } from "../src/Config.ts"
import { AppWithoutConfig } from "../src/server/App.ts"
import { Outbox } from "../src/server/Outbox.ts"

const events = Number(process.argv[2] ?? 2000)
const hooks = Number(process.argv[3] ?? 4)
delete process.env.BASE_URL

const program = Effect.gen(function*() {
  const base = yield* appConfig
  const external = process.env.DATABASE_URL
  const config = {
    ...base,
    port: 0,
    host: "127.0.0.1",
    logLevel: "none" as const,
    databaseUrl: Option.some(Redacted.make(external?.startsWith("postgres") === true ? external : "pglite://memory")),
    redisUrl: Option.none(),
    allowPrivateTargets: true,
    webhookPollIntervalMs: 50
  }
  const scope = yield* Scope.Scope
  const context = yield* Layer.buildWithScope(AppWithoutConfig.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config))), scope)
  const sql = Context.get(context, SqlClient.SqlClient)
  const outbox = Context.get(context, Outbox)

  let received = 0
  let done: () => void = () => undefined
  const finished = new Promise<void>((resolve) => (done = resolve))
  const urls: Array<string> = []
  for (let i = 0; i < hooks; i++) {
    const server = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        res.end("ok")
        if (++received === events * hooks) done()
      })
    })
    yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve())))
    yield* Effect.addFinalizer(() => Effect.sync(() => server.close()))
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)
  }

  const customerId = crypto.randomUUID()
  yield* sql`INSERT INTO customers (id, email, status) VALUES (${customerId}, 'bench@example.com', 'active')`
  for (const [i, url] of urls.entries()) {
    yield* sql`INSERT INTO webhooks (id, customer_id, url, events, secret)
      VALUES (${`wh_bench_${i}`}, ${customerId}, ${url}, ${["team.invited"]}, ${"whsec_" + Buffer.alloc(32, i).toString("base64")})`
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

Effect.runPromise(Effect.scoped(program).pipe(Effect.orDie)).then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
