import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"

const ToolAnnotations = Schema.Struct({
  title: Schema.String,
  readOnlyHint: Schema.Boolean,
  destructiveHint: Schema.Boolean,
  idempotentHint: Schema.Boolean,
  openWorldHint: Schema.Boolean
}).annotate({ identifier: "ToolAnnotations", description: "MCP tool annotations" })

export const AgentCardTool = Schema.Struct({
  name: Schema.String,
  title: Schema.String,
  description: Schema.String,
  inputSchema: Schema.Record(Schema.String, Schema.Unknown).annotate({
    description: "JSON Schema (2020-12) of the tool's arguments"
  }),
  annotations: ToolAnnotations,
  available: Schema.Boolean.annotate({
    description: "Whether this server runs the tool now (MCP `tools/list` lists exactly these)"
  })
}).annotate({ identifier: "AgentCardTool" })

export const AgentCard = Schema.Struct({
  name: Schema.String,
  title: Schema.String,
  description: Schema.String,
  version: Schema.String,
  url: Schema.String.annotate({ format: "uri" }),
  documentation: Schema.String.annotate({ format: "uri" }),
  mcp: Schema.Struct({
    sse: Schema.String.annotate({ format: "uri" }),
    message: Schema.String.annotate({ format: "uri" }),
    streamableHttp: Schema.String.annotate({ format: "uri" }),
    serverCard: Schema.String.annotate({ format: "uri" }),
    protocolVersions: Schema.Array(Schema.String)
  }),
  authentication: Schema.Struct({
    type: Schema.Literal("apiKey"),
    description: Schema.String
  }),
  tools: Schema.Array(AgentCardTool)
}).annotate({ identifier: "AgentCard" })

export class DiscoveryApi extends HttpApiGroup.make("discovery")
  .add(
    HttpApiEndpoint.get("agentCard", "/api/public/agent-card", { success: AgentCard }).annotateMerge(
      OpenApi.annotations({
        summary: "Agent card",
        description:
          "The MCP tool registry as served to agents: every tool's name, description, JSON Schema input and annotations, whether this server runs it now, and the MCP endpoints. No authentication."
      })
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Discovery", description: "Public documents for agents" }))
{}
