import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { httpClient, sseClient } from "./support/mcp-clients.ts"
import { assertError, awaitFreshWindow, bearer, invite, randomIp, tenant } from "./support/processes.ts"
import { specToolNames } from "./support/specTools.ts"

/** Opens a raw SSE stream and reads up to the endpoint event: the session's message path and a way to hang up. */
const rawSse = (url: string, key: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const abort = new AbortController()
      const res = await fetch(`${url}/mcp/sse?token=${key}`, { signal: abort.signal })
      const reader = res.body!.getReader()
      let text = ""
      while (!/event: endpoint\ndata: \S+\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value)
      const endpoint = /event: endpoint\ndata: (\S+)/.exec(text)![1]
      return { res, endpoint, reader, abort, first: text }
    }),
    ({ abort }) => Effect.sync(() => abort.abort())
  )

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}

const textOf = (result: any): string => result.content.map((c: any) => c.text).join("\n")

layer(testApp({ trustProxy: true, mcpKeepAliveMs: 200 }), { timeout: 60_000 })("MCP transports", (it) => {
  it.effect("SSE: the SDK client lists the twelve tools and creates a piece through autonomy, readable over REST", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant()
      const client = yield* sseClient(url, t.key)
      const listed = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(listed.tools.map((tool) => tool.name), [...specToolNames])
      const create = listed.tools.find((tool) => tool.name === "run_content_creation")!
      assert.strictEqual(create.inputSchema.type, "object")
      assert.includeMembers(create.inputSchema.required as Array<string>, ["customerId", "type", "topic"])
      assert.strictEqual(create.annotations?.readOnlyHint, false)
      assert.strictEqual(listed.tools.find((tool) => tool.name === "query_ga4")!.annotations?.readOnlyHint, true)

      const result: any = yield* Effect.promise(() =>
        client.callTool({
          name: "run_content_creation",
          arguments: {
            customerId: t.id,
            type: "blog",
            topic: "Pricing pages that convert",
            brief: "Show the price.\nName the plan.",
            keywords: ["pricing"]
          }
        })
      )
      assert.notStrictEqual(result.isError, true, textOf(result))
      const id = result.structuredContent.id as string
      const piece = yield* call("GET", `/api/content/${t.id}/${id}`, { headers: bearer(t.key) })
      assert.strictEqual(piece.status, 200, piece.text)
      // Default autonomy 2: an agent's piece waits for approval.
      assert.strictEqual(piece.json.status, "pending_approval")
      assert.strictEqual(piece.json.title, "Pricing pages that convert")
      assert.strictEqual(piece.json.agentId, "mcp")
      assert.include(piece.json.body, "## pricing")
      assert.include(piece.json.body, "Show the price.")
    }))

  it.effect("autonomy 4 for the tool's skill stores the piece approved", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant()
      const set = yield* call("PUT", `/api/settings/${t.id}/autonomy`, {
        headers: bearer(t.key),
        body: { skills: { run_content_creation: 4 } }
      })
      assert.strictEqual(set.status, 200, set.text)
      const client = yield* httpClient(url, t.key)
      const result: any = yield* Effect.promise(() =>
        client.callTool({
          name: "run_content_creation",
          arguments: { customerId: t.id, type: "social", platform: "x", topic: "Launch day" }
        })
      )
      assert.strictEqual(result.structuredContent.status, "approved", textOf(result))
    }))

  it.effect("another customer's id and a bad argument are tool errors, and nothing is created", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const a = yield* tenant()
      const b = yield* tenant()
      for (const client of [yield* sseClient(url, a.key), yield* httpClient(url, a.key)]) {
        const foreign: any = yield* Effect.promise(() =>
          client.callTool({
            name: "run_content_creation",
            arguments: { customerId: b.id, type: "blog", topic: "Steal" }
          })
        )
        assert.isTrue(foreign.isError)
        assert.include(textOf(foreign), "E_FORBIDDEN")
        const ga4: any = yield* Effect.promise(() =>
          client.callTool({ name: "query_ga4", arguments: { customerId: b.id } })
        )
        assert.isTrue(ga4.isError)
        assert.notProperty(ga4.structuredContent, "source")

        const bad: any = yield* Effect.promise(() =>
          client.callTool({ name: "run_content_creation", arguments: { customerId: a.id, type: "video", topic: "" } })
        )
        assert.isTrue(bad.isError)
        assert.include(textOf(bad), "E_VALIDATION")
        assert.include(textOf(bad), "type")
        assert.include(textOf(bad), "topic")
        const extra: any = yield* Effect.promise(() =>
          client.callTool({ name: "query_ga4", arguments: { customerId: a.id, bogus: 1 } })
        )
        assert.isTrue(extra.isError)
        assert.include(textOf(extra), "bogus")
        // The 2025-11-25 revision: arguments that fail their schema are a tool error, worded as REST words a body.
        const missing: any = yield* Effect.promise(() =>
          client.callTool({ name: "analyze_brand_url", arguments: { customerId: a.id } })
        )
        assert.isTrue(missing.isError)
        assert.strictEqual(missing.structuredContent.error, "Invalid arguments.url: is required")
        assert.deepStrictEqual(missing.structuredContent.details, [{ path: "arguments.url", message: "is required" }])
        // An unknown tool is a protocol error on every revision.
        const unknown = yield* Effect.flip(
          Effect.tryPromise(() => client.callTool({ name: "run_everything", arguments: { customerId: a.id } }))
        )
        assert.strictEqual((unknown.cause as any).code, -32602)
        assert.include((unknown.cause as any).message, "Unknown tool: run_everything")
      }
      for (const tenant of [a, b]) {
        const list = yield* call("GET", `/api/content/${tenant.id}`, { headers: bearer(tenant.key) })
        assert.deepStrictEqual(list.json.content, [])
      }
    }))

  it.effect("revisions before 2025-11-25 answer invalid arguments as JSON-RPC -32602 in REST's wording; an unknown tool is -32602", () =>
    Effect.gen(function*() {
      const t = yield* tenant()
      const accept = { accept: "application/json, text/event-stream" }
      for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
        const init = yield* call("POST", "/mcp", {
          headers: bearer(t.key, accept),
          body: { ...initialize, params: { ...initialize.params, protocolVersion: version } }
        })
        const headers = bearer(t.key, {
          ...accept,
          "mcp-session-id": init.headers.get("mcp-session-id")!,
          "mcp-protocol-version": version
        })
        const rpc = (id: number, name: string, args: object) =>
          Effect.map(
            call("POST", "/mcp", {
              headers,
              body: { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }
            }),
            (res) => {
              assert.strictEqual(res.status, 200, res.text)
              return JSON.parse(/data: (.*)/.exec(res.text)?.[1] ?? res.text)
            }
          )
        const bad = yield* rpc(2, "analyze_brand_url", { customerId: t.id, url: 7 })
        if (version === "2025-11-25") {
          assert.isTrue(bad.result.isError, version)
          assert.strictEqual(bad.result.structuredContent.error, "Invalid arguments.url: must be a string")
        } else {
          assert.strictEqual(bad.error.code, -32602, version)
          assert.strictEqual(bad.error.message, "Invalid arguments.url: must be a string")
          assert.deepStrictEqual(bad.error.data.details, [{ path: "arguments.url", message: "must be a string" }])
        }
        const unknown = yield* rpc(3, "nope", { customerId: t.id })
        assert.strictEqual(unknown.error.code, -32602, version)
        assert.strictEqual(unknown.error.message, "Unknown tool: nope")
        // Another customer's id stays a tool error on every revision.
        const foreign = yield* rpc(4, "query_ga4", { customerId: "cus_other" })
        assert.isTrue(foreign.result.isError, version)
      }
    }))

  it.effect("query_ga4 without GA4 answers Herald's own figures and says so", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant()
      const client = yield* httpClient(url, t.key)
      yield* Effect.promise(() =>
        client.callTool({
          name: "run_content_creation",
          arguments: { customerId: t.id, type: "email", topic: "Welcome" }
        })
      )
      const result: any = yield* Effect.promise(() =>
        client.callTool({ name: "query_ga4", arguments: { customerId: t.id, period: "last_30_days" } })
      )
      assert.notStrictEqual(result.isError, true, textOf(result))
      assert.strictEqual(result.structuredContent.source, "herald")
      assert.strictEqual(result.structuredContent.ga4Configured, false)
      assert.deepStrictEqual(result.structuredContent.contentCreated, { email: 1 })
      assert.include(textOf(result), "GA4 is not configured")
    }))

  it.effect("401 texts: no token, an unknown token, an inactive customer", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const ip = randomIp()
      const noToken = yield* call("GET", "/mcp/sse", { headers: { "x-forwarded-for": ip } })
      assertError(noToken, 401, "E_MCP_TOKEN_REQUIRED", "MCP token required. Include ?token=<API_KEY>")
      const noCredentials = yield* call("POST", "/mcp", { headers: { "x-forwarded-for": ip }, body: initialize })
      assertError(noCredentials, 401, "E_MCP_TOKEN_REQUIRED", "MCP token required. Include ?token=<API_KEY>")
      assert.include(noCredentials.headers.get("www-authenticate") ?? "", "resource_metadata=")
      const unknown = `svc_live_${"0".repeat(64)}`
      assertError(
        yield* call("GET", `/mcp/sse?token=${unknown}`, { headers: { "x-forwarded-for": ip } }),
        401,
        "E_INVALID_API_KEY",
        "Invalid API key"
      )
      assertError(
        yield* call("POST", "/mcp", { headers: bearer(unknown, { "x-forwarded-for": ip }), body: initialize }),
        401,
        "E_INVALID_API_KEY"
      )
      const suspended = yield* tenant({ status: "suspended" })
      assertError(
        yield* call("GET", `/mcp/sse?token=${suspended.key}`),
        401,
        "E_ACCOUNT_INACTIVE",
        "Customer account is not active"
      )
      assertError(yield* call("POST", `/mcp?token=${suspended.key}`, { body: initialize }), 401, "E_ACCOUNT_INACTIVE")
      void url
    }))

  it.effect("messages: unknown session 400 with the exact text, another customer's token 403, an unknown token 401", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const a = yield* tenant()
      const b = yield* tenant()
      const missing = yield* call("POST", `/mcp/message?sessionId=00000000-0000-0000-0000-000000000000`, {
        body: initialize
      })
      assertError(missing, 400, "E_SESSION_NOT_FOUND", "Session not found — reconnect to /mcp/sse")
      const stream = yield* rawSse(url, a.key)
      assert.strictEqual(stream.res.headers.get("content-type"), "text/event-stream")
      assert.isString(stream.res.headers.get("x-request-id"))
      // The stream shows the MCP budget without spending it.
      assert.strictEqual(stream.res.headers.get("ratelimit-policy"), `"mcp";q=30;w=60`)
      assert.match(stream.endpoint, /^\/mcp\/message\?sessionId=[0-9a-f-]{36}$/)
      assertError(yield* call("POST", `${stream.endpoint}&token=${b.key}`, { body: initialize }), 403, "E_FORBIDDEN")
      assertError(
        yield* call("POST", `${stream.endpoint}&token=svc_live_${"1".repeat(64)}`, { body: initialize }),
        401,
        "E_INVALID_API_KEY"
      )
      const ok = yield* call("POST", `${stream.endpoint}&token=${a.key}`, { body: initialize })
      assert.strictEqual(ok.status, 202, ok.text)
      const plain = yield* call("POST", stream.endpoint, { body: { jsonrpc: "2.0", id: 2, method: "ping" } })
      assert.strictEqual(plain.status, 202)
      assert.strictEqual(plain.headers.get("ratelimit-policy"), `"mcp";q=30;w=60`)
      const notRpc = yield* call("POST", stream.endpoint, { body: { hello: "world" } })
      assertError(notRpc, 400, "E_VALIDATION")
      const malformed = yield* call("POST", stream.endpoint, {
        body: "{nope",
        raw: true,
        headers: { "content-type": "application/json" }
      })
      assertError(malformed, 400, "E_MALFORMED_JSON")
      // The replies and keep-alive comments arrive on the stream.
      const more = yield* Effect.promise(async () => {
        let text = ""
        while (!(text.includes("\"id\":2") && text.includes(": keep-alive"))) {
          text += new TextDecoder().decode((await stream.reader.read()).value)
        }
        return text
      })
      assert.include(more, "event: message")
      // Hanging up closes the session.
      stream.abort.abort()
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
      assertError(
        yield* call("POST", stream.endpoint, { body: initialize }),
        400,
        "E_SESSION_NOT_FOUND",
        "Session not found — reconnect to /mcp/sse"
      )
    }))

  it.effect(
    "failed authentications spend the pre-auth budget per address: the 21st is 429, a valid key after 20 passes",
    () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        yield* awaitFreshWindow(10)
        const t = yield* tenant()
        const ip = randomIp()
        const bad = `svc_live_${"2".repeat(64)}`
        for (let i = 0; i < 20; i++) {
          const res = i % 2 === 0
            ? yield* call("GET", `/mcp/sse?token=${bad}`, { headers: { "x-forwarded-for": ip } })
            : yield* call("POST", "/mcp", { headers: { "x-forwarded-for": ip }, body: initialize })
          assert.strictEqual(res.status, 401, `attempt ${i + 1}`)
        }
        // Exactly 20 failures: a valid key still passes.
        const valid = yield* call("POST", `/mcp?token=${t.key}`, {
          headers: { "x-forwarded-for": ip, accept: "application/json, text/event-stream" },
          body: initialize
        })
        assert.strictEqual(valid.status, 200, valid.text)
        const over = yield* call("GET", `/mcp/sse?token=${bad}`, { headers: { "x-forwarded-for": ip } })
        assertError(over, 429, "E_RATE_LIMITED")
        assert.match(over.headers.get("ratelimit-policy")!, /^"pre-auth";q=20;w=60$/)
        assertError(
          yield* call("POST", `/mcp?token=${t.key}`, { headers: { "x-forwarded-for": ip }, body: initialize }),
          429,
          "E_RATE_LIMITED"
        )
        void url
      }),
    { timeout: 90_000 }
  )

  it.effect("a refused Origin is 403 on every MCP endpoint; the service's own origin passes", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant()
      const evil = { origin: "http://evil.example" }
      assertError(yield* call("GET", `/mcp/sse?token=${t.key}`, { headers: evil }), 403, "E_FORBIDDEN")
      assertError(yield* call("POST", `/mcp?token=${t.key}`, { headers: evil, body: initialize }), 403, "E_FORBIDDEN")
      const stream = yield* rawSse(url, t.key)
      assertError(yield* call("POST", stream.endpoint, { headers: evil, body: initialize }), 403, "E_FORBIDDEN")
      const own = yield* call("POST", stream.endpoint, { headers: { origin: url }, body: initialize })
      assert.strictEqual(own.status, 202, own.text)
      // Precedence: authentication (401) comes before the Origin's 403.
      assertError(yield* call("GET", "/mcp/sse", { headers: evil }), 401, "E_MCP_TOKEN_REQUIRED")
      assertError(yield* call("POST", "/mcp", { headers: evil, body: initialize }), 401, "E_MCP_TOKEN_REQUIRED")
      assertError(
        yield* call("POST", "/mcp?token=svc_live_nope", { headers: evil, body: initialize }),
        401,
        "E_INVALID_API_KEY"
      )
    }))

  it.effect("Streamable HTTP: sessions are per customer, DELETE ends one, an unknown one is 404", () =>
    Effect.gen(function*() {
      const a = yield* tenant()
      const b = yield* tenant()
      const accept = { accept: "application/json, text/event-stream" }
      const init = yield* call("POST", "/mcp", {
        headers: bearer(a.key, accept),
        body: { ...initialize, params: { ...initialize.params, protocolVersion: "2025-11-25" } }
      })
      assert.strictEqual(init.status, 200, init.text)
      const session = init.headers.get("mcp-session-id")!
      assert.isString(session)
      assert.include(init.text, "\"protocolVersion\":\"2025-11-25\"")
      const foreign = yield* call("POST", "/mcp", {
        headers: bearer(b.key, { ...accept, "mcp-session-id": session }),
        body: { jsonrpc: "2.0", id: 2, method: "tools/list" }
      })
      assertError(foreign, 403, "E_FORBIDDEN")
      // A version outside 2024-11-05..2025-11-25 is answered with the newest.
      for (
        const [asked, answered] of [["2024-10-07", "2025-11-25"], ["2024-11-05", "2024-11-05"], [
          "2025-06-18",
          "2025-06-18"
        ]]
      ) {
        const res = yield* call("POST", "/mcp", {
          headers: bearer(a.key, accept),
          body: { ...initialize, params: { ...initialize.params, protocolVersion: asked } }
        })
        assert.include(res.text, `"protocolVersion":"${answered}"`, asked)
      }
      // The SDK's own refusals keep their status and message in the Error shape.
      const notAcceptable = yield* call("POST", "/mcp", {
        headers: bearer(a.key, { accept: "text/html" }),
        body: initialize
      })
      assertError(notAcceptable, 406, "E_NOT_ACCEPTABLE")
      assert.include(notAcceptable.json.error, "text/event-stream")
      const ended = yield* call("DELETE", "/mcp", { headers: bearer(a.key, { "mcp-session-id": session }) })
      assert.strictEqual(ended.status, 200, ended.text)
      const gone = yield* call("POST", "/mcp", {
        headers: bearer(a.key, { ...accept, "mcp-session-id": session }),
        body: { jsonrpc: "2.0", id: 3, method: "tools/list" }
      })
      assertError(gone, 404, "E_NOT_FOUND")
    }))

  it.effect("a session belongs to the key that opened it: another key of the same customer is 403 on both transports", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant()
      const owner = { customerId: t.id, apiKey: t.key, email: "", mcpEndpoint: "" }
      const admin = yield* invite(owner, "admin")
      const viewer = yield* invite(owner, "viewer")
      const accept = { accept: "application/json, text/event-stream" }
      const adminOnly = {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "ask_cmo", arguments: { customerId: t.id, question: "Plan?" } }
      }

      // Streamable HTTP: the admin's session, driven with the viewer's key, the owner's, then the admin's own.
      const init = yield* call("POST", "/mcp", { headers: bearer(admin.apiKey, accept), body: initialize })
      assert.strictEqual(init.status, 200, init.text)
      const session = init.headers.get("mcp-session-id")!
      const asViewer = yield* call("POST", "/mcp", {
        headers: bearer(viewer.apiKey, { ...accept, "mcp-session-id": session }),
        body: adminOnly
      })
      assertError(asViewer, 403, "E_FORBIDDEN")
      assertError(
        yield* call("POST", `/mcp?token=${viewer.apiKey}`, {
          headers: { ...accept, "mcp-session-id": session },
          body: adminOnly
        }),
        403,
        "E_FORBIDDEN"
      )
      assertError(
        yield* call("POST", "/mcp", {
          headers: bearer(t.key, { ...accept, "mcp-session-id": session }),
          body: adminOnly
        }),
        403,
        "E_FORBIDDEN"
      )
      assertError(
        yield* call("GET", "/mcp", {
          headers: bearer(viewer.apiKey, { accept: "text/event-stream", "mcp-session-id": session })
        }),
        403,
        "E_FORBIDDEN"
      )
      assertError(
        yield* call("DELETE", "/mcp", { headers: bearer(viewer.apiKey, { "mcp-session-id": session }) }),
        403,
        "E_FORBIDDEN"
      )
      // The refusals left the session alone: its own key still lists the tools in it.
      const own = yield* call("POST", "/mcp", {
        headers: bearer(admin.apiKey, { ...accept, "mcp-session-id": session, "mcp-protocol-version": "2024-11-05" }),
        body: { jsonrpc: "2.0", id: 3, method: "tools/list" }
      })
      assert.strictEqual(own.status, 200, own.text)
      assert.include(own.text, "ask_cmo")

      // The official client's session: another key on it is refused the same way.
      const client = yield* httpClient(url, admin.apiKey)
      const clientSession = (client.transport as { sessionId?: string }).sessionId!
      assert.isString(clientSession)
      assertError(
        yield* call("POST", "/mcp", {
          headers: bearer(viewer.apiKey, { ...accept, "mcp-session-id": clientSession }),
          body: adminOnly
        }),
        403,
        "E_FORBIDDEN"
      )
      assert.isAbove((yield* Effect.promise(() => client.listTools())).tools.length, 0)

      // Legacy SSE: the viewer's key on the admin's message endpoint, as a token or a Bearer header.
      const stream = yield* rawSse(url, admin.apiKey)
      assertError(
        yield* call("POST", `${stream.endpoint}&token=${viewer.apiKey}`, { body: adminOnly }),
        403,
        "E_FORBIDDEN"
      )
      assertError(
        yield* call("POST", stream.endpoint, { headers: bearer(viewer.apiKey), body: adminOnly }),
        403,
        "E_FORBIDDEN"
      )
      assertError(yield* call("POST", `${stream.endpoint}&token=${t.key}`, { body: adminOnly }), 403, "E_FORBIDDEN")
      const mine = yield* call("POST", `${stream.endpoint}&token=${admin.apiKey}`, { body: initialize })
      assert.strictEqual(mine.status, 202, mine.text)
      // Nothing the refused requests sent reached the session: its only reply is to the admin's initialize.
      const replies = yield* Effect.promise(async () => {
        let text = stream.first
        while (!text.includes("\"id\":1")) text += new TextDecoder().decode((await stream.reader.read()).value)
        return text
      })
      assert.notInclude(replies, "\"id\":2")
    }))

  it.effect(
    "the MCP limit: 30 POSTs a minute per customer pass, the 31st is 429; the SSE GET does not count",
    () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        yield* awaitFreshWindow(20)
        const t = yield* tenant()
        const stream = yield* rawSse(url, t.key)
        for (let i = 0; i < 3; i++) yield* rawSse(url, t.key)
        for (let i = 1; i <= 30; i++) {
          const res = i % 2 === 0
            ? yield* call("POST", stream.endpoint, { body: { jsonrpc: "2.0", id: i, method: "ping" } })
            : yield* call("POST", "/mcp", {
              headers: bearer(t.key, { accept: "application/json, text/event-stream" }),
              body: { jsonrpc: "2.0", id: i, method: "ping" }
            })
          assert.notStrictEqual(res.status, 429, `request ${i}`)
          assert.strictEqual(
            res.headers.get("ratelimit"),
            `"mcp";r=${30 - i};t=${res.headers.get("ratelimit")!.split("t=")[1]}`
          )
        }
        const over = yield* call("POST", stream.endpoint, { body: { jsonrpc: "2.0", id: 99, method: "ping" } })
        assertError(over, 429, "E_RATE_LIMITED", "Rate limit exceeded")
        assert.isAtLeast(Number(over.headers.get("retry-after")), 1)
        assert.match(over.headers.get("ratelimit")!, /^"mcp";r=0;t=\d+$/)
        assertError(yield* call("POST", "/mcp", { headers: bearer(t.key), body: initialize }), 429, "E_RATE_LIMITED")
        // Another customer's budget is its own.
        const other = yield* tenant()
        const fine = yield* call("POST", `/mcp?token=${other.key}`, {
          headers: { accept: "application/json, text/event-stream" },
          body: initialize
        })
        assert.strictEqual(fine.status, 200, fine.text)
      }),
    { timeout: 90_000 }
  )
})

