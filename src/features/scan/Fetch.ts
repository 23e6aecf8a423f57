import { Effect } from "effect"
import { OutboundError, safeFetch, type SafeResponse } from "../../platform/OutboundGuard.ts"

/** An auxiliary file of the site: its status (null when no answer came) and, on 2xx, its text. */
export interface SiteFile {
  readonly url: string
  readonly status: number | null
  readonly content: string | null
  readonly error: string | undefined
}

/** What the checks read: the page as fetched and the site files beside it. */
export interface SiteSnapshot {
  readonly requestedUrl: string
  /** The URL that answered, after redirects. */
  readonly url: string
  readonly status: number
  /** Response headers, names in lower case, repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  readonly html: string
  readonly bytes: number
  /** Time to the whole page, redirects included. */
  readonly elapsedMs: number
  readonly robots: SiteFile
  readonly llms: SiteFile
  /** A HEAD of /llms-full.txt (the community's full-corpus companion): its status only. */
  readonly llmsFull: SiteFile
  readonly sitemap: SiteFile
  readonly fetchedAt: Date
}

/** Why a page could not be scanned, as a person reads it. */
export class PageUnavailable extends Error {
  readonly _tag = "PageUnavailable"
}

export interface FetchOptions {
  readonly allowPrivateTargets: boolean
  /** Exact addresses let through although not public (SCAN_ALLOWED_ADDRESSES). */
  readonly allowAddresses?: ReadonlyArray<string>
  readonly timeoutMs?: number
  readonly maxBytes?: number
}

const userAgent = "Mozilla/5.0 (compatible; HeraldScanner/1.0)"

/** The headers every page request sends: who asks, and that HTML is wanted. */
export const pageRequestHeaders = {
  "user-agent": userAgent,
  accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
} as const

/** A response's headers as one lower-case name to one value (repeated ones joined). */
export const headerRecord = (response: SafeResponse): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const charsetOf = (contentType: string | undefined): string => {
  const match = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")
  return match?.[1] ?? "utf-8"
}

export const decodeBody = (body: Uint8Array, contentType: string | undefined): string => {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(body)
  } catch {
    return new TextDecoder("utf-8").decode(body)
  }
}

const isHtmlType = (contentType: string | undefined, body: string): boolean => {
  if (contentType === undefined || contentType.trim() === "") return /^\s*</.test(body)
  const type = contentType.split(";")[0].trim().toLowerCase()
  return type === "text/html" || type === "application/xhtml+xml"
}

/** A person's reading of an outbound failure. */
export const describeFailure = (error: OutboundError): string => {
  switch (error.reason) {
    case "address":
      return `Refused: ${error.message}`
    case "scheme":
      return "Refused: only http and https pages can be scanned"
    case "redirects":
      return "Too many redirects (more than 5)"
    case "timeout":
      return "The page did not answer within 10 seconds"
    case "too_large":
      return "The page is larger than 5 MiB"
    case "network":
      return `The page is unreachable (${error.message})`
  }
}

/** A site file may take this long, and never past the scan's deadline. */
const fileTimeoutMs = 5_000

/** robots.txt gets what Lighthouse's fetcher gives it: later counts as unfetchable (robots-txt fails). */
const robotsTimeoutMs = 2_000

/** Everything fetched for one scan is done by then (ms after it started), so a scan answers within 15 s. */
const budgetMs = 13_500

const fetchFile = (
  url: string,
  options: FetchOptions,
  deadline: number,
  method = "GET",
  limitMs = fileTimeoutMs
): Effect.Effect<SiteFile> => {
  const timeoutMs = Math.min(options.timeoutMs ?? limitMs, limitMs, deadline - performance.now())
  if (timeoutMs <= 0) {
    return Effect.succeed({ url, status: null, content: null, error: "not fetched: the scan ran out of time" })
  }
  return safeFetch(url, {
    allowPrivateTargets: options.allowPrivateTargets,
    allowAddresses: options.allowAddresses ?? [],
    method,
    headers: { "user-agent": userAgent },
    timeoutMs,
    maxBytes: options.maxBytes ?? 5 * 1024 * 1024
  }).pipe(
    Effect.map((response): SiteFile => ({
      url,
      status: response.status,
      content: response.status >= 200 && response.status < 300
        ? decodeBody(response.body, headerRecord(response)["content-type"])
        : null,
      error: undefined
    })),
    Effect.catch((error) =>
      Effect.succeed<SiteFile>({
        url,
        status: null,
        content: null,
        error: error.reason === "timeout" ? `no answer within ${Math.round(timeoutMs)} ms` : error.message
      })
    )
  )
}

