import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { AppConfig } from "../Config.ts"
import { scopesByRole } from "../domain/Identity.ts"

/** Discovery documents are public and readable from any origin (CONTRACT: CORS `*` on discovery GETs). */
export const discoveryHeaders = {
  "access-control-allow-origin": "*",
  "cache-control": "public, max-age=300"
}

/** RFC 9728 metadata: API keys as Bearer tokens, no authorization server yet, scopes by role. */
export const protectedResourceMetadata = (baseUrl: string) => ({
  resource: baseUrl,
  authorization_servers: [],
  bearer_methods_supported: ["header"],
  scopes_supported: [...new Set(Object.values(scopesByRole).flat())],
  resource_name: "Herald API",
  resource_documentation: `${baseUrl}/openapi.json`,
  herald_role_scopes: scopesByRole
})

export const DiscoveryRoutes = Layer.mergeAll(
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const config = yield* AppConfig
      const body = JSON.stringify(protectedResourceMetadata(config.baseUrl))
      yield* router.add(
        "GET",
        "/.well-known/oauth-protected-resource",
        HttpServerResponse.text(body, { contentType: "application/json", headers: discoveryHeaders })
      )
    })
  )
)
