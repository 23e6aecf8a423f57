import { toolDefinitions } from "../../api/tools/definitions.ts"
import { openApiDocument } from "../../platform/http/OpenApiDocument.ts"
import { allToolDescriptors, type ToolDescriptor } from "../../platform/tools/ToolRunner.ts"
import { protocolVersions, streamableVersions } from "../mcp/McpServer.ts"

export { protocolVersions, streamableVersions }

/**
 * Every discovery document, built from the tool registry and the HttpApi
 * definition (through the OpenAPI document generated from it), once per
 * base URL. Pure functions of the base URL and the runnable tool names.
 */

export const product = {
  name: "Herald",
  version: "1.0.0",
  description:
    "Herald is a managed AI marketing team exposed as an API and an MCP server: content drafts with an approval queue, workflows, social publishing, analytics, SEO/GEO scans, brand onboarding, webhooks, autonomy and budget controls."
} as const

export const paths = {
  serverCard: "/.well-known/mcp/server-card.json",
  serverCardSep: "/.well-known/mcp/server-card",
  serverCardDraft: "/mcp/server-card",
  agentCard: "/api/public/agent-card",
  a2a: "/.well-known/agent.json",
  a2aCard: "/.well-known/agent-card.json",
  apiCatalog: "/.well-known/api-catalog",
  protectedResource: "/.well-known/oauth-protected-resource",
  llms: "/llms.txt",
  indexMd: "/index.md",
  sitemap: "/sitemap.xml",
  openapi: "/openapi.json",
  status: "/api/public/status",
  sse: "/mcp/sse",
  message: "/mcp/message",
  streamable: "/mcp"
} as const

/** The twelve tools as the registry describes them. */
export const registryTools = (): ReadonlyArray<ToolDescriptor> => allToolDescriptors()
const tools = registryTools

/** `api.example.com` → `com.example.api/herald` (the server card's reverse-DNS name). */
const serverName = (baseUrl: string) => {
  const host = new URL(baseUrl).hostname
  const reversed = /^[0-9.]+$/.test(host) || host.includes(":")
    ? host.replaceAll(":", "-")
    : host.split(".").reverse().join(".")
  return `${reversed}/herald`
}

/** MCP server card (SEP-2127 fields, plus the tool list: each tool's name, description and input schema). */
export const serverCard = (baseUrl: string) => ({
  $schema: "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json",
  name: serverName(baseUrl),
  title: product.name,
  version: product.version,
  description: product.description,
  websiteUrl: baseUrl,
  remotes: [
    {
      type: "sse",
      url: `${baseUrl}${paths.sse}`,
      supportedProtocolVersions: [...protocolVersions],
      headers: []
    },
    {
      type: "streamable-http",
      url: `${baseUrl}${paths.streamable}`,
      supportedProtocolVersions: [...streamableVersions],
      headers: [{
        name: "Authorization",
        description: "Bearer <API_KEY> (or ?token=<API_KEY>)",
        isRequired: true,
        isSecret: true
      }]
    }
  ],
  authentication: {
    description:
      "An API key: `?token=<API_KEY>` on /mcp/sse (its messages are authorised by the session), `Authorization: Bearer <API_KEY>` or `?token=` on /mcp."
  },
  tools: tools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))
})

export const authenticationText =
  "API key from checkout (shown once). REST: `Authorization: Bearer <API_KEY>`. MCP: `/mcp/sse?token=<API_KEY>`, or Bearer/`?token=` on `/mcp`. Every tool takes the key's own `customerId`."

/** `/api/public/agent-card`: the registry with availability and the MCP endpoints. */
export const agentCard = (baseUrl: string, runnable: ReadonlySet<string>) => ({
  name: "herald",
  title: product.name,
  description: product.description,
  version: product.version,
  url: baseUrl,
  documentation: `${baseUrl}${paths.openapi}`,
  mcp: {
    sse: `${baseUrl}${paths.sse}`,
    message: `${baseUrl}${paths.message}`,
    streamableHttp: `${baseUrl}${paths.streamable}`,
    serverCard: `${baseUrl}${paths.serverCard}`,
    protocolVersions: [...streamableVersions]
  },
  authentication: { type: "apiKey" as const, description: authenticationText },
  tools: tools().map((tool) => ({ ...tool, available: runnable.has(tool.name) }))
})

/** A2A agent card (v0.3 fields; `/.well-known/agent.json` is the pre-0.3 path of the same card). */
export const a2aAgentCard = (baseUrl: string) => ({
  protocolVersion: "0.3.0",
  name: product.name,
  description: product.description,
  // Herald speaks MCP and REST, not A2A's own JSON-RPC: the card names the service and its skills.
  url: baseUrl,
  version: product.version,
  documentationUrl: `${baseUrl}${paths.openapi}`,
  provider: { organization: product.name, url: baseUrl },
  capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
  defaultInputModes: ["application/json", "text/plain"],
  defaultOutputModes: ["application/json", "text/plain"],
  skills: toolDefinitions.map((definition) => ({
    id: definition.name,
    name: definition.title,
    description: definition.description,
    tags: [...definition.tags],
    inputModes: ["application/json"],
    outputModes: ["application/json", "text/plain"]
  })),
  securitySchemes: {
    bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API_KEY>" },
    token: {
      type: "apiKey",
      in: "query",
      name: "token",
      description: "?token=<API_KEY> (MCP SSE clients that cannot set headers)"
    }
  },
  security: [{ bearer: [] }, { token: [] }]
})

export const apiCatalogMediaType = "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\""

/** RFC 9727 api-catalog as an RFC 9264 linkset. */
export const apiCatalog = (baseUrl: string) => ({
  linkset: [
    {
      anchor: baseUrl,
      "service-desc": [{ href: `${baseUrl}${paths.openapi}`, type: "application/openapi+json" }],
      "service-doc": [
        { href: `${baseUrl}/`, type: "text/html" },
        { href: `${baseUrl}${paths.llms}`, type: "text/markdown" }
      ],
      "service-meta": [
        { href: `${baseUrl}${paths.serverCard}`, type: "application/json" },
        { href: `${baseUrl}${paths.a2aCard}`, type: "application/json" },
        { href: `${baseUrl}${paths.protectedResource}`, type: "application/json" }
      ],
      status: [{ href: `${baseUrl}${paths.status}`, type: "application/json" }]
    }
  ]
})

interface Operation {
  readonly method: string
  readonly path: string
  readonly summary: string
}

let operationsCache: ReadonlyArray<Operation> | undefined
/** Every REST operation with its summary, read from the OpenAPI document the HttpApi produces. */
export const operations = (): ReadonlyArray<
  Operation
> => (operationsCache ??= Object.entries(
  (openApiDocument("") as { paths: Record<string, Record<string, { summary?: string }>> }).paths
)
  .flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, summary: operation.summary ?? "" }))
  ))
