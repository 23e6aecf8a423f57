import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { eventually } from "./support/eventually.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { httpClient } from "./support/mcp-clients.ts"
import { assertError, bearer, DatabaseUrl, provision, testAppWithDatabase, withSql } from "./support/processes.ts"
import { type Site, sites } from "./support/scan-sites.ts"
import { servedSites } from "./support/served-sites.ts"

const site = servedSites()

const slowPage = (delayMs: number): Site => () => ({
  "/": {
    headers: { "content-type": "text/html" },
    body: "<html><head><title>Slow</title></head><body><h1>Slow</h1></body></html>",
    delayMs
  }
})

const scan = (owner: { customerId: string; apiKey: string }, url: string) =>
  call("POST", `/api/scan/${owner.customerId}`, { headers: bearer(owner.apiKey), body: { url } })

const textOf = (result: any): string => result.content.map((c: any) => c.text).join("\n")

const live = { timeout: 120_000, excludeTestServices: true }

layer(testApp({ chromiumPath: "/nonexistent/chromium", scanMaxConcurrent: 1, scanQueueMax: 0 }), live)(
  "the global bound on page work",
  (it) => {
    it.effect("brand extraction and the MCP scan tools are refused 503 E_UNAVAILABLE (Retry-After) while it is full, not failed as pages", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const [one, two] = yield* Effect.all([provision(), provision()])
        const slow = yield* site(slowPage(3_000))
        const good = yield* site(sites.wellMarkedUp)
        const running = yield* Effect.forkChild(scan(one, `${slow.origin}/`))
        yield* eventually(Effect.sync(() => slow.maxInFlight.get("/") === 1 ? true : undefined), 60_000)

        const extract = yield* call("POST", `/api/onboard/${two.customerId}/auto-extract`, {
          headers: bearer(two.apiKey),
          body: { url: `${good.origin}/` }
        })
        assertError(extract, 503, "E_UNAVAILABLE")
        assert.strictEqual(extract.headers.get("retry-after"), "10")

        const client = yield* httpClient(url, two.apiKey)
        for (const tool of ["ai_seo_audit", "cro_audit", "check_ai_visibility"]) {
          const result: any = yield* Effect.promise(() =>
            client.callTool(
              { name: tool, arguments: { customerId: two.customerId, url: `${good.origin}/` } },
              undefined,
              { timeout: 60_000 }
            )
          )
          assert.isTrue(result.isError, textOf(result))
          assert.strictEqual(result.structuredContent.code, "E_UNAVAILABLE", textOf(result))
        }
        // Nothing was stored for the refused scans.
        const listed = yield* call("GET", `/api/scan/${two.customerId}`, { headers: bearer(two.apiKey) })
        assert.deepStrictEqual(listed.json.scans, [])

        assert.strictEqual((yield* Fiber.join(running)).json.status, "done")
        const again = yield* call("POST", `/api/onboard/${two.customerId}/auto-extract`, {
          headers: bearer(two.apiKey),
          body: { url: `${good.origin}/` }
        })
        assert.strictEqual(again.status, 200, again.text)
        assert.isString(again.json.brandName)
      }))
  }
)

layer(testApp({ chromiumPath: "/nonexistent/chromium", scanMaxConcurrent: 1, scanQueueMax: 2 }), live)(
  "one customer's backlog",
  (it) => {
    it.effect("waits at its own gate (2 at once) and never takes the global places another customer needs", () =>
      Effect.gen(function*() {
        const [one, two] = yield* Effect.all([provision(), provision()])
        const slow = yield* site(slowPage(1_000))
        const good = yield* site(sites.bare)
        // Three scans of one customer: two pass its gate (one runs, one waits globally), one waits at the gate.
        // Counted globally before the gate (as it once was), they would take all three places.
        const backlog = yield* Effect.forkChild(
          Effect.all(Array.from({ length: 3 }, () => scan(one, `${slow.origin}/`)), { concurrency: "unbounded" })
        )
        yield* eventually(Effect.sync(() => slow.maxInFlight.get("/") === 1 ? true : undefined), 60_000)
        yield* Effect.sleep("500 millis")
        // The global places (1 running + 2 waiting) hold two of the first customer's scans: one is left.
        const other = yield* scan(two, `${good.origin}/`)
        assert.strictEqual(other.status, 200, other.text)
        assert.strictEqual(other.json.status, "done")
        const results = yield* Fiber.join(backlog)
        assert.deepStrictEqual(results.map((r) => r.json.status), ["done", "done", "done"])
      }))
  }
)

layer(testAppWithDatabase({ chromiumPath: "/nonexistent/chromium" }), live)("a database that refuses writes", (it) => {
  it.effect("a tool that writes answers E_UNAVAILABLE, as the REST routes answer 503, not E_INTERNAL", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const database = yield* DatabaseUrl
      const owner = yield* provision()
      // The refusal a read-only or full database gives (SQLSTATE 25006), on the table track_revenue writes.
      yield* withSql(database, (sql) =>
        Effect.gen(function*() {
          yield* sql.unsafe(`CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'cannot execute INSERT in a read-only transaction' USING ERRCODE = '25006'; END $$`)
          yield* sql.unsafe(
            "CREATE TRIGGER refuse_writes BEFORE INSERT ON revenue FOR EACH ROW EXECUTE FUNCTION refuse_writes()"
          )
        }))
      const client = yield* httpClient(url, owner.apiKey)
      const result: any = yield* Effect.promise(() =>
        client.callTool(
          { name: "track_revenue", arguments: { customerId: owner.customerId, amount: 12.5, currency: "EUR" } },
          undefined,
          { timeout: 60_000 }
        )
      )
      assert.isTrue(result.isError, textOf(result))
      assert.strictEqual(result.structuredContent.code, "E_UNAVAILABLE", textOf(result))
      assert.notInclude(textOf(result), "read-only transaction")
    }))
})
