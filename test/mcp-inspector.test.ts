import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { inspect } from "../scripts/support/inspector.ts"
import { rateLimitDefaults } from "../src/Config.ts"
import { allToolDescriptors } from "../src/platform/tools/ToolRunner.ts"
import { TestServer, testApp } from "./support/harness.ts"
import { tenant } from "./support/processes.ts"

/** How the Inspector reaches Herald: Streamable HTTP in each protocol era it offers, and the legacy SSE pair. */
const transports = [
  {
    name: "Streamable HTTP, session revisions",
    path: "/mcp",
    args: ["--transport", "http", "--protocol-era", "legacy"],
    // The initialize POST's refusal: the Inspector quotes Herald's 401 body.
    refusal: "Error POSTing to endpoint: {\"error\":\"Invalid API key\",\"code\":\"E_INVALID_API_KEY\""
  },
  {
    name: "Streamable HTTP, 2026-07-28 stateless",
    path: "/mcp",
    args: ["--transport", "http", "--protocol-era", "modern"],
    refusal: "Version negotiation failed: the server requires authorization (HTTP 401)"
  },
  { name: "HTTP+SSE (legacy)", path: "/mcp/sse", args: ["--transport", "sse"], refusal: "SSE error: Non-200 status code (401)" }
] as const

const run = (url: string, args: ReadonlyArray<string>) => Effect.promise(() => inspect(url, args))

// Every Inspector run opens a session (initialize, initialized, then the request): a few POSTs each.
layer(testApp({ rateLimits: { ...rateLimitDefaults, mcp: 10_000 } }), { timeout: 300_000 })("the MCP Inspector CLI against Herald", (it) => {
  for (const transport of transports) {
    it.effect(`${transport.name}: lists every tool with its schema, runs a read tool, shows bad arguments as a tool error`, () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const t = yield* tenant()
        const endpoint = `${url}${transport.path}`
        const auth = ["--header", `Authorization: Bearer ${t.key}`]

        const listed = yield* run(endpoint, [...transport.args, ...auth, "--method", "tools/list"])
        assert.strictEqual(listed.code, 0, listed.stderr)
        const tools: Array<any> = listed.output.result.tools
        assert.deepStrictEqual(
          tools.map((tool) => ({ name: tool.name, title: tool.title, inputSchema: tool.inputSchema, annotations: tool.annotations })),
          allToolDescriptors().map((tool) => ({ name: tool.name, title: tool.title, inputSchema: tool.inputSchema, annotations: tool.annotations }))
        )

        const read = yield* run(endpoint, [
          ...transport.args, ...auth, "--method", "tools/call", "--tool-name", "query_ga4", "--tool-arg", `customerId=${t.id}`, "period=last_30_days"
        ])
        assert.strictEqual(read.code, 0, read.stderr)
        assert.notStrictEqual(read.output.result.isError, true, read.stdout)
        assert.strictEqual(read.output.result.structuredContent.source, "herald")
        assert.strictEqual(read.output.result.structuredContent.period, "last_30_days")
        assert.include(read.output.result.content[0].text, "not website analytics")
        if (transport.name.includes("2026-07-28")) {
          // Only the stateless revision's results name the server in their `_meta`: the Inspector did speak it.
          assert.strictEqual(read.output.result._meta["io.modelcontextprotocol/serverInfo"].name, "herald")
        } else {
          assert.isUndefined(read.output.result._meta)
        }

        // Invalid arguments: a tool result flagged isError, in REST's wording; the Inspector exits 5 (tool_is_error).
        const invalid = yield* run(endpoint, [
          ...transport.args, ...auth, "--method", "tools/call", "--tool-name", "analyze_brand_url", "--tool-arg", `customerId=${t.id}`
        ])
        assert.strictEqual(invalid.code, 5, invalid.stderr)
        assert.isTrue(invalid.output.result.isError)
        assert.deepStrictEqual(invalid.output.result.structuredContent, {
          error: "Invalid arguments.url: is required",
          code: "E_VALIDATION",
          details: [{ path: "arguments.url", message: "is required" }]
        })
        assert.strictEqual(invalid.output.result.content[0].text, "E_VALIDATION: Invalid arguments.url: is required")
        assert.strictEqual(invalid.failure.error.code, "tool_is_error")

        // A tool of another customer: refused as a tool error too.
        const foreign = yield* run(endpoint, [
          ...transport.args, ...auth, "--method", "tools/call", "--tool-name", "query_ga4", "--tool-arg", "customerId=00000000-0000-4000-8000-000000000000"
        ])
        assert.strictEqual(foreign.code, 5, foreign.stderr)
        assert.strictEqual(foreign.output.result.structuredContent.code, "E_FORBIDDEN")
      }))

    it.effect(`${transport.name}: a wrong key is answered 401 and the Inspector reports that it needs authentication`, () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const refused = yield* run(`${url}${transport.path}`, [
          ...transport.args, "--header", "Authorization: Bearer svc_live_0000000000000000000000000000000000000000000000000000000000000000",
          "--method", "tools/list"
        ])
        assert.strictEqual(refused.code, 3, refused.stderr)
        assert.isUndefined(refused.output)
        assert.strictEqual(refused.failure.error.code, "auth_required")
        assert.include(refused.failure.error.message, transport.refusal)
      }))
  }
})
