import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { embeddedServer } from "../src/platform/Database.ts"
import { call, externalDatabaseUrl, freshSchemaUrl, testApp } from "./support/harness.ts"
import { type TcpProxy, tcpProxy } from "./support/tcp-proxy.ts"

class Proxy extends Context.Service<Proxy, TcpProxy>()("test/DatabaseProxy") {}

/**
 * The app talks to its database through a TCP proxy: the harness's PostgreSQL
 * (a fresh schema) when DATABASE_URL is set, else a PGlite served on a
 * loopback port by this test.
 */
const AppBehindProxy = Layer.unwrap(Effect.gen(function*() {
  // A hung database must not hang requests: its connections are dropped after 3 s of silence.
  const settings = { statusProbeIntervalMs: 200, dbResponseTimeoutMs: 3_000 }
  const external = externalDatabaseUrl()
  if (external !== undefined) {
    const url = new URL(yield* freshSchemaUrl(external))
    const proxy = yield* tcpProxy(url.hostname, Number(url.port || 5432))
    url.hostname = "127.0.0.1"
    url.port = String(proxy.port)
    return Layer.merge(
      testApp({ database: url.toString(), ...settings }),
      Layer.succeed(Proxy, proxy)
    )
  }
  const { port } = yield* embeddedServer(undefined)
  const proxy = yield* tcpProxy("127.0.0.1", port)
  return Layer.merge(
    // PGlite is one session: one pooled connection.
    testApp({
      database: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
      ...settings,
      pgMaxConnections: 1,
      // A served PGlite looks like PostgreSQL to the app; the engine must keep its runners in memory on it.
      workflowRunnerStorage: Option.some("memory")
    }),
    Layer.succeed(Proxy, proxy)
  )
}))

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Polls `check` until it holds or `ms` pass; returns whether it held. */
const eventually = <A>(ms: number, effect: Effect.Effect<A, never, any>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    for (;;) {
      const value = yield* effect
      if (check(value)) return { ok: true, value } as const
      if (Date.now() > deadline) return { ok: false, value } as const
      yield* sleep(100)
    }
  })

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = Date.now()
    const value = yield* effect
    return { value, ms: Date.now() - start }
  })

const assertErrorShape = (res: { headers: Headers; json: any; text: string }) => {
  const requestId = res.headers.get("x-request-id")
  assert.isString(requestId)
  assert.strictEqual(res.json.requestId, requestId)
  assert.isString(res.json.error)
  assert.isString(res.json.code)
  assert.notMatch(res.text, /\bat .+:\d+:\d+|Error:|node_modules|stack/i)
}

