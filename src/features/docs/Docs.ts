import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

/**
 * The API reference at /docs: the OpenAPI document rendered by Swagger UI,
 * served from the swagger-ui-dist package installed with Herald (no CDN), so
 * the page works offline and its CSP can allow only this origin. The page's
 * start-up script is a file of its own, since the CSP forbids inline scripts.
 */
const distDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"))

/** Files the page loads, by the name it asks for. Nothing else of the package is served. */
const assets: Record<string, { readonly file: string; readonly contentType: string }> = {
  "swagger-ui.css": { file: "swagger-ui.css", contentType: "text/css; charset=utf-8" },
  "swagger-ui-bundle.js": { file: "swagger-ui-bundle.js", contentType: "text/javascript; charset=utf-8" },
  "swagger-ui-standalone-preset.js": { file: "swagger-ui-standalone-preset.js", contentType: "text/javascript; charset=utf-8" },
  "favicon-32x32.png": { file: "favicon-32x32.png", contentType: "image/png" },
  "favicon-16x16.png": { file: "favicon-16x16.png", contentType: "image/png" }
}

const initScript = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "BaseLayout"
  })
})
`

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Herald API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="/docs/assets/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"><noscript>The reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/docs-init.js"></script>
</body>
</html>
`

/** Assets are versioned with the installed package: cacheable for a day. */
const assetHeaders = { "cache-control": "public, max-age=86400" }

/** Read once, on first request: most processes never serve the page. */
const loaded = new Map<string, Uint8Array>()
const read = (name: string): Uint8Array => {
  let bytes = loaded.get(name)
  if (bytes === undefined) {
    bytes = readFileSync(join(distDir, assets[name].file))
    loaded.set(name, bytes)
  }
  return bytes
}

export const DocsRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    yield* router.add("GET", "/docs", HttpServerResponse.html(page))
    yield* router.add("GET", "/docs/assets/:file", Effect.gen(function*() {
      const { params } = yield* HttpRouter.RouteContext
      const name = params.file ?? ""
      if (name === "docs-init.js") {
        return HttpServerResponse.text(initScript, { contentType: "text/javascript; charset=utf-8", headers: assetHeaders })
      }
      if (!Object.hasOwn(assets, name)) return HttpServerResponse.empty({ status: 404 })
      return HttpServerResponse.uint8Array(read(name), { contentType: assets[name].contentType, headers: assetHeaders })
    }))
  })
)
