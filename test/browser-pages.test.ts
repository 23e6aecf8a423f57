import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { launchBrowser, openPage, type WatchedPage } from "./support/browser.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { bearer, randomIp } from "./support/processes.ts"

/** Screenshots go to a fresh temporary directory (named in the test's output), never into the repository. */
const screens = mkdtempSync(join(tmpdir(), "herald-pages-"))

const widths = { desktop: 1280, phone: 390 } as const

/**
 * One page at one width: nothing wider than the screen, the key elements
 * visible, no console error so far (`allowed` names failed loads the page
 * makes on purpose), a full-page screenshot.
 */
const check = (watched: WatchedPage, name: string, visible: ReadonlyArray<string>, allowed?: RegExp) =>
  Effect.promise(async () => {
    const { page, problems } = watched
    const width = page.viewportSize()!.width
    const label = `${name} at ${width}px`
    await page.waitForLoadState("load")
    assert.isAtMost(
      await page.evaluate<number>("document.documentElement.scrollWidth"),
      width,
      `${label}: no horizontal scrolling`
    )
    for (const selector of visible) {
      assert.isTrue(await page.locator(selector).first().isVisible(), `${label}: ${selector} visible`)
    }
    assert.deepStrictEqual(
      problems.filter((p) => allowed === undefined || !allowed.test(p)),
      [],
      `${label}: console errors`
    )
    problems.length = 0
    await page.screenshot({ path: join(screens, `${name}-${width}.png`), fullPage: true })
  })

const go = (page: Page, url: string) => Effect.promise(() => page.goto(url))

/** Every text of every chart lies inside its chart's drawing: no label is cut. */
const chartLabelsFit = (page: Page) =>
  Effect.promise(() =>
    page.evaluate<Array<string>>(`[...document.querySelectorAll("svg.chart")].flatMap((svg) => {
      const box = svg.viewBox.baseVal
      return [...svg.querySelectorAll("text")].filter((t) => { const b = t.getBBox(); return b.x < 0 || b.x + b.width > box.width })
        .map((t) => t.textContent)
    })`)
  )

