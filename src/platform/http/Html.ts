import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { isSqlError } from "effect/sql/SqlError"
import { randomBytes } from "node:crypto"
import { errorClasses } from "../../domain/ErrorCatalog.ts"
import { isDatabaseOutage } from "./ErrorResponses.ts"
import { currentRequest } from "./RequestContext.ts"

/**
 * HTML escaped by construction. `html` is a tagged template: every
 * interpolated value is escaped unless it is itself `Html` (made by `html`,
 * or `unsafeRaw` for the few constant fragments that need it). Arrays are
 * joined, `null`, `undefined` and `false` render nothing. Pages are built only
 * from it, never by concatenating strings.
 */
export class Html {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

const escapes: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\"": "&quot;",
  "'": "&#39;",
  "`": "&#96;"
}

export const escapeHtml = (text: string): string => text.replace(/[&<>"'`]/g, (c) => escapes[c]!)

export type Interpolation = Html | string | number | boolean | null | undefined | ReadonlyArray<Interpolation>

const render = (value: Interpolation): string => {
  if (value instanceof Html) return value.value
  if (value === null || value === undefined || value === false) return ""
  if (Array.isArray(value)) return value.map(render).join("")
  return escapeHtml(String(value))
}

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolation>): Html => {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!
  return new Html(out)
}

/** A constant fragment written by us (never user data). */
export const unsafeRaw = (value: string): Html => new Html(value)

/** A URL for an href/src: http(s) or a same-site path, else nothing clickable. */
export const safeHref = (url: string | null | undefined): string =>
  url !== null && url !== undefined && (/^https?:\/\//i.test(url) || /^\/(?!\/)/.test(url)) ? url : "#"

/** Characters that end a URL in running text rather than belong to it. */
const trailingPunctuation = new Set([".", ",", ";", ":", "!", "?", ")", "]", "'", "\""])

/**
 * Text shown as is, with every http(s) URL in it a link: escaped like all
 * text, `rel="nofollow noopener ugc"` (a visitor's post is user content) and
 * opening in a new tab. Punctuation that ends a sentence stays outside the link.
 */
export const linkify = (text: string): Html => {
  const parts: Array<Html | string> = []
  let last = 0
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+/gi)) {
    let url = match[0]
    while (url.length > 0 && trailingPunctuation.has(url.at(-1)!)) url = url.slice(0, -1)
    if (!URL.canParse(url) || url.length <= match[0].indexOf("//") + 2) continue
    parts.push(
      text.slice(last, match.index),
      html`<a href="${url}" rel="nofollow noopener ugc" target="_blank">${url}</a>`
    )
    last = match.index + url.length
  }
  parts.push(text.slice(last))
  return html`${parts}`
}

