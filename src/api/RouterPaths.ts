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
                workflow: {
                  type: "string",
                  minLength: 1,
                  maxLength: 100,
                  description: "A workflow id (`weekly-content-plan`)"
                },
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
      description: method === "post"
        ? "The run started"
        : method === "put"
        ? "Re-synced: how many, and the registrations"
        : "The registrations",
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

const eventStream = (description: string): Json => ({
  "text/event-stream": { schema: { type: "string", description } }
})

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
  "403": error(
    "E_FORBIDDEN",
    "An Origin other than the service's own or MCP_ALLOWED_ORIGINS, or a session opened by another key"
  ),
  "429": error("E_RATE_LIMITED", "Over the MCP limit, or every session the customer may hold is in use")
})

const bodyFailures = (): Json => ({
  "413": error("E_PAYLOAD_TOO_LARGE"),
  "415": error("E_UNSUPPORTED_MEDIA_TYPE")
})

const streamableDescription =
  "MCP Streamable HTTP, the revision chosen by what the client sends. 2026-07-28 is stateless: every POST " +
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
  summary: {
    get: "Open the session's standing event stream",
    post: "Send JSON-RPC messages",
    delete: "End the session"
  }[method],
  description: streamableDescription,
  security: [{ bearer: [] }, { mcpToken: [] }],
  parameters: [tokenQuery, sessionHeader(method !== "post")],
  ...(method === "post"
    ? {
      requestBody: {
        required: true,
        content: { "application/json": { schema: { $ref: "#/components/schemas/JsonRpcMessage" } } }
      }
    }
    : {}),
  responses: {
    "200": {
      description: {
        get:
          "Server messages as events; a comment opens the stream at once, keep-alive comments every MCP_KEEPALIVE_MS",
        post: "The replies, as JSON or as an event stream (Accept decides)",
        delete: "The session is ended"
      }[method],
      ...(method === "delete"
        ? {}
        : {
          content: {
            ...(method === "post"
              ? { "application/json": { schema: { $ref: "#/components/schemas/JsonRpcMessage" } } }
              : {}),
            ...eventStream("`event: message` frames, each data a JSON-RPC message")
          }
        })
    },
    ...(method === "post"
      ? { "202": { description: "Notifications and responses only: accepted, nothing to answer" } }
      : {}),
    "400": error(
      method === "post" ? "E_VALIDATION, E_MALFORMED_JSON" : "E_VALIDATION",
      "Not a JSON-RPC message, or no session header where one is needed"
    ),
    ...authFailures(),
    "404": error("E_NOT_FOUND", "The session is unknown or was closed: start a new one with initialize"),
    ...(method === "delete"
      ? {}
      : { "406": error("E_NOT_ACCEPTABLE", "Accept must name application/json and text/event-stream") }),
    ...(method === "post" ? bodyFailures() : {})
  }
})

const oauthErrorContent = { "application/json": { schema: { $ref: "#/components/schemas/OAuthError" } } }
const oauthError = (description: string): Json => ({ description, content: oauthErrorContent })
const formBody = (properties: Json, required: ReadonlyArray<string>): Json => ({
  required: true,
  content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties, required } } }
})
const text = (description: string, maxLength = 2000): Json => ({ type: "string", maxLength, description })

const authorizeParameters: ReadonlyArray<Json> = [
  ["response_type", "`code`", true],
  ["client_id", "A registered client id, or the https URL of the client's metadata document", true],
  ["redirect_uri", "One of the client's redirect URIs", true],
  ["code_challenge", "PKCE: BASE64URL(SHA-256(code_verifier))", true],
  ["code_challenge_method", "`S256` (plain is refused)", true],
  ["resource", "RFC 8707: the MCP endpoint, `<base url>/mcp`", true],
  ["state", "Returned as is", false],
  ["scope", "Informational: the role chosen on the consent page decides the token's scopes", false]
].map(([name, description, required]) => ({
  name,
  in: "query",
  required,
  description,
  schema: { type: "string", maxLength: 2000 }
}))

