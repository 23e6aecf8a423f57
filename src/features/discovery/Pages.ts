import { operations, paths, product, streamableVersions, registryTools as tools, authenticationText } from "./Documents.ts"

/**
 * The human and crawler documents: llms.txt, the home page as Markdown and
 * HTML, the sitemap, the home page's Link header and `/?mode=agent`, built
 * from the same registry and HttpApi definition as the agent documents.
 */

/** llms.txt (llmstxt.org): H1, a blockquote summary, plain notes, then H2 sections of `- [name](url): notes`. */
export const llmsTxt = (baseUrl: string, limits: { readonly rest: number; readonly mcp: number }) => {
  const link = (name: string, path: string, note: string) => `- [${name}](${baseUrl}${path}): ${note}`
  return [
    `# ${product.name}`,
    "",
    `> ${product.description}`,
    "",
    authenticationText,
    `Errors are JSON \`{error, code, requestId}\` with an \`X-Request-ID\` header. Limits: ${limits.rest} REST requests and ${limits.mcp} MCP POSTs per minute per customer.`,
    "",
    "## API",
    "",
    link("OpenAPI description", paths.openapi, "every endpoint, schema, bound and error (OpenAPI 3.1)"),
    link("API catalog", paths.apiCatalog, "RFC 9727 linkset"),
    link("Public status", paths.status, "uptime and incidents"),
    link("Home as Markdown", paths.indexMd, "endpoints and tools on one page"),
    "",
    "## MCP",
    "",
    link("MCP over SSE", `${paths.sse}?token=YOUR_API_KEY`, "HTTP+SSE transport (2024-11-05); messages to /mcp/message?sessionId="),
    link("MCP Streamable HTTP", paths.streamable, "Streamable HTTP transport, Bearer or ?token="),
    link("MCP server card", paths.serverCard, "server metadata and the tool list"),
    link("Agent card", paths.agentCard, "the tool registry with JSON Schemas"),
    link("A2A agent card", paths.a2aCard, "skills and security schemes"),
    "",
    "## Tools",
    "",
    ...tools().map((tool) => `- [${tool.name}](${baseUrl}${paths.agentCard}): ${tool.description}`),
    "",
    "## Optional",
    "",
    link("OAuth protected resource metadata", paths.protectedResource, "RFC 9728; API keys only, scopes by role"),
    link("Sitemap", paths.sitemap, "public pages"),
    ""
  ].join("\n")
}

/** The home page as Markdown: what Herald is, how to connect, every endpoint and tool. */
export const indexMarkdown = (baseUrl: string) =>
  [
    `# ${product.name}`,
    "",
    product.description,
    "",
    "## Connect",
    "",
    `- MCP (SSE): \`${baseUrl}${paths.sse}?token=YOUR_API_KEY\``,
    `- MCP (Streamable HTTP): \`${baseUrl}${paths.streamable}\` with \`Authorization: Bearer YOUR_API_KEY\``,
    `- REST: \`${baseUrl}\` with \`Authorization: Bearer YOUR_API_KEY\`; description at [${paths.openapi}](${baseUrl}${paths.openapi})`,
    "",
    "## MCP tools",
    "",
    ...tools().map((tool) => `- **${tool.name}** (${tool.title}): ${tool.description}`),
    "",
    "## REST endpoints",
    "",
    ...operations().map((op) => `- \`${op.method} ${op.path}\`: ${op.summary}`),
    "",
    "## Discovery",
    "",
    ...[paths.llms, paths.serverCard, paths.agentCard, paths.a2aCard, paths.apiCatalog, paths.protectedResource, paths.sitemap]
      .map((path) => `- [${path}](${baseUrl}${path})`),
    ""
  ].join("\n")

const xmlEscape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!)

/** sitemaps.org 0.9: the public pages and documents. */
export const sitemap = (baseUrl: string) =>
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...["/", paths.indexMd, paths.llms, paths.openapi, paths.status, paths.agentCard, paths.serverCard, paths.a2aCard, paths.apiCatalog]
      .map((path) => `  <url><loc>${xmlEscape(`${baseUrl}${path}`)}</loc></url>`),
    "</urlset>",
    ""
  ].join("\n")

