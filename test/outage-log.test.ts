import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { embeddedServer } from "../src/platform/Database.ts"
import { outageCheckMs, outageLogIntervalMs } from "../src/platform/http/OutageLog.ts"
import { eventually } from "./support/eventually.ts"
import { call, externalDatabaseUrl, freshSchemaUrl, testApp } from "./support/harness.ts"
import { capturingLogs } from "./support/logs.ts"
import { bearer, provision } from "./support/processes.ts"
import { type TcpProxy, tcpProxy } from "./support/tcp-proxy.ts"

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
    testApp({
      database: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
      ...settings,
      pgMaxConnections: 1,
      workflowRunnerStorage: Option.some("memory")
    }),
    Layer.succeed(Proxy, proxy)
  )
}))

const parsed = (lines: ReadonlyArray<string>, message: string) =>
  lines.filter((line) => line.includes(message)).map((line) =>
    JSON.parse(line) as { level: string; annotations: Record<string, any> }
  )

layer(AppBehindProxy, { timeout: 90_000, excludeTestServices: true })("database outage logging", (it) => {
  it.effect("an outage is one warning per cause per 10 s with the request count, never an error with a stack per request", () =>
    Effect.gen(function*() {
      const proxy = yield* Proxy
      const { customerId, apiKey } = yield* provision({ email: "logged-outage@example.com", status: "active" })
      yield* capturingLogs((lines) =>
        Effect.gen(function*() {
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
        }).pipe(Effect.ensuring(Effect.promise(() => proxy.restore())))
      )
    }))

  it.effect("the lines add up: every 503 of an outage longer than the interval is counted, and one line closes it with the total and the duration", () =>
    Effect.gen(function*() {
      const proxy = yield* Proxy
      const { customerId, apiKey } = yield* provision({ email: "counted-outage@example.com", status: "active" })
      // The previous test's outage has closed (its closing line came while nobody listened).
      yield* eventually(
        Effect.map(
          call("GET", `/api/customer/${customerId}`, { headers: bearer(apiKey) }),
          (res) => res.status === 200 || undefined
        )
      )
      yield* Effect.sleep(`${outageCheckMs * 3} millis`)
      let restored = false
      yield* capturingLogs((lines) =>
        Effect.gen(function*() {
          yield* Effect.promise(() => proxy.cut())
          let failed = 0
          let firstAnsweredAt: number | undefined
          const firstAt = Date.now()
          // Past one interval, so at least one line is an interval's count rather than the first failure's.
          while (Date.now() - firstAt < outageLogIntervalMs + 1_500) {
            const api = yield* call("GET", `/api/customer/${customerId}`, { headers: bearer(apiKey) })
            assert.strictEqual(api.status, 503, api.text)
            firstAnsweredAt ??= Date.now()
            // A page's outage is the same outage: a 503 page, counted, no error logged.
            const page = yield* call("GET", "/checkout/chk_0123456789abcdef0123456789abcdef")
            assert.strictEqual(page.status, 503, page.text)
            assert.include(page.headers.get("content-type"), "text/html")
            failed += 2
            // Under the customer's REST limit (60 a minute) for the whole outage.
            yield* Effect.sleep("250 millis")
          }
          restored = true
          yield* Effect.promise(() => proxy.restore())
          const restoredAt = Date.now()
          yield* eventually(
            Effect.sync(() => parsed(lines, "database available again").length === 1 || undefined),
            20_000
          )
          const back = yield* call("GET", `/api/customer/${customerId}`, { headers: bearer(apiKey) })
          assert.strictEqual(back.status, 200, back.text)

          assert.deepStrictEqual(lines.filter((line) => /"ERROR"|unhandled failure|page failed/.test(line)), [])
          const during = parsed(lines, "database unavailable")
          const [closing] = parsed(lines, "database available again")
          for (const line of [...during, closing]) assert.strictEqual(line.level, "WARN")
          // The true count, in total and per cause: what the lines say adds up to every 503 answered.
          assert.strictEqual(closing.annotations.requests, failed)
          const perCause = new Map<string, number>()
          for (const line of during) {
            perCause.set(
              line.annotations.cause,
              (perCause.get(line.annotations.cause) ?? 0) + line.annotations.requests
            )
          }
          assert.deepStrictEqual(Object.fromEntries(perCause), closing.annotations.causes)
          assert.strictEqual([...perCause.values()].reduce((a, b) => a + b, 0), failed)
          // One line at the start, then one per interval while requests failed, and the rest at the end:
          // at most three for an outage of one to two intervals, per cause.
          const main = [...perCause].sort((a, b) => b[1] - a[1])[0][0]
          const mainLines = during.filter((line) => line.annotations.cause === main)
          assert.isAtLeast(mainLines.length, 2, JSON.stringify(during))
          assert.isAtMost(mainLines.length, 3, JSON.stringify(during))
          assert.strictEqual(mainLines[0].annotations.requests, 1, "the first failure is logged at once")
          // It began with the first 503 and lasted at least until the restore.
          const startedAt = Date.parse(closing.annotations.startedAt)
          assert.isAtLeast(startedAt, firstAt)
          assert.isAtMost(startedAt, firstAnsweredAt!)
          assert.isAtLeast(closing.annotations.durationMs, restoredAt - startedAt)
        }).pipe(Effect.ensuring(Effect.suspend(() => restored ? Effect.void : Effect.promise(() => proxy.restore()))))
      )
    }))
})