const oauth: Json = {
  "/.well-known/oauth-authorization-server": {
    get: {
      tags: ["oauth"],
      operationId: "oauth.metadata",
      summary: "Authorization-server metadata (RFC 8414)",
      description: "Herald is the authorization server of its MCP endpoints: endpoints, PKCE S256, public clients, " +
        "`client_id_metadata_document_supported` and `authorization_response_iss_parameter_supported`. CORS `*`.",
      responses: {
        "200": {
          description: "The metadata",
          content: { "application/json": { schema: { type: "object", additionalProperties: true } } }
        }
      }
    }
  },
  "/oauth/register": {
    post: {
      tags: ["oauth"],
      operationId: "oauth.register",
      summary: "Register a client (RFC 7591)",
      description:
        "For clients that cannot publish a client metadata document. Public clients only (`token_endpoint_auth_method: none`); " +
        "redirect URIs must be https, http on the loopback, or a native app's own scheme; at most 10. Body at most 16 KiB. " +
        "Every registration counts against the pre-auth limit of the address.",
      requestBody: {
        required: true,
        content: { "application/json": { schema: { type: "object", additionalProperties: true } } }
      },
      responses: {
        "201": {
          description: "The client, with its `client_id`",
          content: { "application/json": { schema: { type: "object", additionalProperties: true } } }
        },
        "400": oauthError("`invalid_client_metadata` or `invalid_redirect_uri`"),
        "413": oauthError("Body over 16 KiB"),
        "429": error("E_RATE_LIMITED")
      }
    }
  },
  "/oauth/authorize": {
    get: {
      tags: ["oauth"],
      operationId: "oauth.authorize",
      summary: "Authorization endpoint: the consent page",
      description:
        "An HTML page naming the client, where a person signs in with an API key (or is signed in to the dashboard), " +
        "picks the role the client gets (never above their own) and allows or denies. A request with an unknown client or a " +
        "redirect URI the client did not register is answered here; other faults go to the redirect URI as `error` with `state` and `iss`.",
      parameters: authorizeParameters,
      responses: {
        "200": { description: "The consent page", content: { "text/html": { schema: { type: "string" } } } },
        "303": { description: "To the redirect URI with `error`, `state` and `iss`" },
        "400": {
          description: "Unknown client or redirect URI, as a page",
          content: { "text/html": { schema: { type: "string" } } }
        }
      }
    },
    post: {
      tags: ["oauth"],
      operationId: "oauth.approve",
      summary: "Answer the consent page",
      description:
        "The page's form: the request's parameters, `decision` (approve or deny), `role`, and `apiKey` or the dashboard " +
        "session's `_csrf`. Approval redirects with a single-use `code` (60 s) plus `state` and `iss`; denial with `error=access_denied`.",
      requestBody: formBody({
        decision: { type: "string", enum: ["approve", "deny"] },
        role: { type: "string", enum: ["owner", "admin", "editor", "viewer"] },
        apiKey: text("An API key", 200)
      }, ["decision"]),
      responses: {
        "303": { description: "To the redirect URI with `code` (or `error`), `state` and `iss`" },
        "400": { description: "Invalid request, as a page", content: { "text/html": { schema: { type: "string" } } } },
        "401": {
          description: "Invalid API key: the page again",
          content: { "text/html": { schema: { type: "string" } } }
        },
        "403": {
          description: "A role above the signer's own, or a form from another site",
          content: { "text/html": { schema: { type: "string" } } }
        }
      }
    }
  },
  "/oauth/token": {
    post: {
      tags: ["oauth"],
      operationId: "oauth.token",
      summary: "Token endpoint",
      description:
        "`authorization_code` (with `code_verifier`, `redirect_uri`, `client_id`, optional `resource`) or `refresh_token`. " +
        "Access tokens last an hour and are bound to the customer, the member who approved, the role and the resource; refresh " +
        "tokens rotate on every use, and a spent one presented again revokes the grant. Failures count against the pre-auth limit.",
      requestBody: formBody({
        grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] },
        client_id: text("The client"),
        code: text("The authorization code", 200),
        code_verifier: text("PKCE verifier", 128),
        redirect_uri: text("The authorization request's redirect URI"),
        refresh_token: text("The refresh token", 200),
        resource: text("RFC 8707: the MCP endpoint")
      }, ["grant_type", "client_id"]),
      responses: {
        "200": {
          description:
            "`access_token`, `token_type` Bearer, `expires_in`, `refresh_token`, `scope` (the role's scopes)",
          content: { "application/json": { schema: { type: "object", additionalProperties: true } } }
        },
        "400": oauthError("`invalid_request`, `invalid_grant`, `invalid_target` or `unsupported_grant_type`"),
        "401": oauthError("`invalid_client`: no client_id"),
        "429": error("E_RATE_LIMITED")
      }
    }
  },
  "/oauth/revoke": {
    post: {
      tags: ["oauth"],
      operationId: "oauth.revoke",
      summary: "Revoke a token (RFC 7009)",
      description: "Either token of a grant ends the whole grant. An unknown token is answered the same way.",
      requestBody: formBody({
        token: text("An access or refresh token", 200),
        token_type_hint: text("Ignored", 20),
        client_id: text("The client")
      }, ["token"]),
      responses: {
        "200": { description: "Revoked (or never valid)" },
        "400": oauthError("`invalid_request`: no token"),
        "429": error("E_RATE_LIMITED")
      }
    }
  }
}