layer(AppBehindProxy, { timeout: 60_000, excludeTestServices: true })("database outage", (it) => {
  it.effect("degrades while the database is away and recovers without a restart", () =>
    Effect.gen(function*() {
      const proxy = yield* Proxy
      const provisioned = yield* call("POST", "/api/admin/provision", {
        headers: { "x-admin-secret": "test-admin-secret" },
        body: { email: "outage@example.com", status: "active" }
      })
      assert.strictEqual(provisioned.status, 200, provisioned.text)
      const { customerId, apiKey } = provisioned.json
      const auth = { authorization: `Bearer ${apiKey}` }
      assert.strictEqual((yield* call("GET", `/api/customer/${customerId}`, { headers: auth })).status, 200)
      assert.strictEqual((yield* call("GET", "/api/health/ready")).status, 200)

      yield* Effect.promise(() => proxy.cut())

      const live = yield* timed(call("GET", "/api/health"))
      assert.strictEqual(live.value.status, 200)
      assert.isBelow(live.ms, 3_000)

      const ready = yield* timed(call("GET", "/api/health/ready"))
      assert.isBelow(ready.ms, 5_000)
      assert.strictEqual(ready.value.status, 503, ready.value.text)
      assert.deepStrictEqual(
        Object.keys(ready.value.json).sort(),
        ["code", "error", "requestId", "service", "status", "timestamp"]
      )
      assert.strictEqual(ready.value.json.service, "herald")
      assert.strictEqual(ready.value.json.status, "degraded")
      assert.strictEqual(ready.value.json.code, "E_UNAVAILABLE")
      assert.isFalse(Number.isNaN(Date.parse(ready.value.json.timestamp)))
      assertErrorShape(ready.value)

      const adminReady = yield* call("GET", "/api/health/ready", { headers: { "x-admin-secret": "test-admin-secret" } })
      assert.strictEqual(adminReady.status, 503)
      assert.deepInclude(
        adminReady.json.components.map((c: any) => ({ name: c.name, status: c.status })),
        { name: "database", status: "down" }
      )

      const customer = yield* timed(call("GET", `/api/customer/${customerId}`, { headers: auth }))
      assert.isBelow(customer.ms, 8_000)
      assert.strictEqual(customer.value.status, 503, customer.value.text)
      assert.strictEqual(customer.value.json.code, "E_UNAVAILABLE")
      assertErrorShape(customer.value)

      // A few probes fail; the outage shows at once, the history before it still counts.
      const down = yield* eventually(5_000, call("GET", "/api/public/status"), (r) =>
        r.json?.status === "down" && r.json.uptime24h < 1)
      assert.isTrue(down.ok, `status did not show the outage: ${down.value.text}`)
      const during = down.value
      assert.strictEqual(during.status, 200)
      assert.isAbove(during.json.uptime24h, 0)
      const open = during.json.incidents.find((i: any) =>
        i.component === "database"
      )
      assert.isDefined(open)
      assert.isNull(open.resolvedAt)

      yield* Effect.promise(() => proxy.restore())

      const back = yield* eventually(10_000, call("GET", "/api/health/ready"), (r) => r.status === 200)
      assert.isTrue(back.ok, `readiness did not recover: ${back.value.status} ${back.value.text}`)
      assert.strictEqual(back.value.json.status, "ok")

      const again = yield* eventually(
        10_000,
        call("GET", `/api/customer/${customerId}`, { headers: auth }),
        (r) => r.status === 200
      )
      assert.isTrue(again.ok, `customer route did not recover: ${again.value.status} ${again.value.text}`)

      const status = yield* eventually(10_000, call("GET", "/api/public/status"), (r) =>
        r.json?.status === "ok" &&
        r.json.incidents.some((i: any) => i.component === "database" && i.resolvedAt !== null))
      assert.isTrue(status.ok, `status did not record a resolved incident: ${status.value.text}`)
      const body = status.value.json
      assert.isAbove(body.uptime24h, 0)
      assert.isBelow(body.uptime24h, 1)
      assert.isBelow(body.uptime7d, 1)
      const incident = body.incidents.find((i: any) => i.component === "database" && i.resolvedAt !== null)
      assert.isString(incident.id)
      assert.isString(incident.summary)
      assert.isAtMost(Date.parse(incident.startedAt), Date.parse(incident.resolvedAt))
      assert.deepInclude(body.components, { name: "database", status: "ok" })
    }), { timeout: 45_000 })
})

layer(AppBehindProxy, { timeout: 60_000, excludeTestServices: true })("database partition", (it) => {
  it.effect("answers within seconds while the database hangs, and recovers", () =>
    Effect.gen(function*() {
      const proxy = yield* Proxy
      const provisioned = yield* call("POST", "/api/admin/provision", {
        headers: { "x-admin-secret": "test-admin-secret" },
        body: { email: "partition@example.com", status: "active" }
      })
      assert.strictEqual(provisioned.status, 200, provisioned.text)
      const { customerId, apiKey } = provisioned.json
      const auth = { authorization: `Bearer ${apiKey}` }

      proxy.stall()

      assert.strictEqual((yield* call("GET", "/api/health")).status, 200)
      const ready = yield* timed(call("GET", "/api/health/ready"))
      assert.isBelow(ready.ms, 5_000)
      assert.strictEqual(ready.value.status, 503, ready.value.text)
      assert.strictEqual(ready.value.json.code, "E_UNAVAILABLE")

      const customer = yield* timed(call("GET", `/api/customer/${customerId}`, { headers: auth }))
      // On one pooled connection (the served PGlite) the request queues behind the background pollers'
      // statements (publisher, workflow engine, prober), each dropped after DB_RESPONSE_TIMEOUT_MS (3 s here).
      assert.isBelow(customer.ms, externalDatabaseUrl() === undefined ? 20_000 : 12_000)
      assert.strictEqual(customer.value.status, 503, customer.value.text)
      assert.strictEqual(customer.value.json.code, "E_UNAVAILABLE")
      assertErrorShape(customer.value)

      yield* Effect.promise(() => proxy.restore())
      const back = yield* eventually(15_000, call("GET", `/api/customer/${customerId}`, { headers: auth }), (r) =>
        r.status === 200)
      assert.isTrue(back.ok, `customer route did not recover: ${back.value.status} ${back.value.text}`)
      assert.strictEqual((yield* call("GET", "/api/health/ready")).status, 200)
    }), { timeout: 50_000 })
})
