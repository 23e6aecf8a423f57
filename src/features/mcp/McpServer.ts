import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { type Context, Effect } from "effect"
import type { Principal } from "../../api/Security.ts"
import type { ToolRunner } from "../../platform/tools/ToolRunner.ts"

/** The MCP protocol versions Herald speaks, newest first. */
export const protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/**
 * The SDK also accepts 2024-10-07; an initialize asking for a version outside
 * Herald's range is answered with the newest one, as the protocol says a
 * server answers a version it does not support.
 */
export const withinProtocolRange = (message: unknown): unknown => {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return message
  const m = message as { method?: unknown; params?: { protocolVersion?: unknown } }
  if (m.method !== "initialize" || typeof m.params !== "object" || m.params === null) return message
  if ((protocolVersions as ReadonlyArray<unknown>).includes(m.params.protocolVersion)) return message
  return { ...m, params: { ...m.params, protocolVersion: protocolVersions[0] } }
}

export const serverInfo = { name: "herald", title: "Herald", version: "1.0.0" } as const

export const instructions =
  "Herald is a managed AI marketing team. Every tool takes `customerId`: pass the id of the customer whose API key you connected with " +
  "(another customer's id is refused). Tools that create content respect the customer's autonomy settings: pieces may wait for approval."

/**
 * The SDK gives every Server its own Ajv instance (for elicitation, which
 * Herald never sends) unless one is passed: about 25 KiB of keyword tables per
 * session, most of a session's heap. One shared validator serves them all.
 */
const options = {
  capabilities: { tools: { listChanged: false } },
  instructions,
  jsonSchemaValidator: new AjvJsonSchemaValidator()
}

/** The `tools/list` answer, built once per runner rather than once per session. */
const listedByRunner = new WeakMap<object, ReadonlyArray<Record<string, unknown>>>()
const listed = (runner: ToolRunner["Service"]) => {
  let tools = listedByRunner.get(runner)
  if (tools === undefined) {
    tools = runner.tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations
    }))
    listedByRunner.set(runner, tools)
  }
  return tools as Array<{ name: string; inputSchema: { type: "object"; [key: string]: unknown } }>
}

/**
 * One SDK server for one session, bound to the principal that opened it. The
 * low-level Server takes the registry's JSON Schemas as they are; arguments
 * are decoded by the runner with the same Effect schemas, and every refusal
 * is a tool result with `isError`, never another customer's data.
 */
export const makeMcpServer = (
  runner: ToolRunner["Service"],
  principal: Principal,
  context: Context.Context<never>,
  sessionId: () => string | undefined
): Server => {
  const server = new Server(serverInfo, options)
  const run = Effect.runPromiseWith(context)
  const tools = listed(runner)

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    run(
      runner.call(request.params.name, request.params.arguments ?? {}, {
        principal,
        requestId: `mcp_${sessionId() ?? "stateless"}_${String(extra.requestId)}`,
        via: "mcp"
      }).pipe(
        Effect.match({
          onFailure: (failure): CallToolResult => ({
            isError: true,
            content: [{ type: "text", text: `${failure.code}: ${failure.message}` }],
            structuredContent: { error: failure.message, code: failure.code }
          }),
          onSuccess: (output): CallToolResult => ({
            content: [{ type: "text", text: `${output.summary}\n\n${JSON.stringify(output.data, null, 2)}` }],
            structuredContent: output.data
          })
        })
      ),
      // A cancelled request (or a closed session) interrupts the tool.
      { signal: extra.signal }
    ))
  return server
}
