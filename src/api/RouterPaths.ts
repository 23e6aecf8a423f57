/**
 * OpenAPI path items of the routes served outside the HttpApi (the raw body
 * of an orchestrator call is what its signature covers; the MCP transports
 * speak JSON-RPC and event streams). Their error answers are the one Error
 * shape, and the document adds the common response headers to them as to
 * every other operation.
 */

type Json = Record<string, any>

const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
const error = (codes: string, description?: string): Json => ({
  description: `Error: ${codes}${description === undefined ? "" : `. ${description}`}`,
  content: errorContent
})

const signatureHeader: Json = {
  name: "X-Orchestrator-Signature",
  in: "header",
  required: true,
  description: "`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" with ORCHESTRATOR_SIGNING_KEY>`; " +
    "a GET signs the empty body. Older than 300 s, missing or wrong: 401 E_SIGNATURE_INVALID.",
  schema: { type: "string", maxLength: 512 }
}

const registrations: Json = {
  type: "object",
  description: "The registered workflows with their cron schedules, and the runners",
  additionalProperties: true
}

const orchestrator = (method: "get" | "put" | "post"): Json => ({
  tags: ["orchestrator"],
  operationId: `orchestrator.${method}`,
  summary: {
    get: "List the registered workflows, schedules and runners",
    put: "Re-sync the cron registrations from the workflow table",
    post: "Start a workflow run"
  }[method],
  description: "Called by the workflow-orchestration platform, signed with ORCHESTRATOR_SIGNING_KEY (no API key).",
  security: [],
  parameters: [signatureHeader],
  ...(method === "post"
    ? {
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["workflow", "customerId"],
              additionalProperties: false,
              properties: {
                workflow: { type: "string", minLength: 1, maxLength: 100, description: "A workflow id (`weekly-content-plan`)" },
                customerId: { type: "string", format: "uuid" },
                input: { type: "object", additionalProperties: true, description: "The workflow's options" }
              }
            }
          }
        }
      }
    }
    : {}),
  responses: {
    "200": {
      description: method === "post" ? "The run started" : method === "put" ? "Re-synced: how many, and the registrations" : "The registrations",
      content: {
        "application/json": {
          schema: method === "post"
            ? { type: "object", required: ["runId"], properties: { runId: { type: "string" } } }
            : method === "put"
            ? { allOf: [registrations, { type: "object", properties: { resynced: { type: "integer", minimum: 0 } } }] }
            : registrations
        }
      }
    },
    ...(method === "post"
      ? {
        "400": error("E_VALIDATION, E_MALFORMED_JSON"),
        "404": error("E_NOT_FOUND", "Unknown workflow or customer"),
        // The signed raw body is read whatever its media type, so there is no 415 here.
        "413": error("E_PAYLOAD_TOO_LARGE")
      }
      : {}),
    "401": error("E_SIGNATURE_INVALID")
  }
})

const jsonRpc: Json = {
  type: "object",
  description: "A JSON-RPC 2.0 message (or, on 2025-03-26, a batch of them) of the MCP revision the client speaks",
  required: ["jsonrpc"],
  properties: { jsonrpc: { type: "string", enum: ["2.0"] } },
  additionalProperties: true
}

const eventStream = (description: string): Json => ({ "text/event-stream": { schema: { type: "string", description } } })

const tokenQuery: Json = {
  name: "token",
  in: "query",
  required: false,
  description: "The API key, for clients that cannot set an Authorization header",
  schema: { type: "string", maxLength: 256 }
}

/** Fresh objects each time: the document adds headers to each operation's own responses. */
const authFailures = (): Json => ({
  "401": error("E_MCP_TOKEN_REQUIRED, E_INVALID_API_KEY, E_ACCOUNT_INACTIVE"),
  "403": error("E_FORBIDDEN", "An Origin other than the service's own or MCP_ALLOWED_ORIGINS, or a session opened by another key"),
  "429": error("E_RATE_LIMITED", "Over the MCP limit, or every session the customer may hold is in use")
})

const bodyFailures = (): Json => ({
  "413": error("E_PAYLOAD_TOO_LARGE"),
  "415": error("E_UNSUPPORTED_MEDIA_TYPE")
})

const streamableDescription = "MCP Streamable HTTP, the revision chosen by what the client sends. 2026-07-28 is stateless: every POST " +
  "carries its version and capabilities in `params._meta` with the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, " +
  "`server/discover` negotiates, there is no session, and refusals of that revision (unsupported version, headers that disagree " +
  "with the body) are JSON-RPC error bodies with their HTTP status. A client speaking 2024-11-05 to 2025-11-25 opens a session " +
  "with `initialize` (answered with `Mcp-Session-Id`) and sends that header on every later request; the session is closed by " +
  "DELETE or after MCP_SESSION_IDLE_MS with no request and no open stream. Authenticated by `Authorization: Bearer <API key>` or `?token=`."

const sessionHeader = (required: boolean): Json => ({
  name: "Mcp-Session-Id",
  in: "header",
  required,
  description: "The session `initialize` answered",
  schema: { type: "string", maxLength: 128 }
})

const streamable = (method: "get" | "post" | "delete"): Json => ({
  tags: ["mcp"],
  operationId: `mcp.${method}`,
  summary: { get: "Open the session's standing event stream", post: "Send JSON-RPC messages", delete: "End the session" }[method],
  description: streamableDescription,
  security: [{ bearer: [] }, { mcpToken: [] }],
  parameters: [tokenQuery, sessionHeader(method !== "post")],
  ...(method === "post"
    ? { requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/JsonRpcMessage" } } } } }
    : {}),
  responses: {
    "200": {
      description: {
        get: "Server messages as events; a comment opens the stream at once, keep-alive comments every MCP_KEEPALIVE_MS",
        post: "The replies, as JSON or as an event stream (Accept decides)",
        delete: "The session is ended"
      }[method],
      ...(method === "delete"
        ? {}
        : {
          content: {
            ...(method === "post" ? { "application/json": { schema: { $ref: "#/components/schemas/JsonRpcMessage" } } } : {}),
            ...eventStream("`event: message` frames, each data a JSON-RPC message")
          }
        })
    },
    ...(method === "post" ? { "202": { description: "Notifications and responses only: accepted, nothing to answer" } } : {}),
    "400": error(method === "post" ? "E_VALIDATION, E_MALFORMED_JSON" : "E_VALIDATION", "Not a JSON-RPC message, or no session header where one is needed"),
    ...authFailures(),
    "404": error("E_NOT_FOUND", "The session is unknown or was closed: start a new one with initialize"),
    ...(method === "delete" ? {} : { "406": error("E_NOT_ACCEPTABLE", "Accept must name application/json and text/event-stream") }),
    ...(method === "post" ? bodyFailures() : {})
  }
})

/** The path items, keyed by path. */
export const routerPaths = (): Json => ({
  "/api/orchestrator": { get: orchestrator("get"), put: orchestrator("put"), post: orchestrator("post") },
  "/mcp": { get: streamable("get"), post: streamable("post"), delete: streamable("delete") },
  "/mcp/sse": {
    get: {
      tags: ["mcp"],
      operationId: "mcp.sse",
      summary: "Open a legacy HTTP+SSE MCP session (2024-11-05 transport)",
      description: "The first event is `endpoint` with `/mcp/message?sessionId=<id>`, where the client POSTs its messages; replies come " +
        "as `event: message` frames. A comment opens the stream at once; keep-alive comments every MCP_KEEPALIVE_MS. The session ends " +
        "with the stream. Opening it does not count against the MCP limit.",
      security: [{ mcpToken: [] }],
      parameters: [{ ...tokenQuery, required: true }],
      responses: {
        "200": { description: "The session's event stream", content: eventStream("`endpoint`, then `message` events") },
        ...authFailures()
      }
    }
  },
  "/mcp/message": {
    post: {
      tags: ["mcp"],
      operationId: "mcp.message",
      summary: "Send a JSON-RPC message to a legacy SSE session",
      description: "Authorised by the session (bound to the key that opened it); a key given here must be that key. " +
        "The reply goes out on the session's stream. Every POST counts against the MCP limit.",
      security: [{}, { mcpToken: [] }],
      parameters: [
        { name: "sessionId", in: "query", required: true, description: "From the `endpoint` event", schema: { type: "string", maxLength: 128 } },
        tokenQuery
      ],
      requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/JsonRpcMessage" } } } },
      responses: {
        "202": { description: "Accepted: the reply follows on the stream", content: { "text/plain": { schema: { type: "string", enum: ["Accepted"] } } } },
        "400": error("E_SESSION_NOT_FOUND, E_VALIDATION, E_MALFORMED_JSON", "`Session not found — reconnect to /mcp/sse` for an unknown session"),
        "401": error("E_INVALID_API_KEY, E_ACCOUNT_INACTIVE"),
        "403": authFailures()["403"],
        "429": error("E_RATE_LIMITED"),
        ...bodyFailures()
      }
    }
  }
})

export const routerSchemas: Json = { JsonRpcMessage: jsonRpc }

export const routerSecuritySchemes: Json = {
  mcpToken: { type: "apiKey", in: "query", name: "token", description: "The API key in the `token` query parameter (MCP clients)" }
}

export const routerTags: ReadonlyArray<Json> = [
  { name: "orchestrator", description: "Calls of the workflow-orchestration platform, signed with its shared key" },
  { name: "mcp", description: "The MCP server: Streamable HTTP at /mcp and the legacy HTTP+SSE pair; tools are listed at /.well-known/mcp/server-card.json" }
]
