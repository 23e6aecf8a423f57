import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../Config.ts"

/** Discovery documents are public and readable from any origin (CORS `*` on discovery GETs). */
export const discoveryHeaders = {
  "access-control-allow-origin": "*",
  "cache-control": "public, max-age=300"
}

/**
 * A public JSON document built once from the base URL at start-up and served
 * as is, with the discovery headers (CORS `*`, cacheable).
 */
export const jsonDocumentRoute = (path: `/${string}`, document: (baseUrl: string) => unknown) =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const config = yield* AppConfig
      const body = JSON.stringify(document(config.baseUrl))
      yield* router.add(
        "GET",
        path,
        HttpServerResponse.text(body, { contentType: "application/json", headers: discoveryHeaders })
      )
    })
  )
