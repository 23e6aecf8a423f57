import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { html, layout } from "../../platform/http/Html.ts"

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
  "swagger-ui-standalone-preset.js": {
    file: "swagger-ui-standalone-preset.js",
    contentType: "text/javascript; charset=utf-8"
  },
  "favicon-32x32.png": { file: "favicon-32x32.png", contentType: "image/png" },
  "favicon-16x16.png": { file: "favicon-16x16.png", contentType: "image/png" }
}

/** Swagger UI in Herald's page: its own margins off, text dark enough to read, controls big enough to tap. */
const docsCss = `.swagger-ui .wrapper{padding:0;max-width:none}
.swagger-ui .information-container.wrapper .info{margin:1rem 0}
.swagger-ui .info .title small{background:#5b6475}
.swagger-ui .info .title small.version-stamp{background:#3f6212}
.swagger-ui .info .base-url,.swagger-ui .info a,.swagger-ui .info li a,.swagger-ui a.nostyle,.swagger-ui .opblock-tag small a{color:#3730a3}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:#1d4ed8}
.swagger-ui .opblock.opblock-post .opblock-summary-method{background:#0f7b4f}
.swagger-ui .opblock.opblock-put .opblock-summary-method{background:#9a4a00}
.swagger-ui .opblock.opblock-delete .opblock-summary-method{background:#b91c1c}
.swagger-ui .opblock.opblock-patch .opblock-summary-method{background:#0f766e}
.swagger-ui .opblock.opblock-head .opblock-summary-method{background:#6d28d9}
.swagger-ui .opblock.opblock-options .opblock-summary-method{background:#1e3a8a}
.swagger-ui .opblock .opblock-summary-description,.swagger-ui .opblock-tag small,.swagger-ui .model-title,.swagger-ui .models-control{color:#1d2433}
.swagger-ui .opblock-summary-control,.swagger-ui .expand-operation,.swagger-ui .authorization__btn,.swagger-ui .opblock-control-arrow{min-width:24px;min-height:24px}
.swagger-ui button:not(.btn){background:transparent;color:inherit;border-color:transparent;font-weight:inherit}
.swagger-ui .json-schema-2020-12-expand-deep-button{color:#3730a3}
.swagger-ui .btn.authorize{color:#0f7b4f;border-color:#0f7b4f;background:#fff}
.swagger-ui .btn.authorize svg{fill:#0f7b4f}
.swagger-ui .opblock-summary-path a.nostyle{display:inline-block;min-height:24px;line-height:24px}
.swagger-ui .scheme-container{padding:1rem 0;box-shadow:none;background:transparent}
`

/** Labels Swagger UI's unlabelled controls and levels its headings under its h1, as it (re-)renders. */
const a11yScript = `(function(){
  function fix(root){
    var selects=root.querySelectorAll("select:not([aria-label])");
    for(var i=0;i<selects.length;i++){selects[i].setAttribute("aria-label",selects[i].id==="servers"?"Server":"Choose a value");}
    var level2=root.querySelectorAll("h1.title:not([aria-level]),h3.opblock-tag:not([aria-level]),section.models h4:not([aria-level])");
    for(var j=0;j<level2.length;j++){level2[j].setAttribute("role","heading");level2[j].setAttribute("aria-level","2");}
  }
  var target=document.getElementById("swagger-ui");
  new MutationObserver(function(){fix(target);}).observe(target,{childList:true,subtree:true});
})();
`

const initScript = `${a11yScript}window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "BaseLayout"
  })
})
`

/**
 * The page in Herald's layout: the site header, a heading, Swagger UI in the
 * main landmark; docs.css after Swagger UI's own fixes what accessibility
 * checks find in it (contrast, target sizes), and the start-up script labels
 * its controls and levels its headings (its own title too) under the page's h1.
 */
const page = `<!doctype html>\n${
  layout({
    title: "API reference",
    current: "docs",
    description: "Herald's REST API reference: every endpoint, schema, bound and error, from the OpenAPI document.",
    styles: ["/docs/assets/swagger-ui.css", "/docs/assets/docs.css"],
    script: [
      "/docs/assets/swagger-ui-bundle.js",
      "/docs/assets/swagger-ui-standalone-preset.js",
      "/docs/assets/docs-init.js"
    ],
    body: html`<h1>API reference</h1>
<p class="muted">Every endpoint of the REST API; the document itself is at <a href="/openapi.json">/openapi.json</a>. Agents can also use the <a href="/llms.txt">llms.txt</a> summary.</p>
<div id="swagger-ui"><noscript>The interactive reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript></div>`
  }).value
}`

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
    yield* router.add(
      "GET",
      "/docs/assets/:file",
      Effect.gen(function*() {
        const { params } = yield* HttpRouter.RouteContext
        const name = params.file ?? ""
        if (name === "docs.css") {
          return HttpServerResponse.text(docsCss, { contentType: "text/css; charset=utf-8", headers: assetHeaders })
        }
        if (name === "docs-init.js") {
          return HttpServerResponse.text(initScript, {
            contentType: "text/javascript; charset=utf-8",
            headers: assetHeaders
          })
        }
        if (!Object.hasOwn(assets, name)) return HttpServerResponse.empty({ status: 404 })
        return HttpServerResponse.uint8Array(read(name), {
          contentType: assets[name].contentType,
          headers: assetHeaders
        })
      })
    )
  })
)