layer(testApp({ trustProxy: true }), { timeout: 120_000, excludeTestServices: true })(
  "public pages in Chromium",
  (it) => {
    it.effect(
      "home -> sign-up -> checkout -> key once with a copy button -> sign-in -> dashboard -> consent -> 'connected', at 1280 and 390 px",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const { url } = yield* TestServer
          console.log(`screenshots: ${screens}`)
          const browser = yield* launchBrowser
          const desktop = yield* openPage(browser, {
            width: widths.desktop,
            headers: { "x-forwarded-for": randomIp() }
          })
          const phone = yield* openPage(browser, {
            width: widths.phone,
            height: 844,
            headers: { "x-forwarded-for": randomIp() }
          })
          const { page } = desktop
          yield* Effect.promise(() =>
            page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: url })
          )

          // Home: sign-up, sign-in, docs and status; the form posts the checkout and lands on its page.
          const homeParts = [
            "main h1",
            "#signup-form input[name=email]",
            "#signup-form button",
            "a[href='/dashboard']",
            "a[href='/docs']",
            "a[href='/status']"
          ]
          for (const watched of [desktop, phone]) {
            yield* go(watched.page, `${url}/`)
            yield* check(watched, "home", homeParts)
          }
          yield* Effect.promise(() => page.fill("#signup-form input[name=email]", "pages@example.com"))
          yield* Effect.promise(() =>
            Promise.all([page.waitForURL(/\/checkout\/[^/]+$/), page.click("#signup-form button")])
          )
          assert.include(yield* Effect.promise(() => page.textContent("main")), "pages@example.com")
          yield* check(desktop, "checkout", ["h1", "text=Start free trial"])
          const phoneCheckout = yield* call("POST", "/api/checkout", {
            headers: { "x-forwarded-for": randomIp() },
            body: { email: "phone@example.com" }
          })
          yield* go(phone.page, phoneCheckout.json.url)
          yield* check(phone, "checkout", ["h1", "text=Start free trial"])

          // Key once: the copy button copies the key itself.
          yield* Effect.promise(() => Promise.all([page.waitForURL(/\/success$/), page.click("text=Start free trial")]))
          yield* Effect.promise(() => page.waitForSelector("#signup-api-key:not(:empty)"))
          const apiKey = (yield* Effect.promise(() => page.textContent("#signup-api-key")))!
          const customerId = (yield* Effect.promise(() => page.textContent("#signup-customer")))!
          yield* check(desktop, "key-once", [
            "#signup-api-key",
            "button[data-copy=signup-api-key]",
            "button[data-copy=signup-mcp]"
          ])
          yield* Effect.promise(() => page.click("button[data-copy=signup-api-key]"))
          yield* Effect.promise(() => page.locator("button[data-copy=signup-api-key]", { hasText: "Copied" }).waitFor())
          assert.strictEqual(
            yield* Effect.promise(() => page.evaluate<string>("navigator.clipboard.readText()")),
            apiKey
          )
          // At phone width the same page once the key was taken: it says so (the 410 is the browser's console line).
          yield* go(phone.page, page.url())
          yield* Effect.promise(() => phone.page.locator("#signup-status", { hasText: "already shown" }).waitFor())
          yield* check(phone, "key-once", ["#signup-status"], /status of 410/)

          // Sign-in, then the dashboard with its analytics charts (no impressions reported: no impressions chart).
          for (const watched of [phone, desktop]) {
            yield* go(watched.page, `${url}/dashboard`)
            yield* check(watched, "sign-in", ["input[name=apiKey]", "main button[type=submit]"])
            yield* Effect.promise(() => watched.page.fill("input[name=apiKey]", apiKey))
            yield* Effect.promise(() =>
              Promise.all([watched.page.waitForURL(`${url}/dashboard`), watched.page.click("main button[type=submit]")])
            )
            yield* check(watched, "dashboard", ["#queue", "#social", "#analytics svg.chart", "text=Sign out"])
            assert.deepStrictEqual(yield* chartLabelsFit(watched.page), [], "chart labels fit")
          }
          const charts = yield* Effect.promise(() =>
            page.locator("#analytics svg.chart").evaluateAll((svgs) => svgs.map((s) => s.getAttribute("aria-label")))
          )
          assert.deepStrictEqual(charts, [
            "Posts per channel, last 30 days",
            "Clicks per channel, last 30 days",
            "Revenue per channel, last 30 days"
          ])
          for (const label of ["LinkedIn", "Instagram", "Pinterest"]) {
            assert.isTrue(
              yield* Effect.promise(() =>
                page.locator("#analytics svg.chart text", { hasText: label }).first().isVisible()
              ),
              label
            )
          }

          // Connect LinkedIn: the consent page in the dashboard's style, then "LinkedIn connected".
          yield* Effect.promise(() =>
            Promise.all([
              page.waitForURL(/\/connect\/sandbox\?state=/),
              page.locator(`li[data-platform="linkedin"] button`).click()
            ])
          )
          yield* check(desktop, "consent", ["h1", "input[name=account]", "text=Allow", "header.topbar"])
          const consentLink = yield* call("POST", `/api/connect/${customerId}`, {
            headers: bearer(apiKey),
            body: { platforms: ["pinterest"] }
          })
          yield* go(phone.page, consentLink.json.connectLinks.pinterest)
          yield* check(phone, "consent", ["h1", "input[name=account]", "text=Allow"])
          yield* Effect.promise(() =>
            Promise.all([page.waitForURL(/\/dashboard\?connected=linkedin#social$/), page.click("text=Allow")])
          )
          assert.strictEqual(
            yield* Effect.promise(() => page.textContent("#connected-notice")),
            "LinkedIn connected as @linkedin-sandbox"
          )
          yield* check(desktop, "dashboard-connected", ["#connected-notice"])
          // A made-up confirmation is not shown: pinterest was not allowed.
          yield* go(page, `${url}/dashboard?connected=pinterest`)
          assert.strictEqual(yield* Effect.promise(() => page.locator("#connected-notice").count()), 0)

          // The API reference and the status page.
          for (const watched of [desktop, phone]) {
            yield* go(watched.page, `${url}/docs`)
            yield* Effect.promise(() => watched.page.waitForSelector(".opblock-summary", { timeout: 30_000 }))
            yield* check(watched, "docs", ["main h1", ".opblock-summary"])
            yield* go(watched.page, `${url}/status`)
            yield* check(watched, "status", ["main h1", ".badge"])
          }
        })),
      { timeout: 120_000 }
    )
  }
)
