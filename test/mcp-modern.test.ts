import { assert, layer } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { httpClient } from "./support/mcp-clients.ts"
import { assertError, bearer, tenant } from "./support/processes.ts"

const modern = "2026-07-28"

/** The official v2 client over Streamable HTTP (Bearer header), negotiating as `mode` says; closed with the scope. */
const v2Client = (url: string, key: string, mode: "auto" | { pin: string }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "test-v2", version: "1.0.0" }, { versionNegotiation: { mode } })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } }
        })
      )
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const envelope = (extra: Record<string, unknown> = {}) => ({
  _meta: {
    "io.modelcontextprotocol/protocolVersion": modern,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }
  },
  ...extra
})

/** A raw request of the stateless revision, with its headers. */
const rpc = (key: string, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call("POST", "/mcp", {
    headers: bearer(key, {
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": modern,
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
      ...headers
    }),
    body: { jsonrpc: "2.0", id: 1, method, params: envelope(params) }
  })

const textOf = (result: any): string => result.content.map((c: any) => c.text).join("\n")

layer(testApp(), { timeout: 60_000 })("MCP 2026-07-28, stateless", (it) => {
  it.effect("the v2 client pinned to 2026-07-28 discovers, lists the tools and runs one with no session", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant()
      const client = yield* v2Client(url, t.key, { pin: modern })
      assert.strictEqual(client.getProtocolEra(), "modern")
      assert.strictEqual(client.getNegotiatedProtocolVersion(), modern)
      const listed = yield* Effect.promise(() => client.listTools())
      assert.strictEqual(listed.tools.length, 12)
      assert.includeMembers(
        listed.tools.find((tool) => tool.name === "run_content_creation")!.inputSchema.required as Array<string>,
        ["customerId", "topic"]
      )
      const created: any = yield* Effect.promise(() =>
        client.callTool({
          name: "run_content_creation",
          arguments: { customerId: t.id, type: "blog", topic: "Stateless servers" }
        })
      )
      assert.notStrictEqual(created.isError, true, textOf(created))
      const piece = yield* call("GET", `/api/content/${t.id}/${created.structuredContent.id}`, {
        headers: bearer(t.key)
      })
      assert.strictEqual(piece.json.title, "Stateless servers")
      // Refusals: invalid arguments are a tool error in REST's wording; an unknown tool is -32602.
      const invalid: any = yield* Effect.promise(() =>
        client.callTool({ name: "analyze_brand_url", arguments: { customerId: t.id } })
      )
      assert.isTrue(invalid.isError)
      assert.strictEqual(invalid.structuredContent.error, "Invalid arguments.url: is required")
      const foreign: any = yield* Effect.promise(() =>
        client.callTool({ name: "query_ga4", arguments: { customerId: "00000000-0000-4000-8000-000000000000" } })
      )
      assert.isTrue(foreign.isError)
      assert.strictEqual(foreign.structuredContent.code, "E_FORBIDDEN")
      const unknown = yield* Effect.flip(
        Effect.tryPromise(() => client.callTool({ name: "run_everything", arguments: { customerId: t.id } }))
      )
      assert.strictEqual((unknown.cause as any).code, -32602)
      assert.include((unknown.cause as any).message, "Unknown tool: run_everything")
    }))

  it.effect("the v2 client in auto mode gets 2026-07-28; the v1 client still opens a 2025-11-25 session", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const t = yield* tenant()
      const auto = yield* v2Client(url, t.key, "auto")
      assert.strictEqual(auto.getProtocolEra(), "modern")
      assert.strictEqual((yield* Effect.promise(() => auto.listTools())).tools.length, 12)
      const v1 = yield* httpClient(url, t.key)
      assert.isString((v1.transport as { sessionId?: string }).sessionId)
      assert.strictEqual((yield* Effect.promise(() => v1.listTools())).tools.length, 12)
    }))

  it.effect("raw: server/discover names the revision; no session id; the headers are checked against the body", () =>
    Effect.gen(function*() {
      const t = yield* tenant()
      const discover = yield* rpc(t.key, "server/discover", {})
      assert.strictEqual(discover.status, 200, discover.text)
      assert.isNull(discover.headers.get("mcp-session-id"))
      const body = JSON.parse(/data: (.*)/.exec(discover.text)?.[1] ?? discover.text)
      assert.include(body.result.supportedVersions, modern)
      assert.isDefined(body.result.capabilities.tools)
      assert.strictEqual(body.result._meta["io.modelcontextprotocol/serverInfo"].name, "herald")
      // Mcp-Method naming another method than the body's is refused by the revision's own rules.
      const mismatch = yield* rpc(t.key, "tools/list", {}, { "mcp-method": "tools/call" })
      assert.strictEqual(mismatch.status, 400, mismatch.text)
      assert.strictEqual(mismatch.json.error.code, -32020)
      assert.include(mismatch.json.error.message, "Mcp-Method")
      // ping is gone in this revision: method not found, as the revision answers it.
      const ping = yield* rpc(t.key, "ping", {})
      assert.strictEqual(ping.json.error.code, -32601, ping.text)
      // A revision Herald does not speak is refused with the versions it does.
      const future = yield* call("POST", "/mcp", {
        headers: bearer(t.key, {
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2099-01-01",
          "mcp-method": "tools/list"
        }),
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
          params: { _meta: { ...envelope()._meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }
        }
      })
      assert.strictEqual(future.status, 400, future.text)
      assert.include(JSON.stringify(future.json.error), modern)
      // Authentication, the limit and the Origin rule apply as on every MCP request.
      assertError(
        yield* call("POST", "/mcp", { body: { jsonrpc: "2.0", id: 1, method: "server/discover", params: envelope() } }),
        401,
        "E_MCP_TOKEN_REQUIRED"
      )
      assertError(yield* rpc(t.key, "server/discover", {}, { origin: "http://evil.example" }), 403, "E_FORBIDDEN")
      assert.match(discover.headers.get("ratelimit") ?? "", /^"mcp";r=\d+/)
    }))
})