/** The site files of an origin: robots.txt, llms.txt (and a HEAD of llms-full.txt) and the conventional sitemap, concurrently. */
const siteFiles = (origin: string, options: FetchOptions, deadline: number) =>
  Effect.all({
    robots: fetchFile(`${origin}/robots.txt`, options, deadline, "GET", robotsTimeoutMs),
    llms: fetchFile(`${origin}/llms.txt`, options, deadline),
    llmsFull: fetchFile(`${origin}/llms-full.txt`, options, deadline, "HEAD"),
    sitemap: fetchFile(`${origin}/sitemap.xml`, options, deadline)
  }, { concurrency: "unbounded" })

const firstSitemap = (robots: string | null): string | undefined => {
  for (const line of (robots ?? "").split(/\r\n|\r|\n/)) {
    const match = /^\s*sitemap\s*:\s*(\S+)/i.exec(line)
    if (match !== null && URL.canParse(match[1])) return match[1]
  }
  return undefined
}

/**
 * Fetches the page through the outbound guard and, at the same time, the
 * origin's robots.txt, llms.txt and sitemap; when redirects end on another
 * origin its files are fetched too (they are the ones that govern the page),
 * and a sitemap that robots.txt names elsewhere is fetched in its place.
 * Fails with a person's reason when the page is refused, unreachable, too
 * large, too slow or not HTML. The page has 10 s, robots.txt 2 s (as in Lighthouse), the other site files 5 s, and
 * nothing is fetched past 13.5 s, so a scan answers within 15 s.
 */
export const fetchSite = (requestedUrl: string, options: FetchOptions): Effect.Effect<SiteSnapshot, PageUnavailable> =>
  Effect.gen(function*() {
    const parsed = URL.parse(requestedUrl)
    if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      return yield* Effect.fail(new PageUnavailable("Refused: only absolute http and https URLs can be scanned"))
    }
    const origin = parsed.origin
    const started = performance.now()
    const deadline = started + budgetMs
    const [page, early] = yield* Effect.all([
      safeFetch(requestedUrl, {
        allowPrivateTargets: options.allowPrivateTargets,
        allowAddresses: options.allowAddresses ?? [],
        headers: pageRequestHeaders,
        timeoutMs: options.timeoutMs ?? 10_000,
        maxBytes: options.maxBytes ?? 5 * 1024 * 1024
      }).pipe(
        Effect.map((response) => ({ response, elapsedMs: Math.round(performance.now() - started) })),
        Effect.mapError((error) => new PageUnavailable(describeFailure(error)))
      ),
      siteFiles(origin, options, deadline)
    ], { concurrency: "unbounded" })
    const headers = headerRecord(page.response)
    const html = decodeBody(page.response.body, headers["content-type"])
    if (!isHtmlType(headers["content-type"], html)) {
      return yield* Effect.fail(
        new PageUnavailable(
          `Not an HTML page (Content-Type: ${headers["content-type"] ?? "none"})`
        )
      )
    }
    const finalOrigin = new URL(page.response.url).origin
    let files = finalOrigin === origin ? early : yield* siteFiles(finalOrigin, options, deadline)
    const named = firstSitemap(files.robots.content)
    if (named !== undefined && named !== files.sitemap.url && files.sitemap.content === null) {
      files = { ...files, sitemap: yield* fetchFile(named, options, deadline) }
    }
    return {
      requestedUrl,
      url: page.response.url,
      status: page.response.status,
      headers,
      html,
      bytes: page.response.body.length,
      elapsedMs: page.elapsedMs,
      ...files,
      fetchedAt: new Date()
    }
  })
