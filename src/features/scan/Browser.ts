import { Context, Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import type { IncomingHttpHeaders } from "node:http"
import type { Browser, BrowserContext, Page, Route } from "playwright-core"
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
 * blob URLs only besides; service workers and WebSockets are refused, and
 * WebRTC is off (launch flags, and the page's RTCPeerConnection removed), so
 * no packet leaves the browser but through that route. All subresources of
 * one page together get `scanScreenshotMaxBytes`; past it they are refused.
 * The page is hostile until shown otherwise: popups are closed, downloads
 * cancelled, dialogs dismissed, and every callback handed to playwright
 * catches its own failures (a throwing callback would end the process).
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

/** The page HTML the browser is given at most, as the scan's own fetch. */
const pageMaxBytes = 5 * 1024 * 1024

/**
 * One subresource at most (the rest of the page's budget, if smaller): the
 * body is handed to Chromium base64-encoded in one message, encoded on this
 * process's loop, so a large one would hold every other request up.
 */
const resourceMaxBytes = 2 * 1024 * 1024

const ignore = () => undefined

/** Whatever a hostile page reaches for to leave the route: peer connections and new windows. */
const lockdown = `(() => {
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCIceCandidate", "RTCSessionDescription"]) {
    try { Object.defineProperty(window, name, { value: undefined, configurable: false, writable: false }) } catch {}
  }
  try { Object.defineProperty(window, "open", { value: () => null, configurable: false, writable: false }) } catch {}
})()`

/**
 * Chromium's own WebRTC switches (no UDP but through a proxy, and there is
 * none), and a heap limit per renderer: a page that allocates without end
 * crashes its own tab early instead of taking gigabytes first.
 */
const hostileFlags = [
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--js-flags=--max-old-space-size=512"
]

interface Capture {
  readonly page: Page
  redirectedTo: string | undefined
  /** Bytes the page's subresources may still take. */
  budget: number
}

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
          "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage", ...hostileFlags]
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
   * A request of any other page (a popup the page managed to open) is refused.
   */
  const handle = async (state: Capture, route: Route) => {
    const request = route.request()
    const url = request.url()
    if (url.startsWith("data:") || url.startsWith("blob:")) return route.continue()
    const frame = request.frame()
    if (frame.page() !== state.page) return route.abort("blockedbyclient")
    const navigation = request.isNavigationRequest() && frame.parentFrame() === null
    // Each subresource may take what the page's budget has left (2 MiB at most); it is charged what it
    // used. Reserving the cap up front would refuse a fifth concurrent file of a few kilobytes.
    const allowance = navigation ? pageMaxBytes : Math.min(resourceMaxBytes, state.budget)
    if (allowance <= 0) return route.abort("blockedbyclient")
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(request.headers())) if (forwarded.includes(name)) headers[name] = value
    const body = request.postData() ?? undefined
    const response = await Effect.runPromise(safeFetch(url, {
      allowPrivateTargets: config.allowPrivateTargets,
      allowAddresses: config.scanAllowedAddresses,
      method: request.method(),
      headers,
      ...(body === undefined ? {} : { body }),
      maxRedirects: navigation ? 0 : 5,
      maxBytes: allowance
    })).catch(() => undefined)
    if (response === undefined) return await route.abort("blockedbyclient")
    if (!navigation) state.budget -= response.body.length
    const location = response.headers.location
    if (navigation && response.status >= 300 && response.status < 400 && location !== undefined) {
      state.redirectedTo = new URL(location, url).href
      return await route.abort("aborted")
    }
    return await route.fulfill({ status: response.status, headers: fulfilledHeaders(response.headers), body: response.body })
  }

  /** The route's callback: nothing it meets (a closed page, a frame gone, a bad URL) escapes it. */
  const guard = (state: Capture) => (route: Route) =>
    handle(state, route).catch(() => route.abort("blockedbyclient").catch(ignore))

  /** A popup, dialog or download the page starts goes nowhere; none of these callbacks can throw. */
  const contain = (context: BrowserContext, page: Page) => {
    context.on("page", (other) => {
      if (other !== page) other.close().catch(ignore)
    })
    page.on("dialog", (dialog) => {
      dialog.dismiss().catch(ignore)
    })
    page.on("download", (download) => {
      download.cancel().catch(ignore)
    })
    page.on("pageerror", ignore)
    page.on("crash", ignore)
  }

  const capture = async (context: BrowserContext, url: string): Promise<Uint8Array> => {
    await context.addInitScript(lockdown)
    await context.routeWebSocket(() => true, (ws) => {
      ws.close().catch(ignore)
    })
    const page = await context.newPage()
    const state: Capture = { page, redirectedTo: undefined, budget: config.scanScreenshotMaxBytes }
    contain(context, page)
    await context.route("**/*", guard(state))
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
            b.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: "block", javaScriptEnabled: true, acceptDownloads: false })
          )
        ),
        (context) => Effect.tryPromise(() => capture(context, url)),
        // A renderer stuck in a script may not answer the close: the scan does not wait for it past 5 s.
        (context) => Effect.promise(() => context.close().catch(ignore)).pipe(Effect.timeoutOption("5 seconds"))
      ).pipe(
        Effect.timeout("12 seconds"),
        Effect.map((png): Uint8Array | undefined => png),
        Effect.catchCause((cause) =>
          Effect.logWarning("screenshot failed", { url, cause: String(cause) }).pipe(Effect.as(undefined))
        )
      )

  return ScanBrowser.of({ available, screenshot })
})
