import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inspect, inspectorArgs, inspectorTransports, launcher, unknownKey } from "../scripts/support/inspector.ts"
import { rateLimitDefaults } from "../src/Config.ts"
import { allToolDescriptors } from "../src/platform/tools/ToolRunner.ts"
import { eventually } from "./support/eventually.ts"
import { freePort, send, testApp, TestServer } from "./support/harness.ts"
import { tenant } from "./support/processes.ts"

/** How the Inspector reaches Herald: Streamable HTTP in each protocol era it offers, and the legacy SSE pair. */
const [http, httpStateless, sse] = inspectorTransports
const transports = [
  {
    ...http,
    name: "Streamable HTTP, session revisions",
    // The initialize POST's refusal: the Inspector quotes Herald's 401 body.
    refusal: "Error POSTing to endpoint: {\"error\":\"Invalid API key\",\"code\":\"E_INVALID_API_KEY\""
  },
  {
    ...httpStateless,
    name: "Streamable HTTP, 2026-07-28 stateless",
    refusal: "Version negotiation failed: the server requires authorization (HTTP 401)"
  },
  {
    ...sse,
    name: "HTTP+SSE (legacy)",
    refusal: "SSE error: Non-200 status code (401)"
  }
] as const

const run = (url: string, args: ReadonlyArray<string>) => Effect.promise(() => inspect(url, args))

// Every Inspector run opens a session (initialize, initialized, then the request): a few POSTs each.
layer(testApp({ rateLimits: { ...rateLimitDefaults, mcp: 10_000 } }), { timeout: 300_000 })(
  "the MCP Inspector CLI against Herald",
  (it) => {
    for (const transport of transports) {
      it.effect(`${transport.name}: lists every tool with its schema, runs a read tool, shows bad arguments as a tool error`, () =>
        Effect.gen(function*() {
          const { url } = yield* TestServer
          const t = yield* tenant()
          const endpoint = `${url}${transport.path}`
          const args = (method: Parameters<typeof inspectorArgs>[2], extra?: ReadonlyArray<string>) =>
            inspectorArgs(transport, t.key, method, extra)

          // --strict: a tool schema another client could not use would end the run with exit 6.
          const listed = yield* run(endpoint, args("tools/list", ["--strict"]))
          assert.strictEqual(listed.code, 0, listed.stderr)
          const tools: Array<any> = listed.output.result.tools
          assert.deepStrictEqual(
            tools.map((tool) => ({
              name: tool.name,
              title: tool.title,
              inputSchema: tool.inputSchema,
              annotations: tool.annotations
            })),
            allToolDescriptors().map((tool) => ({
              name: tool.name,
              title: tool.title,
              inputSchema: tool.inputSchema,
              annotations: tool.annotations
            }))
          )

          const read = yield* run(
            endpoint,
            args({ tool: "query_ga4", args: [`customerId=${t.id}`, "period=last_30_days"] })
          )
          assert.strictEqual(read.code, 0, read.stderr)
          assert.notStrictEqual(read.output.result.isError, true, read.stdout)
          assert.strictEqual(read.output.result.structuredContent.source, "herald")
          assert.strictEqual(read.output.result.structuredContent.period, "last_30_days")
          assert.include(read.output.result.content[0].text, "not website analytics")
          if (transport.name.includes("2026-07-28")) {
            // Only the stateless revision's results name the server in their `_meta`.
            assert.strictEqual(read.output.result._meta["io.modelcontextprotocol/serverInfo"].name, "herald")
          }

          const initialized = yield* run(endpoint, args("initialize"))
          assert.strictEqual(initialized.code, 0, initialized.stderr)
          assert.strictEqual(
            initialized.output.result.protocolVersion,
            transport.name.includes("2026-07-28") ? "2026-07-28" : "2025-11-25"
          )
          assert.deepStrictEqual(initialized.output.result.capabilities, { tools: { listChanged: false } })
          assert.strictEqual(initialized.output.result.serverInfo.name, "herald")

          // Invalid arguments: a tool result flagged isError, in REST's wording; the Inspector exits 5 (tool_is_error).
          const invalid = yield* run(endpoint, args({ tool: "analyze_brand_url", args: [`customerId=${t.id}`] }))
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
          const foreign = yield* run(
            endpoint,
            args({ tool: "query_ga4", args: ["customerId=00000000-0000-4000-8000-000000000000"] })
          )
          assert.strictEqual(foreign.code, 5, foreign.stderr)
          assert.strictEqual(foreign.output.result.structuredContent.code, "E_FORBIDDEN")
        }))

      it.effect(`${transport.name}: a wrong key is answered 401 and the Inspector reports that it needs authentication`, () =>
        Effect.gen(function*() {
          const { url } = yield* TestServer
          const refused = yield* run(`${url}${transport.path}`, inspectorArgs(transport, unknownKey, "tools/list"))
          assert.strictEqual(refused.code, 3, refused.stderr)
          assert.isUndefined(refused.output)
          assert.strictEqual(refused.failure.error.code, "auth_required")
          assert.include(refused.failure.error.message, transport.refusal)
        }))
    }
  }
)

