import { Context, Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import type { IncomingHttpHeaders } from "node:http"
import type { Browser, BrowserContext, Route } from "playwright-core"
import { AppConfig } from "../../Config.ts"
import { safeFetch } from "../../platform/OutboundGuard.ts"

/** Tallest screenshot taken, in CSS pixels. */
const maxHeight = 8_000

/**
 * Full-page screenshots with the machine's Chromium, driven by playwright-core.
 * One browser process serves every scan: launched on the first screenshot,
 * closed with the app; each screenshot gets its own incognito context.
 * Chromium makes no request of its own: every http(s) request the page makes
 * is made by `safeFetch` (the outbound rules, checked on every redirect hop
 * and again at connect time) and its answer handed to the browser; data and
 * blob URLs only besides; service workers and WebSockets are refused.
 * Without Chromium `screenshot` answers undefined and scans go on without one.
 */
export class ScanBrowser extends Context.Service<ScanBrowser, {
  readonly available: boolean
  /** A full-page PNG of `url`, or undefined when there is no browser or it did not finish in time. */
  readonly screenshot: (url: string) => Effect.Effect<Uint8Array | undefined>
}>()("herald/features/scan/ScanBrowser") {
  static readonly layer = Layer.effect(ScanBrowser, Effect.suspend(() => make))
}

/** Request headers worth passing on; the rest (cookies, encodings) are the browser's own business. */
const forwarded = ["accept", "accept-language", "content-type", "user-agent", "referer"]
/** Headers of the connection, not of the answer (the fulfilled body is whole and decoded as sent). */
const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "proxy-connection"])

const fulfilledHeaders = (headers: IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHop.has(name)) continue
    out[name] = Array.isArray(value) ? value.join(name === "set-cookie" ? "\n" : ", ") : value
  }
  return out
}

/** Redirects of the page itself the browser is sent through, as safeFetch allows. */
const maxNavigationHops = 5

const make = Effect.gen(function*() {
  const config = yield* AppConfig
  const path = config.chromiumPath
  const available = path !== undefined && existsSync(path)
  let launching: Promise<Browser> | undefined

  const browser = (): Promise<Browser> => {
    if (launching === undefined) {
      // playwright-core is loaded with the first screenshot: it costs ~270 ms of every start otherwise.
      launching = import("playwright-core").then(({ chromium }) => chromium.launch({
        executablePath: path!,
        args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
      }))
      const current = launching
      current.then((b) => b.on("disconnected", () => {
        if (launching === current) launching = undefined
      }), () => {
        if (launching === current) launching = undefined
      })
    }
    return launching
  }

  yield* Effect.addFinalizer(() =>
    launching === undefined
      ? Effect.void
      : Effect.promise(() => launching!.then((b) => b.close(), () => undefined)).pipe(Effect.ignore)
  )

  /**
   * Chromium follows a redirect by itself, without asking the route again
   * (a continued or fulfilled 3xx alike), so requests are made here:
   * subresources through safeFetch's own redirect handling; the page's
   * navigation one hop at a time, each hop a new navigation through this route.
   */
  const guard = (state: { redirectedTo: string | undefined }) => (route: Route) => {
    const request = route.request()
    const url = request.url()
    if (url.startsWith("data:") || url.startsWith("blob:")) return route.continue()
    const navigation = request.isNavigationRequest() && request.frame().parentFrame() === null
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(request.headers())) if (forwarded.includes(name)) headers[name] = value
    const body = request.postData() ?? undefined
    return Effect.runPromise(safeFetch(url, {
      allowPrivateTargets: config.allowPrivateTargets,
      allowAddresses: config.scanAllowedAddresses,
      method: request.method(),
      headers,
      ...(body === undefined ? {} : { body }),
      maxRedirects: navigation ? 0 : 5
    })).then((response) => {
      const location = response.headers.location
      if (navigation && response.status >= 300 && response.status < 400 && location !== undefined) {
        state.redirectedTo = new URL(location, url).href
        return route.abort("aborted")
      }
      return route.fulfill({ status: response.status, headers: fulfilledHeaders(response.headers), body: response.body })
    }, () => route.abort("blockedbyclient")).catch(() => undefined)
  }

  const capture = async (context: BrowserContext, url: string): Promise<Uint8Array> => {
    const state = { redirectedTo: undefined as string | undefined }
    await context.route("**/*", guard(state))
    await context.routeWebSocket(() => true, (ws) => ws.close())
    const page = await context.newPage()
    for (let target = url, hop = 0;; hop++) {
      state.redirectedTo = undefined
      try {
        await page.goto(target, { waitUntil: "load", timeout: 10_000 })
        break
      } catch (error) {
        if (state.redirectedTo === undefined || hop >= maxNavigationHops) throw error
        target = state.redirectedTo
      }
    }
    // A very long page is cut at maxHeight: a full capture of it would be
    // tens of megabytes and beyond what Chromium paints in one pass.
    const height = await page.evaluate("document.documentElement.scrollHeight") as number
    return height > maxHeight
      ? await page.screenshot({ type: "png", clip: { x: 0, y: 0, width: 1280, height: maxHeight }, timeout: 5_000 })
      : await page.screenshot({ fullPage: true, type: "png", timeout: 5_000 })
  }

  const screenshot = (url: string): Effect.Effect<Uint8Array | undefined> =>
    !available
      ? Effect.succeed(undefined)
      : Effect.acquireUseRelease(
        Effect.tryPromise(() =>
          browser().then((b) =>
            b.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: "block", javaScriptEnabled: true })
          )
        ),
        (context) => Effect.tryPromise(() => capture(context, url)),
        (context) => Effect.promise(() => context.close().catch(() => undefined))
      ).pipe(
        Effect.timeout("12 seconds"),
        Effect.map((png): Uint8Array | undefined => png),
        Effect.catchCause((cause) =>
          Effect.logWarning("screenshot failed", { url, cause: String(cause) }).pipe(Effect.as(undefined))
        )
      )

  return ScanBrowser.of({ available, screenshot })
})
