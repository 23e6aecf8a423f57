import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../Config.ts"
import { scopesByRole } from "../../domain/Identity.ts"
import { mcpResource } from "../../domain/OAuth.ts"
import { pageHeaders } from "../../platform/http/Html.ts"
import { discoveryHeaders, jsonDocumentRoute } from "../../platform/http/JsonDocument.ts"
import { ToolRunner } from "../../platform/tools/ToolRunner.ts"
import { a2aAgentCard, apiCatalog, apiCatalogMediaType, paths, serverCard } from "./Documents.ts"
import { agentDescriptor, homeHtml, homeLinks, indexMarkdown, llmsTxt, sitemap } from "./Pages.ts"

/**
 * RFC 9728 metadata of the MCP endpoint, the resource OAuth tokens are for:
 * Herald is its own authorization server; API keys stay valid Bearer tokens;
 * scopes by role.
 */
export const protectedResourceMetadata = (baseUrl: string, resource: string = baseUrl) => ({
  resource,
  authorization_servers: [baseUrl],
  bearer_methods_supported: ["header"],
  scopes_supported: [...new Set(Object.values(scopesByRole).flat())],
  resource_name: "Herald API",
  resource_documentation: `${baseUrl}/openapi.json`,
  herald_role_scopes: scopesByRole
})

/** Methods a discovery document answers from any origin (CORS `*`): a browser may read them. */
const cors = { ...discoveryHeaders, "access-control-allow-methods": "GET, HEAD" }

/** The home page: every page's headers (its own stylesheet and sign-up script only, nothing frames it), readable from any origin. */
const htmlHeaders = {
  ...pageHeaders(),
  ...cors,
  vary: "Accept"
}

/** Every discovery document and page, built once from the base URL, the registry and the HttpApi definition. */
const Pages = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const { baseUrl, rateLimits } = yield* AppConfig
    const runner = yield* ToolRunner
    const runnable = new Set(runner.tools.map((tool) => tool.name))
    const json = (value: unknown, contentType = "application/json") => {
      const body = JSON.stringify(value)
      return HttpServerResponse.text(body, { contentType, headers: cors })
    }
    const text = (body: string, contentType: string) => HttpServerResponse.text(body, { contentType, headers: cors })

    const card = json(serverCard(baseUrl))
    for (const path of [paths.serverCard, paths.serverCardSep, paths.serverCardDraft]) {
      yield* router.add("GET", path, card)
    }
    const a2a = json(a2aAgentCard(baseUrl))
    for (const path of [paths.a2a, paths.a2aCard]) {
      yield* router.add("GET", path, a2a)
    }
    yield* router.add(
      "GET",
      paths.apiCatalog,
      HttpServerResponse.text(JSON.stringify(apiCatalog(baseUrl)), {
        contentType: apiCatalogMediaType,
        headers: { ...cors, link: `<${paths.apiCatalog}>; rel="api-catalog"` }
      })
    )
    yield* router.add("GET", paths.llms, text(llmsTxt(baseUrl, rateLimits), "text/plain; charset=utf-8"))
    const markdown = indexMarkdown(baseUrl)
    yield* router.add("GET", paths.indexMd, text(markdown, "text/markdown; charset=utf-8"))
    yield* router.add("GET", paths.sitemap, text(sitemap(baseUrl), "application/xml; charset=utf-8"))

    const html = homeHtml(baseUrl)
    const descriptor = JSON.stringify(agentDescriptor(baseUrl, runnable))
    yield* router.add("GET", "/", (request: HttpServerRequest.HttpServerRequest) => {
      const q = request.url.indexOf("?")
      const mode = q === -1 ? null : new URLSearchParams(request.url.slice(q + 1)).get("mode")
      const headers = { ...htmlHeaders, link: homeLinks }
      if (mode === "agent") {
        return Effect.succeed(HttpServerResponse.text(descriptor, { contentType: "application/json", headers }))
      }
      const accept = request.headers.accept ?? ""
      if (accept.includes("text/markdown") && !accept.includes("text/html")) {
        return Effect.succeed(
          HttpServerResponse.text(markdown, { contentType: "text/markdown; charset=utf-8", headers })
        )
      }
      return Effect.succeed(HttpServerResponse.text(html, { contentType: "text/html; charset=utf-8", headers }))
    })
  })
)

export const DiscoveryRoutes = Layer.mergeAll(
  jsonDocumentRoute(paths.protectedResource, (baseUrl) => protectedResourceMetadata(baseUrl)),
  // Where RFC 9728 puts the metadata of the resource at /mcp: the same document, naming that resource.
  jsonDocumentRoute(
    `${paths.protectedResource}/mcp`,
    (baseUrl) => protectedResourceMetadata(baseUrl, mcpResource(baseUrl))
  ),
  Pages
)
