import { createMcpHandler, isLegacyRequest, ProtocolError, Server } from "@modelcontextprotocol/server"
import { type Context, Effect } from "effect"
import type { Principal } from "../../api/Security.ts"
import type { ToolRunner } from "../../platform/tools/ToolRunner.ts"
import { answerToolCall, instructions, listedTools, serverInfo, streamableVersions } from "./McpServer.ts"

/** The stateless revision: no handshake and no session; each request names its version and capabilities. */
export const modernVersion = streamableVersions[0]

/**
 * Whether a POST to /mcp speaks the stateless revision: it carries the
 * per-request `_meta` envelope (or a header naming that revision). The SDK's
 * own classification, so routing never disagrees with the handler; anything
 * else (an `initialize`, a session's message) goes to the sessions.
 */
export const isModernRequest = (headers: Record<string, string | undefined>, body: unknown): Promise<boolean> => {
  const init = new Headers()
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) init.set(name, value)
  return isLegacyRequest(new Request("http://mcp.invalid/mcp", { method: "POST", headers: init }), body).then((
    legacy
  ) => !legacy)
}

/**
 * The 2026-07-28 revision on the SDK's v2 handler: a fresh low-level server
 * per request (the SDK's model), bound to the caller's principal through
 * `authInfo`, so any instance answers any request. `server/discover`, the
 * envelope, the MCP-Protocol-Version / Mcp-Method / Mcp-Name header checks
 * and the revision's error answers are the SDK's; the tools and their
 * refusals are the same code as the older revisions'.
 */
export const makeModernHandler = (
  runner: ToolRunner["Service"],
  context: Context.Context<never>,
  keepAliveMs: number
) => {
  const run = Effect.runPromiseWith(context)
  const tools = listedTools(runner)
  const handler = createMcpHandler((ctx) => {
    const principal = ctx.authInfo?.extra?.principal as Principal | undefined
    const server = new Server(serverInfo, { capabilities: { tools: { listChanged: false } }, instructions })
    server.setRequestHandler("tools/list", () => ({ tools: tools as never }))
    server.setRequestHandler("tools/call", async (request, call) => {
      // Authentication ran before the handler: a request without a principal never gets here.
      if (principal === undefined) throw new ProtocolError(-32603, "Not authenticated")
      const answer = await answerToolCall(runner, principal, run, {
        name: request.params.name,
        arguments: request.params.arguments,
        requestId: `mcp_modern_${String(call.mcpReq.id)}`,
        signal: call.mcpReq.signal,
        version: modernVersion
      })
      if (answer._tag === "Error") throw new ProtocolError(answer.code, answer.message, answer.data)
      return answer.result as never
    })
    return server
  }, { legacy: "reject", keepAliveMs })

  /** Serves one request of an authenticated principal; the body was read (and bounded) by the route. */
  const serve = (request: Request, body: unknown, principal: Principal): Promise<Response> =>
    handler.fetch(request, {
      parsedBody: body,
      authInfo: { token: "", clientId: principal.keyId, scopes: [], extra: { principal } }
    })

  return { serve, close: handler.close }
}