/** The seven Link relations of the home page (docs/api-rules.md, "Discovery"), RFC 8288 syntax. */
export const homeLinks = [
  `<${paths.sitemap}>; rel="sitemap"; type="application/xml"`,
  `<${paths.indexMd}>; rel="alternate"; type="text/markdown"`,
  `<${paths.openapi}>; rel="service-desc"; type="application/openapi+json"`,
  `<${paths.apiCatalog}>; rel="api-catalog"; type="application/linkset+json"`,
  `</?mode=agent>; rel="describedby"; type="application/json"`,
  `<${paths.serverCard}>; rel="related"; type="application/json"`,
  `<${paths.llms}>; rel="llms-txt"; type="text/plain"`
].join(", ")

const htmlEscape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** Builds HTML from text that is always escaped: no value reaches the page unescaped. */
const h = (tag: string, content: string | ReadonlyArray<string>, attrs: Record<string, string> = {}) =>
  `<${tag}${Object.entries(attrs).map(([k, v]) => ` ${k}="${htmlEscape(v)}"`).join("")}>${
    typeof content === "string" ? htmlEscape(content) : content.join("")
  }</${tag}>`

export const homeHtml = (baseUrl: string) =>
  "<!doctype html>" +
  h("html", [
    h("head", [
      '<meta charset="utf-8">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      h("title", `${product.name}: AI marketing team as an API`),
      `<link rel="alternate" type="text/markdown" href="${htmlEscape(paths.indexMd)}">`,
      `<link rel="service-desc" type="application/openapi+json" href="${htmlEscape(paths.openapi)}">`
    ]),
    h("body", [
      h("h1", product.name),
      h("p", product.description),
      h("h2", "Connect"),
      h("ul", [
        h("li", [h("code", `${baseUrl}${paths.sse}?token=YOUR_API_KEY`), htmlEscape(" (MCP over SSE)")]),
        h("li", [h("code", `${baseUrl}${paths.streamable}`), htmlEscape(" (MCP Streamable HTTP, Bearer key)")]),
        h("li", [h("a", "OpenAPI description", { href: paths.openapi })])
      ]),
      h("h2", "MCP tools"),
      h("ul", tools().map((tool) => h("li", [h("strong", tool.name), htmlEscape(`: ${tool.description}`)]))),
      h("h2", "REST endpoints"),
      h("ul", operations().map((op) => h("li", [h("code", `${op.method} ${op.path}`), htmlEscape(` ${op.summary}`)]))),
      h("h2", "For agents"),
      h("ul", [paths.llms, paths.indexMd, "/?mode=agent", paths.serverCard, paths.agentCard, paths.a2aCard, paths.apiCatalog, paths.sitemap]
        .map((path) => h("li", [h("a", path, { href: path })])))
    ])
  ], { lang: "en" })

/** `/?mode=agent`: what an agent needs to start, as JSON. */
export const agentDescriptor = (baseUrl: string, runnable: ReadonlySet<string>) => ({
  name: product.name,
  description: product.description,
  version: product.version,
  authentication: authenticationText,
  endpoints: {
    openapi: `${baseUrl}${paths.openapi}`,
    mcpSse: `${baseUrl}${paths.sse}`,
    mcpStreamableHttp: `${baseUrl}${paths.streamable}`,
    serverCard: `${baseUrl}${paths.serverCard}`,
    agentCard: `${baseUrl}${paths.agentCard}`,
    a2aAgentCard: `${baseUrl}${paths.a2aCard}`,
    apiCatalog: `${baseUrl}${paths.apiCatalog}`,
    llmsTxt: `${baseUrl}${paths.llms}`,
    status: `${baseUrl}${paths.status}`
  },
  mcpProtocolVersions: [...streamableVersions],
  tools: tools().map((tool) => ({ name: tool.name, description: tool.description, available: runnable.has(tool.name) })),
  operations: operations().map((op) => ({ method: op.method, path: op.path, summary: op.summary }))
})
