import { Context, Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { type Browser, chromium, type BrowserContext, type Route } from "playwright-core"
import { AppConfig } from "../../Config.ts"
import { checkTarget } from "../../platform/OutboundGuard.ts"

/** Tallest screenshot taken, in CSS pixels. */
const maxHeight = 8_000

/**
 * Full-page screenshots with the machine's Chromium, driven by playwright-core.
 * One browser process serves every scan: launched on the first screenshot,
 * closed with the app; each screenshot gets its own incognito context. Every
 * request the page makes passes the outbound rules (http(s), data and blob
 * only; no private addresses unless ALLOW_PRIVATE_TARGETS), service workers
 * and WebSockets are refused. Without Chromium `screenshot` answers
 * undefined and scans go on without one.
 */
export class ScanBrowser extends Context.Service<ScanBrowser, {
  readonly available: boolean
  /** A full-page PNG of `url`, or undefined when there is no browser or it did not finish in time. */
  readonly screenshot: (url: string) => Effect.Effect<Uint8Array | undefined>
}>()("herald/features/scan/ScanBrowser") {
  static readonly layer = Layer.effect(ScanBrowser, Effect.gen(function*() {
    const config = yield* AppConfig
    const path = config.chromiumPath
    const available = path !== undefined && existsSync(path)
    let launching: Promise<Browser> | undefined

    const browser = (): Promise<Browser> => {
      if (launching === undefined) {
        launching = chromium.launch({
          executablePath: path!,
          args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
        })
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

    const guard = (route: Route) => {
      const url = route.request().url()
      if (url.startsWith("data:") || url.startsWith("blob:")) return route.continue()
      return Effect.runPromise(Effect.result(checkTarget(url, config.allowPrivateTargets))).then(
        (result) => result._tag === "Success" ? route.continue() : route.abort("blockedbyclient"),
        () => route.abort("blockedbyclient")
      ).catch(() => undefined)
    }

    const capture = async (context: BrowserContext, url: string): Promise<Uint8Array> => {
      await context.route("**/*", guard)
      await context.routeWebSocket(() => true, (ws) => ws.close())
      const page = await context.newPage()
      await page.goto(url, { waitUntil: "load", timeout: 10_000 })
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
  }))
}
