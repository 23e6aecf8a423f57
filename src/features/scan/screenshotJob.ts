import { Effect } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import type { Browser, BrowserContext, Page, Route } from "playwright-core"
import { safeFetch } from "../../platform/OutboundGuard.ts"

/**
 * The screenshot's work on a third-party page, run in a page pool worker
 * (see platform/PagePool.ts) connected to the shared Chromium the service's
 * browser host runs (see browserHost.ts): the page, its routed requests and
 * the capture are driven from here, and the service receives the PNG only.
 * Chromium makes no request of its own: every http(s) request the page makes
 * is made by `safeFetch` (the outbound rules, checked on every redirect hop
 * and again at connect time) and its answer handed to the browser; data and
 * blob URLs only besides; service workers and WebSockets are refused, and
 * WebRTC is off (the host's launch flags, and the page's RTCPeerConnection
 * removed), so no packet leaves the browser but through that route. All
 * subresources of one page together get `maxBytes`; past it they are refused.
 * The page is hostile until shown otherwise: popups are closed, downloads
 * cancelled, dialogs dismissed, and every callback handed to playwright
 * catches its own failures (one that threw would end the worker).
 */
export interface ScreenshotInput {
  /** The browser host's Playwright endpoint. */
  readonly endpoint: string
  readonly url: string
  readonly allowPrivateTargets: boolean
  readonly allowAddresses: ReadonlyArray<string>
  /** Bytes the page's subresources may take together. */
  readonly maxBytes: number
}

export type ScreenshotOutcome =
  | { readonly ok: true; readonly png: Uint8Array }
  | { readonly ok: false; readonly reason: string }

export const screenshotJob = { module: new URL(import.meta.url).href, name: "takeScreenshot" } as const

/** Tallest screenshot taken, in CSS pixels. */
const maxHeight = 8_000

/** The whole screenshot, context to PNG; closing the context has 5 s more. */
export const screenshotMs = 12_000

/** Request headers worth passing on; the rest (cookies, encodings) are the browser's own business. */
const forwarded = ["accept", "accept-language", "content-type", "user-agent", "referer"]
/** Headers of the connection, not of the answer (the fulfilled body is whole and decoded as sent). */
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "upgrade",
  "proxy-connection"
])

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

interface Capture {
  readonly page: Page
  redirectedTo: string | undefined
  /** Bytes the page's subresources may still take. */
  budget: number
}

/**
 * The worker's connection to the browser host, kept across jobs (a connection
 * costs a handshake and a few protocol round trips); a new endpoint (the host
 * was started again after Chromium ended) or a lost connection makes a new one.
 */
let connection: { readonly endpoint: string; readonly browser: Promise<Browser> } | undefined

const browserAt = (endpoint: string): Promise<Browser> => {
  if (connection?.endpoint !== endpoint) {
    const current = {
      endpoint,
      browser: import("playwright-core").then(({ chromium }) => chromium.connect(endpoint, { timeout: 10_000 }))
    }
    connection = current
    current.browser.then((b) =>
      b.on("disconnected", () => {
        if (connection === current) connection = undefined
      }), () => {
      if (connection === current) connection = undefined
    })
  }
  return connection.browser
}

/**
 * Chromium follows a redirect by itself, without asking the route again
 * (a continued or fulfilled 3xx alike), so requests are made here:
 * subresources through safeFetch's own redirect handling; the page's
 * navigation one hop at a time, each hop a new navigation through this route.
 * A request of any other page (a popup the page managed to open) is refused.
 */
const handle = async (input: ScreenshotInput, state: Capture, route: Route) => {
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
    allowPrivateTargets: input.allowPrivateTargets,
    allowAddresses: input.allowAddresses,
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
  return await route.fulfill({
    status: response.status,
    headers: fulfilledHeaders(response.headers),
    body: response.body
  })
}

/** The route's callback: nothing it meets (a closed page, a frame gone, a bad URL) escapes it. */
const guard = (input: ScreenshotInput, state: Capture) => (route: Route) =>
  handle(input, state, route).catch(() => route.abort("blockedbyclient").catch(ignore))

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

const capture = async (input: ScreenshotInput, context: BrowserContext): Promise<Uint8Array> => {
  await context.addInitScript(lockdown)
  await context.routeWebSocket(() => true, (ws) => {
    ws.close().catch(ignore)
  })
  const page = await context.newPage()
  const state: Capture = { page, redirectedTo: undefined, budget: input.maxBytes }
  contain(context, page)
  await context.route("**/*", guard(input, state))
  for (let target = input.url, hop = 0;; hop++) {
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

/**
 * Run once by a new worker before it takes jobs: playwright-core is loaded
 * here, not by the module, so that the service (which imports this module for
 * the job's name) does not load it, and no first screenshot pays for it.
 */
export const warm = async (): Promise<void> => {
  await import("playwright-core")
}

const reasonOf = (error: unknown) => error instanceof Error ? error.message : String(error)

/**
 * A full-page PNG of the page, or why there is none. A failure is an answer,
 * not a throw: the worker keeps its connection for the next job (its context,
 * the page's only state, is closed either way).
 */
export const takeScreenshot = async (input: ScreenshotInput): Promise<ScreenshotOutcome> => {
  let context: BrowserContext | undefined
  let done = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the screenshot took longer than ${screenshotMs / 1000} s`)),
      screenshotMs
    )
  })
  overrun.catch(ignore)
  try {
    const work = browserAt(input.endpoint)
      .then((browser) =>
        browser.newContext({
          viewport: { width: 1280, height: 800 },
          serviceWorkers: "block",
          javaScriptEnabled: true,
          acceptDownloads: false
        })
      )
      .then((created) => {
        // A context that came after the job gave up is closed at once: nobody else would.
        if (done) return closeWithin(created, 5_000).then(() => Promise.reject(new Error("gave up")))
        context = created
        return capture(input, created)
      })
    work.catch(ignore)
    return { ok: true, png: await Promise.race([work, overrun]) }
  } catch (error) {
    return { ok: false, reason: reasonOf(error) }
  } finally {
    done = true
    clearTimeout(timer)
    // A renderer stuck in a script may not answer the close: the job does not wait for it past 5 s (its
    // context goes with the connection if the worker is ended).
    await closeWithin(context, 5_000)
  }
}

const closeWithin = async (context: BrowserContext | undefined, ms: number) => {
  if (context === undefined) return
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([
    context.close().catch(ignore),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  ])
  clearTimeout(timer)
}