/** The path items, keyed by path. */
export const routerPaths = (): Json => ({
  ...structuredClone(oauth),
  "/api/orchestrator": { get: orchestrator("get"), put: orchestrator("put"), post: orchestrator("post") },
  "/mcp": { get: streamable("get"), post: streamable("post"), delete: streamable("delete") },
  "/mcp/sse": {
    get: {
      tags: ["mcp"],
      operationId: "mcp.sse",
      summary: "Open a legacy HTTP+SSE MCP session (2024-11-05 transport)",
      description:
        "The first event is `endpoint` with `/mcp/message?sessionId=<id>`, where the client POSTs its messages; replies come " +
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
        {
          name: "sessionId",
          in: "query",
          required: true,
          description: "From the `endpoint` event",
          schema: { type: "string", maxLength: 128 }
        },
        tokenQuery
      ],
      requestBody: {
        required: true,
        content: { "application/json": { schema: { $ref: "#/components/schemas/JsonRpcMessage" } } }
      },
      responses: {
        "202": {
          description: "Accepted: the reply follows on the stream",
          content: { "text/plain": { schema: { type: "string", enum: ["Accepted"] } } }
        },
        "400": error(
          "E_SESSION_NOT_FOUND, E_VALIDATION, E_MALFORMED_JSON",
          "`Session not found — reconnect to /mcp/sse` for an unknown session"
        ),
        "401": error("E_INVALID_API_KEY, E_ACCOUNT_INACTIVE"),
        "403": authFailures()["403"],
        "429": error("E_RATE_LIMITED"),
        ...bodyFailures()
      }
    }
  }
})

export const routerSchemas: Json = {
  JsonRpcMessage: jsonRpc,
  OAuthError: {
    type: "object",
    description: "An OAuth error (RFC 6749 §5.2)",
    properties: {
      error: { type: "string", description: "The OAuth error code, e.g. invalid_grant" },
      error_description: { type: "string" },
      requestId: { type: "string" }
    },
    required: ["error"]
  }
}

export const routerSecuritySchemes: Json = {
  mcpToken: {
    type: "apiKey",
    in: "query",
    name: "token",
    description: "The API key in the `token` query parameter (MCP clients)"
  }
}

export const routerTags: ReadonlyArray<Json> = [
  { name: "orchestrator", description: "Calls of the workflow-orchestration platform, signed with its shared key" },
  {
    name: "oauth",
    description: "Herald as the OAuth 2.1 authorization server of its MCP endpoints (sign-in for assistants)"
  },
  {
    name: "mcp",
    description:
      "The MCP server: Streamable HTTP at /mcp and the legacy HTTP+SSE pair; tools are listed at /.well-known/mcp/server-card.json"
  }
]
