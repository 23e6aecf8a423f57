import { html, layout } from "../../platform/http/Html.ts"
import {
  authenticationText,
  operations,
  paths,
  product,
  registryTools as tools,
  streamableVersions
} from "./Documents.ts"

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
    link(
      "MCP over SSE",
      `${paths.sse}?token=YOUR_API_KEY`,
      "HTTP+SSE transport (2024-11-05); messages to /mcp/message?sessionId="
    ),
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
    link(
      "OAuth protected resource metadata",
      paths.protectedResource,
      "RFC 9728; Herald is its own authorization server, scopes by role"
    ),
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
    ...[
      paths.llms,
      paths.serverCard,
      paths.agentCard,
      paths.a2aCard,
      paths.apiCatalog,
      paths.protectedResource,
      paths.sitemap
    ]
      .map((path) => `- [${path}](${baseUrl}${path})`),
    ""
  ].join("\n")

const xmlEscape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;" })[c]!)

/** sitemaps.org 0.9: the public pages and documents. */
export const sitemap = (baseUrl: string) =>
  [
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">",
    ...[
      "/",
      paths.indexMd,
      paths.llms,
      paths.openapi,
      paths.status,
      paths.agentCard,
      paths.serverCard,
      paths.a2aCard,
      paths.apiCatalog
    ]
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

/**
 * The home page: what Herald does, a sign-up form (its script posts the
 * checkout), sign-in, the API reference and status; then, for developers and
 * agents, how to connect and every tool and REST operation.
 */
export const homeHtml = (baseUrl: string): string =>
  `<!doctype html>\n${
    layout({
      title: `${product.name}: your AI marketing team as an API`,
      fullTitle: true,
      description: `${product.description} Start a free trial, then use the dashboard, the REST API or the MCP server.`,
      script: "/assets/home.js",
      body: html`<section class="hero-home" aria-labelledby="home-title">
<h1 id="home-title">Your AI marketing team, as an API</h1>
<p class="lead">${product.description}</p>
<form id="signup-form" class="signup">
<label>Work email<input type="email" name="email" required maxlength="254" autocomplete="email" placeholder="you@company.com"></label>
<button type="submit">Start free trial</button></form>
<p id="signup-message" class="notice error narrow" role="alert" hidden></p>
<noscript><p class="muted small">The sign-up form needs JavaScript; without it, send <code>POST /api/checkout</code> with your email.</p></noscript>
<p class="muted small">30 days free, no card needed. Your API key is shown once at the end.</p>
<div class="actions"><a class="button secondary" href="/dashboard">Sign in</a><a class="button secondary" href="/docs">Read the API docs</a><a class="button secondary" href="/status">Service status</a></div>
</section>
<section class="features" aria-label="What Herald does">
<div class="card"><h2>Content with approvals</h2><p>Drafts for your blog, newsletter and social channels wait in an approval queue until you say yes.</p></div>
<div class="card"><h2>Social publishing</h2><p>Connect X, LinkedIn, Instagram, Facebook, TikTok and Pinterest; publish now or on a schedule.</p></div>
<div class="card"><h2>SEO and GEO scans</h2><p>Scan any page for search and AI-answer readiness, with the fixes in order of impact.</p></div>
<div class="card"><h2>Analytics</h2><p>Posts, clicks and revenue per channel over the period, in the dashboard and the API.</p></div>
</section>
<section class="card reference" aria-labelledby="dev-title">
<h2 id="dev-title">For developers and agents</h2>
<h3>Connect</h3>
<ul>
<li><code>${baseUrl}${paths.sse}?token=YOUR_API_KEY</code> (MCP over SSE)</li>
<li><code>${baseUrl}${paths.streamable}</code> (MCP Streamable HTTP, Bearer key)</li>
<li><a href="${paths.openapi}">OpenAPI description</a> · <a href="/docs">API reference</a></li>
</ul>
<details><summary>MCP tools (${tools().length})</summary><ul>${
        tools().map((tool) => html`<li><strong>${tool.name}</strong>: ${tool.description}</li>`)
      }</ul></details>
<details><summary>REST endpoints (${operations().length})</summary><ul>${
        operations().map((op) => html`<li><code>${op.method} ${op.path}</code> ${op.summary}</li>`)
      }</ul></details>
<h3>For agents</h3>
<ul>${
        [
          paths.llms,
          paths.indexMd,
          "/?mode=agent",
          paths.serverCard,
          paths.agentCard,
          paths.a2aCard,
          paths.apiCatalog,
          paths.sitemap
        ]
          .map((path) => html`<li><a href="${path}">${path}</a></li>`)
      }</ul>
</section>`
    }).value
  }`

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
  tools: tools().map((tool) => ({
    name: tool.name,
    description: tool.description,
    available: runnable.has(tool.name)
  })),
  operations: operations().map((op) => ({ method: op.method, path: op.path, summary: op.summary }))
})
