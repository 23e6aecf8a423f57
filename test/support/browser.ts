import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"

export const artifactsDir = fileURLToPath(new URL("../../test-artifacts/", import.meta.url))

/** Debian Chromium, headless, for the duration of the scope. */
export const launchBrowser = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update"
      ]
    })
  ),
  (browser) => Effect.promise(() => browser.close())
)

export interface WatchedPage {
  readonly page: Page
  /** Console errors, page errors and failed requests seen so far. */
  readonly problems: Array<string>
}

/** A page that records console errors and uncaught exceptions (CSP violations included). */
export const openPage = (
  browser: Browser,
  options: { width?: number; height?: number; headers?: Record<string, string> } = {}
) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<WatchedPage> => {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
        extraHTTPHeaders: options.headers ?? {}
      })
      const page = await context.newPage()
      const problems: Array<string> = []
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console: ${message.text()}`)
      })
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`))
      return { page, problems }
    }),
    ({ page }) => Effect.promise(() => page.context().close())
  )

export const screenshot = (page: Page, name: string) =>
  Effect.promise(async () => {
    mkdirSync(artifactsDir, { recursive: true })
    await page.screenshot({ path: `${artifactsDir}${name}.png`, fullPage: true })
  })
