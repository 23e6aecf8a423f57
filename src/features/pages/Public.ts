import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../Config.ts"
import { html, htmlPage, htmlResponse, layout } from "../../platform/http/Html.ts"
import { statusDetails } from "../health/dashboard.ts"
import { Health } from "../health/Health.ts"

/**
 * robots.txt: every page may be crawled (the dashboard and checkout pages
 * answer a crawler with their sign-in or expiry page, which is harmless),
 * and the sitemap is named.
 */
export const robotsTxt = (baseUrl: string) => `User-agent: *\nAllow: /\n\nSitemap: ${baseUrl}/sitemap.xml\n`

/** The public status as a page: the same figures as `GET /api/public/status`. */
export const PublicRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* AppConfig
    const health = yield* Health
    yield* router.add(
      "GET",
      "/robots.txt",
      HttpServerResponse.text(robotsTxt(baseUrl), {
        contentType: "text/plain; charset=utf-8",
        headers: { "cache-control": "public, max-age=3600" }
      })
    )
    yield* router.add(
      "GET",
      "/status",
      htmlPage(Effect.map(health.publicStatus, (status) =>
        htmlResponse(
          layout({
            title: "Service status",
            current: "status",
            description:
              "Herald's service status: uptime over 24 hours and 7 days, each component's state and recent incidents.",
            body:
              html`<section class="card narrow" aria-labelledby="status-title"><h1 id="status-title">Service status</h1>${
                statusDetails(status, 2)
              }<p class="muted small">As JSON: <a href="/api/public/status">/api/public/status</a></p></section>`
          }),
          { headers: { "cache-control": "no-cache" } }
        )))
    )
  })
)
