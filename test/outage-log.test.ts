import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { vi } from "vitest"
import { embeddedServer } from "../src/platform/Database.ts"
import { call, externalDatabaseUrl, freshSchemaUrl, testApp } from "./support/harness.ts"
import { type TcpProxy, tcpProxy } from "./support/tcp-proxy.ts"
import { bearer } from "./support/processes.ts"

class Proxy extends Context.Service<Proxy, TcpProxy>()("test/OutageProxy") {}

/** The app, logging warnings and errors, talks to its database through a proxy the test can cut. */
const AppBehindProxy = Layer.unwrap(Effect.gen(function*() {
  const settings = { statusProbeIntervalMs: 60_000, dbResponseTimeoutMs: 3_000, logLevel: "warn" as const }
  const external = externalDatabaseUrl()
  if (external !== undefined) {
    const url = new URL(yield* freshSchemaUrl(external))
    const proxy = yield* tcpProxy(url.hostname, Number(url.port || 5432))
    url.hostname = "127.0.0.1"
    url.port = String(proxy.port)
    return Layer.merge(testApp({ database: url.toString(), ...settings }), Layer.succeed(Proxy, proxy))
  }
  const { port } = yield* embeddedServer(undefined)
  const proxy = yield* tcpProxy("127.0.0.1", port)
  return Layer.merge(
    // A served PGlite looks like PostgreSQL to the app; the engine must keep its runners in memory on it.
    testApp({ database: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`, ...settings, pgMaxConnections: 1, workflowRunnerStorage: Option.some("memory") }),
    Layer.succeed(Proxy, proxy)
  )
}))

layer(AppBehindProxy, { timeout: 60_000, excludeTestServices: true })("database outage logging", (it) => {
  it.effect("an outage is one warning per cause per 10 s with the request count, never an error with a stack per request", () =>
    Effect.gen(function*() {
      const proxy = yield* Proxy
      const provisioned = yield* call("POST", "/api/admin/provision", {
        headers: { "x-admin-secret": "test-admin-secret" },
        body: { email: "logged-outage@example.com", status: "active" }
      })
      assert.strictEqual(provisioned.status, 200, provisioned.text)
      const { customerId, apiKey } = provisioned.json
      const lines: Array<string> = []
      const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
        lines.push(args.map(String).join(" "))
      })
      try {
        yield* Effect.promise(() => proxy.cut())
        const requests = 12
        for (let n = 0; n < requests; n++) {
          const res = yield* call("GET", `/api/customer/${customerId}`, { headers: bearer(apiKey) })
          assert.strictEqual(res.status, 503, res.text)
        }
        const outage = lines.filter((line) => line.includes("database unavailable"))
        const errors = lines.filter((line) => /"ERROR"|unhandled failure/.test(line))
        assert.deepStrictEqual(errors, [], "no error line per request")
        assert.isAtLeast(outage.length, 1)
        const causes = outage.map((line) => JSON.parse(line).annotations.cause as string)
        assert.strictEqual(new Set(causes).size, causes.length, `one line per cause: ${outage.join("\n")}`)
        for (const line of outage) {
          const parsed = JSON.parse(line)
          assert.strictEqual(parsed.level, "WARN")
          assert.isNumber(parsed.annotations.requests)
          assert.notMatch(line, /(?<!\s)\s+at\s.+:\d+:\d+/, "no stack")
        }
        assert.isBelow(outage.length, requests)
      } finally {
        spy.mockRestore()
        yield* Effect.promise(() => proxy.restore())
      }
    }))
})
