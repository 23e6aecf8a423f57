import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import { type Context, Effect } from "effect"
import type { Principal } from "../../api/Security.ts"
import type { ToolFailure } from "../../platform/tools/Handler.ts"
import type { ToolRunner } from "../../platform/tools/ToolRunner.ts"

/** The MCP protocol versions Herald's sessions speak (the handshake revisions), newest first. */
export const protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/** Every revision /mcp serves: the stateless one, then the session revisions. */
export const streamableVersions = ["2026-07-28", ...protocolVersions] as const

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
 * The version an initialize request settles on: the one asked for when Herald
 * speaks it, otherwise the newest (as `withinProtocolRange` rewrites it);
 * undefined for any other message.
 */
export const negotiatedVersion = (message: unknown): string | undefined => {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined
  const m = message as { method?: unknown; params?: { protocolVersion?: unknown } }
  if (m.method !== "initialize" || typeof m.params !== "object" || m.params === null) return undefined
  const asked = m.params.protocolVersion
  return (protocolVersions as ReadonlyArray<unknown>).includes(asked) ? asked as string : protocolVersions[0]
}

/**
 * Revisions up to 2025-06-18 list invalid arguments among protocol errors;
 * from 2025-11-25 on they are tool execution errors, so that a model can
 * read the message and correct its call.
 */
export const argumentsAreProtocolErrors = (version: string): boolean => version < "2025-11-25"

/** `resource_link` content came with 2025-06-18: an older client would not know the item. */
export const linksAllowed = (version: string): boolean => version >= "2025-06-18"

/**
 * A JSON-RPC error the SDK answers as it is: its `code`, `message` and
 * `data` (the SDK's own McpError prefixes its message with "MCP error <code>:").
 */
class RpcError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }
}

const failureText = (failure: ToolFailure): string =>
  [`${failure.code}: ${failure.message}`, ...(failure.details ?? []).slice(1).map((d) => `${d.path}: ${d.message}`)]
    .join("\n")

/** A tool call's outcome on any revision: a result, or the JSON-RPC error to answer instead. */
export type ToolAnswer =
  | { readonly _tag: "Result"; readonly result: CallToolResult }
  | { readonly _tag: "Error"; readonly code: number; readonly message: string; readonly data?: unknown }

/**
 * Runs one `tools/call` for `principal`. An unknown tool is a JSON-RPC
 * invalid-params error on every revision; every other refusal is a tool
 * result with `isError` (invalid arguments as the revision says), never
 * another customer's data.
 */
export const answerToolCall = (
  runner: ToolRunner["Service"],
  principal: Principal,
  run: <A>(effect: Effect.Effect<A>, options: { readonly signal: AbortSignal }) => Promise<A>,
  call: {
    readonly name: string
    readonly arguments: unknown
    readonly requestId: string
    readonly signal: AbortSignal
    readonly version: string
  }
): Promise<ToolAnswer> => {
  if (!listed(runner).some((tool) => tool.name === call.name)) {
    return Promise.resolve({
      _tag: "Error",
      code: ErrorCode.InvalidParams,
      message: `Unknown tool: ${call.name.slice(0, 200)}`
    })
  }
  return run(
    runner.call(call.name, call.arguments ?? {}, { principal, requestId: call.requestId, via: "mcp" }).pipe(
      Effect.map((output): ToolAnswer => ({
        _tag: "Result",
        result: {
          content: [
            { type: "text", text: `${output.summary}\n\n${JSON.stringify(output.data, null, 2)}` },
            ...(linksAllowed(call.version)
              ? (output.links ?? []).map((link) => ({ type: "resource_link" as const, ...link }))
              : [])
          ],
          structuredContent: output.data
        }
      })),
      Effect.catch((failure) =>
        Effect.succeed<ToolAnswer>(
          failure.details !== undefined && argumentsAreProtocolErrors(call.version)
            ? {
              _tag: "Error",
              code: ErrorCode.InvalidParams,
              message: failure.message,
              data: { code: failure.code, details: failure.details }
            }
            : {
              _tag: "Result",
              result: {
                isError: true,
                content: [{ type: "text", text: failureText(failure) }],
                structuredContent: {
                  error: failure.message,
                  code: failure.code,
                  ...(failure.details === undefined ? {} : { details: failure.details })
                }
              }
            }
        )
      )
    ),
    // A cancelled request (or a closed session) interrupts the tool.
    { signal: call.signal }
  )
}

/** The tools as `tools/list` answers them, on every revision. */
export const listedTools = (runner: ToolRunner["Service"]) => listed(runner)

/**
 * One SDK server for one session of a revision up to 2025-11-25, bound to
 * the principal that opened it. The low-level Server takes the registry's
 * JSON Schemas as they are; arguments are decoded by the runner with the
 * same Effect schemas.
 */
export const makeMcpServer = (
  runner: ToolRunner["Service"],
  principal: Principal,
  context: Context.Context<never>,
  sessionId: () => string | undefined,
  protocolVersion: () => string
): Server => {
  const server = new Server(serverInfo, options)
  const run = Effect.runPromiseWith(context)
  const tools = listed(runner)

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const answer = await answerToolCall(runner, principal, run, {
      name: request.params.name,
      arguments: request.params.arguments,
      requestId: `mcp_${sessionId() ?? "stateless"}_${String(extra.requestId)}`,
      signal: extra.signal,
      version: protocolVersion()
    })
    // The SDK answers a thrown error with a numeric code as that JSON-RPC error.
    if (answer._tag === "Error") throw new RpcError(answer.code, answer.message, answer.data)
    return answer.result
  })
  return server
}
