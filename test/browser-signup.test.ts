import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { launchBrowser, openPage, screenshot } from "./support/browser.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { randomIp } from "./support/processes.ts"

layer(testApp({ trustProxy: true }), { timeout: 90_000, excludeTestServices: true })("sign-up in a browser", (it) => {
  it.effect(
    "checkout page -> Start free trial -> key shown once -> reload shows none -> the key works",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { url } = yield* TestServer
        const ip = randomIp()
        const browser = yield* launchBrowser
        const { page, problems } = yield* openPage(browser, { headers: { "x-forwarded-for": ip } })

        const started = yield* call("POST", "/api/checkout", {
          headers: { "x-forwarded-for": ip },
          body: { email: "browser@example.com" }
        })
        assert.strictEqual(started.status, 200)
        yield* Effect.promise(() => page.goto(started.json.url))
        assert.include(yield* Effect.promise(() => page.textContent("h1")), "Herald Pro")
        assert.include(yield* Effect.promise(() => page.textContent("main")), "browser@example.com")
        yield* screenshot(page, "checkout-desktop")

        yield* Effect.promise(() => page.click("text=Start free trial"))
        yield* Effect.promise(() => page.waitForURL(/\/success$/, { timeout: 10_000 }))
        yield* Effect.promise(() => page.waitForSelector("#signup-api-key:not(:empty)", { timeout: 10_000 }))
        const apiKey = (yield* Effect.promise(() => page.textContent("#signup-api-key")))!
        const mcp = (yield* Effect.promise(() => page.textContent("#signup-mcp")))!
        const customerId = (yield* Effect.promise(() => page.textContent("#signup-customer")))!
        assert.match(apiKey, /^svc_live_[0-9a-f]{64}$/)
        assert.strictEqual(mcp, `${url}/mcp/sse?token=${apiKey}`)
        assert.include(yield* Effect.promise(() => page.textContent("#signup-status")), "shown only this once")
        yield* screenshot(page, "signup-success-desktop")

        // The key is not in the page's HTML: it came from the one API answer.
        const html = yield* call("GET", new URL(page.url()).pathname)
        assert.notInclude(html.text, apiKey)

        yield* Effect.promise(() => page.reload())
        yield* Effect.promise(() =>
          page.locator("#signup-status", { hasText: "already shown" }).waitFor({ timeout: 10_000 })
        )
        assert.isTrue(yield* Effect.promise(() => page.isHidden("#signup-key")))
        assert.strictEqual(yield* Effect.promise(() => page.textContent("#signup-api-key")), "")

        const customer = yield* call("GET", `/api/customer/${customerId}`, {
          headers: { authorization: `Bearer ${apiKey}` }
        })
        assert.strictEqual(customer.status, 200)
        assert.strictEqual(customer.json.status, "onboarding")
        assert.strictEqual(customer.json.email, "browser@example.com")
        // The 410 of the reload is the only console message: the browser logs failed fetches.
        assert.deepStrictEqual(problems.filter((p) => !p.includes("410")), [])

        const phone = yield* openPage(browser, { width: 390, height: 844, headers: { "x-forwarded-for": ip } })
        const second = yield* call("POST", "/api/checkout", {
          headers: { "x-forwarded-for": ip },
          body: { email: "phone@example.com" }
        })
        yield* Effect.promise(() => phone.page.goto(second.json.url))
        yield* screenshot(phone.page, "checkout-phone")
        const width = yield* Effect.promise(() => phone.page.evaluate<number>("document.documentElement.scrollWidth"))
        assert.isAtMost(width, 390, "no horizontal scrolling at phone width")
      })),
    { timeout: 60_000 }
  )
})
