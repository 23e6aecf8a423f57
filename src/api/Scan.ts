import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { InvalidCursor, Unavailable } from "../domain/Errors.ts"
import { ScanIdPath } from "../domain/Ids.ts"
import { ScanList, ScanRequest, ScanResult } from "../domain/Scan.ts"
import { Authentication } from "./Security.ts"
import { CustomerIdParam, intQuery, NotFoundError, strictParse, StrictPayload } from "./Shared.ts"

const ScanParams = { ...CustomerIdParam, scanId: ScanIdPath }

const checks =
  "The checklist holds one item per applicable check, `{id, category, title, status, weight, detail, recommendation}`. " +
  "The ten checks that reproduce Lighthouse's SEO audits carry Lighthouse's audit id (`is-crawlable`, `document-title`, " +
  "`meta-description`, `http-status-code`, `link-text`, `crawlable-anchors`, `robots-txt`, `image-alt`, `hreflang`, " +
  "`canonical`) and pass or fail as Lighthouse scores them; a check Lighthouse finds not applicable is left out. " +
  "Other checks are `seo.*`, `geo.*` (AI crawler access per user agent, llms.txt, structured data, answerable " +
  "structure, freshness, author, server-rendered text) and `cro.*` (call to action above the fold, forms, trust " +
  "signals, contact paths, zoom on phones, page weight). A missing viewport is one finding, `seo.viewport` " +
  "(`cro.mobile` is then left out). `geo.freshness` reads the dates a reader sees (written dates, `<time>`) and " +
  "structured data (`datePublished`, `dateModified`, article times), never the `Last-Modified` header. Each score is round(100·Σ weight·credit / Σ weight) over " +
  "its category's items, credit pass 1, warn 0.5, fail 0; `geoScore` is capped at 40 when search or AI crawlers are " +
  "blocked; `citabilityGrade` is A >= 90, B >= 75, C >= 60, D >= 40, else F of `geoScore`; `lighthouseSeoScore` " +
  "is Lighthouse's SEO category score as reproduced."

/** The SEO/GEO/CRO scanner. Starting a scan needs the admin role; reading needs viewer. */
export class ScanApi extends HttpApiGroup.make("scan")
  .add(
    HttpApiEndpoint.post("scan", "/api/scan/:customerId", {
      params: CustomerIdParam,
      payload: ScanRequest,
      success: ScanResult,
      error: Unavailable
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Scan a page",
      description: "Runs inline (typically well under 15 s) and answers the stored ScanResult, scores at top level. " +
        "The page, its headers, /robots.txt, /llms.txt and the sitemap are fetched concurrently through the outbound " +
        "guard: http(s) only, public addresses only, re-checked on each of at most 5 redirects, 5 MiB and 10 s caps. " +
        "A page that is unreachable, refused (private address), too large, too slow or not HTML answers 200 with " +
        "`status: failed` and `error`; a url that is not http(s) is 400 E_VALIDATION. With Chromium on the server a " +
        "full-page screenshot is taken once the page has answered and `screenshotUrl` points at it, else it is null. At most 2 scans " +
        "run at once per customer; more wait their turn. Across customers the server runs a bounded number of scans at once " +
        "(SCAN_MAX_CONCURRENT) and lets a bounded number wait (SCAN_QUEUE_MAX); past that the scan is refused 503 " +
        "E_UNAVAILABLE with `Retry-After`. The page is fetched and checked in an isolated worker with a time limit: a " +
        "page that hangs or exhausts it is a `failed` scan with its reason. Emits `scan.completed`. " + checks
    })),
    HttpApiEndpoint.get("list", "/api/scan/:customerId", {
      params: CustomerIdParam,
      query: {
        limit: Schema.optional(intQuery(1, 100, 25)),
        cursor: Schema.optional(Schema.String.check(Schema.isMaxLength(1000)))
      },
      success: ScanList,
      error: InvalidCursor
    }).annotateMerge(OpenApi.annotations({
      summary: "List scans",
      description:
        "The customer's scans, newest first, running ones included, as summaries: scores, citability grade, " +
        "`counts` of checklist items by status (`pass`, `warn`, `fail`), url, error and dates; the full scan (checklist, " +
        "llms.txt, screenshot) is at `GET /api/scan/{customerId}/{scanId}`. `limit` 1-100 (default 25). Pass " +
        "`nextCursor` as `cursor` for the next page; it is null on the last page. Cursors are opaque and signed: an " +
        "altered one is 400 `E_INVALID_CURSOR`. Scans started while paging never shift a page."
    })),
    HttpApiEndpoint.get("get", "/api/scan/:customerId/:scanId", {
      params: ScanParams,
      success: ScanResult,
      error: NotFoundError
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Get a scan",
        description: "404 for an id this customer has no scan under. " + checks
      })
    ),
    HttpApiEndpoint.get("screenshot", "/api/scan/:customerId/:scanId/screenshot.png", {
      params: ScanParams,
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "image/png" })).annotate({
        description: "The PNG screenshot of the scanned page"
      }),
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Scan screenshot",
      description: "The full-page PNG taken during the scan (`image/png`), with the same Bearer authentication as " +
        "every route. 404 when the scan is unknown or has no screenshot."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Scan", description: "SEO, GEO (AI answer engines) and CRO scanner" }))
{}
