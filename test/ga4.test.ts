import { afterAll, assert, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Option, Redacted } from "effect"
import { startGa4Stub } from "./support/ga4-server.ts"
import { testApp, TestServer } from "./support/harness.ts"
import { tenant, uniqueEmail } from "./support/processes.ts"

const stub = await startGa4Stub()
afterAll(() => stub.close())

const client = (url: string, key: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const c = new Client({ name: "ga4-test", version: "1.0.0" })
      await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp?token=${key}`)))
      return c
    }),
    (c) => Effect.promise(() => c.close())
  )

const textOf = (result: any): string => result.content.map((c: any) => c.text).join("\n")

layer(
  testApp({
    ga4PropertyId: Option.some(stub.propertyId),
    ga4Credentials: Option.some(Redacted.make(stub.credentials)),
    ga4ApiBase: stub.url
  }),
  { timeout: 60_000 }
)("query_ga4 against a local GA4 Data API and token endpoint", (it) => {
  it.effect("signs a JWT, gets a token once, runs the report and answers its figures", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant({ email: uniqueEmail("ga4") })
      const c = yield* client(url, t.key)
      const before = stub.tokensIssued()
      const result: any = yield* Effect.promise(() =>
        c.callTool({ name: "query_ga4", arguments: { customerId: t.id } })
      )
      assert.notStrictEqual(result.isError, true, textOf(result))
      const data = result.structuredContent
      assert.strictEqual(data.source, "ga4")
      assert.strictEqual(data.propertyId, stub.propertyId)
      assert.deepStrictEqual(data.totals, { sessions: 300, totalUsers: 245, screenPageViews: 710, conversions: 9 })
      const sent = stub.reports().at(-1)!
      assert.deepStrictEqual(sent.dateRanges, [{ startDate: "7daysAgo", endDate: "today" }])
      assert.include(textOf(result), "sessions 300")

      const split: any = yield* Effect.promise(() =>
        c.callTool({
          name: "query_ga4",
          arguments: { customerId: t.id, period: "last_30_days", metrics: ["sessions"], dimensions: ["sessionSource"] }
        })
      )
      assert.sameDeepMembers(split.structuredContent.rows, [
        { dimensions: { sessionSource: "google" }, metrics: { sessions: 220 } },
        { dimensions: { sessionSource: "linkedin" }, metrics: { sessions: 80 } }
      ])
      assert.deepStrictEqual(stub.reports().at(-1)!.dateRanges, [{ startDate: "30daysAgo", endDate: "today" }])
      // The access token is kept until it nearly expires.
      assert.strictEqual(stub.tokensIssued() - before, before === 0 ? 1 : 0)
    }))

  it.effect("a metric GA4 refuses is a tool error carrying Google's message", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant({ email: uniqueEmail("ga4") })
      const c = yield* client(url, t.key)
      const result: any = yield* Effect.promise(() =>
        c.callTool({ name: "query_ga4", arguments: { customerId: t.id, metrics: ["bogusMetric"] } })
      )
      assert.isTrue(result.isError)
      assert.include(textOf(result), "E_GA4")
      assert.include(textOf(result), "INVALID_ARGUMENT")
      assert.include(textOf(result), "bogusMetric is not a valid metric")
    }))

  it.effect("a revoked token is replaced once and the report still answers", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant({ email: uniqueEmail("ga4") })
      const c = yield* client(url, t.key)
      yield* Effect.promise(() => c.callTool({ name: "query_ga4", arguments: { customerId: t.id } }))
      const before = stub.tokensIssued()
      stub.revokeTokens()
      const result: any = yield* Effect.promise(() =>
        c.callTool({ name: "query_ga4", arguments: { customerId: t.id } })
      )
      assert.notStrictEqual(result.isError, true, textOf(result))
      assert.strictEqual(result.structuredContent.totals.sessions, 300)
      assert.strictEqual(stub.tokensIssued(), before + 1)
    }))
})