/** The first bytes of a response's body, as text; the rest is not read. */
const firstBytes = (res: Response) =>
  Effect.promise(async () => {
    const reader = res.body!.getReader()
    const text = new TextDecoder().decode((await reader.read()).value)
    void reader.cancel()
    return text
  })

layer(testApp({ mcpSessionIdleMs: 1000, mcpMaxSessionsPerCustomer: 2 }), { timeout: 60_000 })(
  "MCP idle sessions and the session cap",
  (it) => {
    const accept = { accept: "application/json, text/event-stream" }

    it.effect("every event stream opens at once with a comment, long before its first keep-alive (15 s here)", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const t = yield* tenant()
        const sse = yield* rawSse(url, t.key)
        assert.isTrue(sse.first.startsWith(": open\n\nevent: endpoint\n"), sse.first)
        // The standing stream of a Streamable HTTP session.
        const init = yield* call("POST", "/mcp", { headers: bearer(t.key, accept), body: initialize })
        const abort = new AbortController()
        const standing = yield* Effect.acquireRelease(
          Effect.promise(() =>
            fetch(`${url}/mcp`, {
              headers: bearer(t.key, {
                accept: "text/event-stream",
                "mcp-session-id": init.headers.get("mcp-session-id")!
              }),
              signal: abort.signal
            })
          ),
          () => Effect.sync(() => abort.abort())
        )
        assert.strictEqual(standing.status, 200)
        assert.strictEqual(standing.headers.get("content-type"), "text/event-stream")
        assert.strictEqual(yield* firstBytes(standing), ": open\n\n")
        // A chat answer's stream.
        const chat = yield* Effect.promise(() =>
          fetch(`${url}/api/chat/${t.id}`, {
            method: "POST",
            headers: bearer(t.key, { "content-type": "application/json" }),
            body: JSON.stringify({ message: "Hello" })
          })
        )
        assert.strictEqual(chat.status, 200)
        assert.isTrue((yield* firstBytes(chat)).startsWith(": open\n\n"))
      }))

    it.effect("at the cap the least recently used idle session makes room; only sessions all in use refuse a new one", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const t = yield* tenant()
        const other = yield* tenant()
        const first = yield* rawSse(url, t.key)
        const older = yield* call("POST", "/mcp", { headers: bearer(t.key, accept), body: initialize })
        assert.strictEqual(older.status, 200, older.text)
        const olderId = older.headers.get("mcp-session-id")!
        // At the cap (2): the abandoned Streamable HTTP session is closed for the new stream.
        const second = yield* rawSse(url, t.key)
        assert.strictEqual(second.res.status, 200)
        const listTools = (session: string) =>
          call("POST", "/mcp", {
            headers: bearer(t.key, { ...accept, "mcp-session-id": session }),
            body: { jsonrpc: "2.0", id: 2, method: "tools/list" }
          })
        assertError(yield* listTools(olderId), 404, "E_NOT_FOUND")
        // Two open streams: nothing is idle, so the next session is a limit.
        const full = yield* call("GET", `/mcp/sse?token=${t.key}`)
        assertError(full, 429, "E_RATE_LIMITED", "Rate limit exceeded")
        assert.isAtLeast(Number(full.headers.get("retry-after")), 1)
        assertError(
          yield* call("POST", "/mcp", { headers: bearer(t.key, accept), body: initialize }),
          429,
          "E_RATE_LIMITED"
        )
        // Another customer is not affected; closing a stream frees its place.
        assert.strictEqual(
          (yield* call("POST", "/mcp", { headers: bearer(other.key, accept), body: initialize })).status,
          200
        )
        first.abort.abort()
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
        const a = yield* call("POST", "/mcp", { headers: bearer(t.key, accept), body: initialize })
        assert.strictEqual(a.status, 200)
        // Of two idle sessions, the one used last stays.
        second.abort.abort()
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
        const b = yield* call("POST", "/mcp", { headers: bearer(t.key, accept), body: initialize })
        const bId = b.headers.get("mcp-session-id")!
        assert.strictEqual((yield* listTools(a.headers.get("mcp-session-id")!)).status, 200)
        const c = yield* call("POST", "/mcp", { headers: bearer(t.key, accept), body: initialize })
        assert.strictEqual(c.status, 200)
        assertError(yield* listTools(bId), 404, "E_NOT_FOUND")
        assert.strictEqual((yield* listTools(a.headers.get("mcp-session-id")!)).status, 200)
        const ended = yield* call("DELETE", "/mcp", {
          headers: bearer(t.key, { "mcp-session-id": c.headers.get("mcp-session-id")! })
        })
        assert.strictEqual(ended.status, 200)
      }))

    it.effect("a Streamable HTTP session left idle is closed; a used one, and one with an open stream, live on", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const t = yield* tenant()
        const open = () =>
          Effect.map(
            call("POST", "/mcp", { headers: bearer(t.key, accept), body: initialize }),
            (res) => res.headers.get("mcp-session-id")!
          )
        const ping = (session: string) =>
          call("POST", "/mcp", {
            headers: bearer(t.key, { ...accept, "mcp-session-id": session }),
            body: { jsonrpc: "2.0", method: "notifications/initialized" }
          })
        const idle = yield* open()
        const busy = yield* open()
        const listening = yield* open()
        const abort = new AbortController()
        const stream = yield* Effect.acquireRelease(
          Effect.promise(() =>
            fetch(`${url}/mcp`, {
              headers: bearer(t.key, { accept: "text/event-stream", "mcp-session-id": listening }),
              signal: abort.signal
            })
          ),
          () => Effect.sync(() => abort.abort())
        )
        assert.strictEqual(stream.status, 200)
        for (let i = 0; i < 6; i++) {
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 300)))
          assert.strictEqual((yield* ping(busy)).status, 202)
        }
        assertError(yield* ping(idle), 404, "E_NOT_FOUND")
        assert.strictEqual((yield* ping(listening)).status, 202)
        // Its client gone, the listening session is idle too and goes.
        abort.abort()
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2000)))
        assertError(yield* ping(listening), 404, "E_NOT_FOUND")
      }))
  }
)