/** The headers every HTML page carries (docs/api-rules.md, "Requests and answers"). */
export const pageHeaders = (nonce?: string): Record<string, string> => ({
  "content-security-policy": [
    "default-src 'none'",
    "style-src 'self'",
    nonce === undefined ? "script-src 'self'" : `script-src 'self' 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join("; "),
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
})

export const newNonce = (): string => randomBytes(16).toString("base64")

/** An HTML page response with the page headers. */
export const htmlResponse = (
  body: Html,
  options: { readonly status?: number; readonly headers?: Record<string, string> } = {}
) =>
  HttpServerResponse.text(`<!doctype html>\n${body.value}`, {
    status: options.status ?? 200,
    contentType: "text/html; charset=utf-8",
    headers: { ...pageHeaders(), ...options.headers }
  })

export interface Layout {
  readonly title: string
  /** The search-result summary of the page (`<meta name="description">`); a default says what Herald is. */
  readonly description?: string | undefined
  readonly body: Html
  /** Scripts from /assets (same origin), e.g. "/assets/signup.js": the pages' CSP allows no inline script. */
  readonly script?: string | ReadonlyArray<string> | undefined
  readonly bodyClass?: string | undefined
  /**
   * The document's own referrer policy (a `<meta name="referrer">`), for a
   * page whose form must name its origin: under the header's `no-referrer`
   * a browser posts `Origin: null`.
   */
  readonly referrer?: "same-origin" | undefined
  /** The header link that is the current page (`aria-current`). */
  readonly current?: "docs" | "status" | "dashboard" | undefined
  /** Stylesheets (same origin) before the shared one, e.g. the API reference's. */
  readonly styles?: ReadonlyArray<string> | undefined
  /** A full title, not suffixed with " · Herald" (the home page's). */
  readonly fullTitle?: boolean | undefined
}

export const defaultDescription =
  "Herald is a managed AI marketing team sold as an API: content with approvals, social publishing, SEO and GEO scans, analytics and an MCP server."

/**
 * Who publishes every page, for answer engines: the site and its author as
 * JSON-LD (a data block, which the pages' no-inline-script policy does not govern).
 */
const identity = JSON.stringify({
  "@context": "https://schema.org",
  "@type": "WebSite",
  name: "Herald",
  url: "/",
  description: defaultDescription,
  author: { "@type": "Organization", name: "Herald", url: "/" }
})

/** The two public standards Herald's interfaces follow, quoted and linked, so each page says what it builds on. */
const standards =
  html`<figure class="standards"><blockquote cite="https://modelcontextprotocol.io/specification/2025-06-18">Model Context Protocol (MCP) is an open protocol that enables seamless integration between LLM applications and external data sources and tools.</blockquote>
<figcaption>— <cite><a href="https://modelcontextprotocol.io/specification/2025-06-18">The Model Context Protocol specification</a></cite>, revision 2025-06-18. Herald builds on two open standards:
<ul><li>its MCP server follows <a href="https://modelcontextprotocol.io/specification/2025-06-18">the MCP specification</a>;</li>
<li>its REST API is described in <a href="https://spec.openapis.org/oas/v3.1.0">OpenAPI 3.1</a>: <a href="/openapi.json">Herald's document</a>.</li></ul></figcaption></figure>`

const navLinks = [
  ["docs", "/docs", "Docs"],
  ["status", "/status", "Status"],
  ["dashboard", "/dashboard", "Sign in"]
] as const

/**
 * The page shell every Herald page uses: one stylesheet (/assets/herald.css),
 * phone-width viewport, a description for search results, the header with
 * the site's links, one `main` landmark and the footer.
 */
export const layout = (page: Layout): Html => {
  const scripts = page.script === undefined ? [] : typeof page.script === "string" ? [page.script] : page.script
  return html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${page.referrer === undefined ? "" : html`<meta name="referrer" content="${page.referrer}">`}
<title>${page.fullTitle === true ? page.title : `${page.title} · Herald`}</title><meta name="description" content="${
    page.description ?? defaultDescription
  }">
<link rel="icon" href="data:,"><script type="application/ld+json">${
    unsafeRaw(identity.replaceAll("<", "\\u003c"))
  }</script>${
    (page.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`)
  }<link rel="stylesheet" href="/assets/herald.css">${
    scripts.map((src) => html`<script src="${src}" defer></script>`)
  }</head><body class="${page.bodyClass ?? ""}">
<a class="skip" href="#main">Skip to content</a>
<header class="topbar"><a class="brand" href="/"><span class="logo" aria-hidden="true">H</span> Herald</a>
<nav class="site-nav" aria-label="Site">${
    navLinks.map(([id, href, label]) =>
      html`<a href="${href}"${page.current === id ? html` aria-current="page"` : ""}>${label}</a>`
    )
  }</nav>${
    page.current === "dashboard" ? "" : html`<a class="button topbar-cta" href="/#signup-form">Get started</a>`
  }</header>
<main id="main">${page.body}${standards}</main>
<footer class="foot"><p>Herald · your AI marketing team</p><address class="foot-links"><a href="/docs">API reference</a> <a href="/status">Status</a> <a href="/llms.txt">llms.txt</a> <a href="/openapi.json">OpenAPI</a></address></footer>
</body></html>`
}

/** An error as an HTML page, with the request id to quote. */
export const errorPage = (status: number, message: string, requestId: string, extra?: Html): Html =>
  layout({
    title: `Error ${status}`,
    body: html`<section class="card narrow"><h1>${status === 404 ? "Not found" : "Something went wrong"}</h1>
<p class="lead">${message}</p>${extra ?? ""}
<p class="muted small">Request id: <code>${requestId}</code></p></section>`
  })

/** HTTP status of an error by its class's tag (unique, where a code may be shared), as domain/Errors.ts declares it. */
const statusByTag = new Map(errorClasses().map((facts) => [facts.tag, facts.status]))

/** A failure a page shows: its status and message (a domain error's own text). */
export const describeFailure = (value: unknown): { readonly status: number; readonly message: string } | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const { _tag, error } = value as { _tag?: unknown; error?: unknown }
  if (typeof _tag !== "string" || typeof error !== "string") return undefined
  const status = statusByTag.get(_tag)
  return status === undefined ? undefined : { status, message: error }
}

/**
 * Runs a page handler and answers any failure as an HTML error page with its
 * status (defects: 500, logged with the request id; nothing of them shown).
 */
export const htmlPage = <E, R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  Effect.catchCause(effect, (cause) =>
    Effect.flatMap(currentRequest, ({ requestId }) => {
      for (const reason of cause.reasons) {
        if (reason._tag !== "Fail") continue
        const described = describeFailure(reason.error)
        if (described !== undefined) {
          return Effect.succeed(
            htmlResponse(errorPage(described.status, described.message, requestId), { status: described.status })
          )
        }
      }
      // A database outage goes on to the HTTP core, which answers it 503 (as a page here) and counts it in
      // the outage log rather than logging an error per page.
      const outage = cause.reasons.find((reason) => reason._tag === "Die" && isDatabaseOutage(reason.defect))
      if (outage?._tag === "Die") return Effect.die(outage.defect)
      const unavailable = cause.reasons.some((reason) => reason._tag === "Die" && isSqlError(reason.defect))
      const status = unavailable ? 503 : 500
      const message = unavailable
        ? "The service is briefly unavailable; try again in a moment."
        : "An unexpected error occurred."
      return Effect.as(
        Effect.logError("page failed", cause).pipe(Effect.annotateLogs({ requestId })),
        htmlResponse(errorPage(status, message, requestId), { status })
      )
    }))

/** A form body (application/x-www-form-urlencoded), at most 64 KiB read. */
export const readForm = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* Effect.orElseSucceed(request.text, () => "")
  return new URLSearchParams(text.length > 65_536 ? "" : text)
})

/**
 * A change from a page must come from our own site when the browser says
 * where it comes from: `Sec-Fetch-Site` same-origin (or none: typed or
 * bookmarked), else an `Origin` equal to ours. Pages send no referrer, so
 * browsers may send `Origin: null` for our own forms; the session-bound form
 * token is what every change must carry regardless.
 */
export const sameOrigin = (request: HttpServerRequest.HttpServerRequest, baseUrl: string): boolean => {
  const site = request.headers["sec-fetch-site"]
  if (site !== undefined) return site === "same-origin" || site === "none"
  const origin = request.headers.origin
  if (origin === undefined || origin === "null") return true
  return origin === new URL(baseUrl).origin
}

/** Paths that are pages: every error on them is an HTML page. */
const pagePrefixes = ["/dashboard", "/checkout/"]
/** API paths whose success is HTML: their errors are HTML pages for a browser (Accept: text/html), JSON otherwise. */
const htmlApiPrefixes = ["/api/dashboard/"]

const isUnder = (path: string, prefix: string) =>
  path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`) ||
  (prefix.endsWith("/") && path.startsWith(prefix))

/** Whether an error answer to this request should be an HTML page: HTML pages answer their errors as HTML, the rest as JSON. */
export const wantsHtmlError = (url: string, accept: string | undefined): boolean => {
  const q = url.indexOf("?")
  const path = (q === -1 ? url : url.slice(0, q)).toLowerCase()
  if (pagePrefixes.some((prefix) => isUnder(path, prefix))) return true
  return accept !== undefined && accept.includes("text/html") &&
    htmlApiPrefixes.some((prefix) => path.startsWith(prefix))
}

/**
 * An error answer (the Error JSON shape) as the same error in an HTML page:
 * status and headers kept (Allow, Retry-After, WWW-Authenticate), the page headers added.
 */
export const toHtmlError = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string
): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.includes("json")) return response
  let message = "The request failed."
  try {
    const parsed = JSON.parse(body.text ?? new TextDecoder().decode(body.body))
    if (typeof parsed?.error === "string") message = parsed.error
  } catch {
    // keep the generic message
  }
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (name !== "content-type" && name !== "content-length" && typeof value === "string") headers[name] = value
  }
  return htmlResponse(errorPage(response.status, message, requestId), { status: response.status, headers })
}