layer(testApp({ rateLimits: { ...rateLimitDefaults, mcp: 10_000 } }), { timeout: 300_000 })(
  "the MCP Inspector CLI signing in to Herald",
  (it) => {
    it.effect("with no key it discovers Herald's authorization server, registers, and after consent lists the tools with its token", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const t = yield* tenant()
        const callbackPort = yield* Effect.promise(freePort)
        const home = mkdtempSync(join(tmpdir(), "herald-inspector-oauth-"))
        // The Inspector prints the authorization URL and waits on its loopback callback; `open` is pointed at a no-op.
        const child = spawn(process.execPath, [
          launcher,
          "--cli",
          `${url}/mcp`,
          "--transport",
          "http",
          "--method",
          "tools/list",
          "--format",
          "json",
          "--callback-url",
          `http://127.0.0.1:${callbackPort}/oauth/callback`
        ], {
          env: {
            ...process.env,
            HOME: home,
            MCP_AUTO_OPEN_ENABLED: "true",
            MCP_INSPECTOR_SECRET_STORE: "memory",
            BROWSER: "true",
            DISPLAY: "",
            WAYLAND_DISPLAY: ""
          },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk) => (stdout += String(chunk)))
        child.stderr.on("data", (chunk) => (stderr += String(chunk)))
        const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
        yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))

        const authorizeUrl = yield* eventually(
          Effect.sync(() => {
            const found = /Please navigate to: (\S+)/.exec(stderr)
            return found === null ? undefined : new URL(found[1])
          }),
          60_000
        )
        assert.strictEqual(authorizeUrl.origin + authorizeUrl.pathname, `${url}/oauth/authorize`)
        assert.strictEqual(authorizeUrl.searchParams.get("code_challenge_method"), "S256")
        // Registered dynamically: a client id Herald issued.
        assert.match(authorizeUrl.searchParams.get("client_id")!, /^hcl_/)

        // The person approves on the consent page with their key, giving the Inspector the viewer role.
        const approved = yield* Effect.promise(() =>
          send(url, "POST", "/oauth/authorize", {
            headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
            body: new URLSearchParams({
              ...Object.fromEntries(authorizeUrl.searchParams),
              apiKey: t.key,
              role: "viewer",
              decision: "approve"
            }).toString(),
            raw: true
          })
        )
        assert.strictEqual(approved.status, 303, approved.text)
        const callback = new URL(approved.headers.get("location")!)
        assert.strictEqual(callback.origin, `http://127.0.0.1:${callbackPort}`)
        assert.strictEqual(callback.searchParams.get("iss"), url)
        // The browser follows the redirect to the Inspector's listener, which exchanges the code and goes on.
        yield* Effect.promise(() => fetch(callback).then((res) => res.text()))

        const code = yield* Effect.promise(() => exited)
        assert.strictEqual(code, 0, stderr)
        const tools: Array<any> = JSON.parse(stdout.trim().split("\n").pop()!).result.tools
        assert.deepStrictEqual(tools.map((tool) => tool.name), allToolDescriptors().map((tool) => tool.name))
      }))
  }
)

// Each Inspector run over the session revisions leaves its session open (it never sends DELETE): a customer
// who runs it more often than the session cap must still be served, the least recently used idle session
// making room, long before the idle sweep (two minutes) would.
layer(testApp({ rateLimits: { ...rateLimitDefaults, mcp: 10_000 }, mcpMaxSessionsPerCustomer: 2 }), {
  timeout: 300_000
})(
  "the MCP Inspector CLI run again and again",
  (it) => {
    it.effect("never meets a full session table: abandoned sessions make room", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const t = yield* tenant()
        for (let i = 0; i < 4; i++) {
          const listed = yield* run(`${url}/mcp`, inspectorArgs(http, t.key, "tools/list"))
          assert.strictEqual(listed.code, 0, `run ${i + 1}: ${listed.stderr}`)
          assert.strictEqual(listed.output.result.tools.length, allToolDescriptors().length)
        }
      }))
  }
)
