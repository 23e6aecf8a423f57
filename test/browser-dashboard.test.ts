import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { launchBrowser, openPage, screenshot } from "./support/browser.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { bearer, randomIp } from "./support/processes.ts"
import { signUp } from "./support/signup.ts"

const markup = "<b>Bold</b> launch & <script>alert(1)</script>"

layer(testApp({ trustProxy: true }), { timeout: 90_000, excludeTestServices: true })("dashboard in a browser", (it) => {
  it.effect(
    "sign in, approve from the queue, markup shown as text, no console errors, CSRF refusal, sign out",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { url } = yield* TestServer
        const { customerId, apiKey } = yield* signUp("dash-browser@example.com")
        const pieces: Array<string> = []
        for (const title of [markup, "Spring newsletter", "Product Hunt teaser"]) {
          const res = yield* call("POST", `/api/content/${customerId}`, {
            headers: bearer(apiKey),
            body: { type: "blog", title, body: `Draft of ${title}`, submit: true }
          })
          pieces.push(res.json.id)
        }
        const browser = yield* launchBrowser
        const { page, problems } = yield* openPage(browser, { headers: { "x-forwarded-for": randomIp() } })

        yield* Effect.promise(() => page.goto(`${url}/dashboard`))
        yield* screenshot(page, "dashboard-sign-in-desktop")
        yield* Effect.promise(() => page.fill("input[name=apiKey]", "svc_live_wrong"))
        yield* Effect.promise(() => page.click("button[type=submit]"))
        assert.include(yield* Effect.promise(() => page.textContent(".notice.error")), "Invalid API key")

        yield* Effect.promise(() => page.fill("input[name=apiKey]", apiKey))
        yield* Effect.promise(() =>
          Promise.all([page.waitForURL(`${url}/dashboard`), page.click("button[type=submit]")])
        )
        assert.include(yield* Effect.promise(() => page.textContent("h1")), "dash-browser@example.com")
        const cookies = yield* Effect.promise(() => page.context().cookies())
        const session = cookies.find((c) => c.name === "herald_session")!
        assert.isTrue(session.httpOnly)
        assert.strictEqual(session.sameSite, "Lax")
        assert.isUndefined(
          yield* Effect.promise(() =>
            page.evaluate<string | undefined>("document.cookie.split('; ').find(c => c.startsWith('herald_session'))")
          )
        )

        // Titles with markup render as text: no element was made from them.
        const titles = yield* Effect.promise(() => page.locator("#queue .item-title").allTextContents())
        assert.include(titles, markup)
        assert.strictEqual(yield* Effect.promise(() => page.locator("#queue b").count()), 0)
        yield* screenshot(page, "dashboard-desktop")

        // Approve the middle piece from the queue.
        const item = page.locator(`li[data-content-id="${pieces[1]}"]`)
        yield* Effect.promise(() => item.locator("input[name=note]").fill("Looks great"))
        yield* Effect.promise(() =>
          Promise.all([page.waitForURL(/\/dashboard#queue$/), item.locator("button[value=approve]").click()])
        )
        const approved = yield* call("GET", `/api/content/${customerId}/${pieces[1]}`, { headers: bearer(apiKey) })
        assert.strictEqual(approved.json.status, "approved")
        assert.strictEqual(approved.json.reviewNote, "Looks great")
        assert.strictEqual(
          yield* Effect.promise(() => page.locator(`#queue li[data-content-id="${pieces[1]}"]`).count()),
          0
        )

        // A change without the token is refused, even from the signed-in browser.
        const refused = yield* Effect.promise(() =>
          page.evaluate<number>(`fetch("/dashboard/content/${pieces[2]}/review", {
          method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "action=approve"
        }).then((r) => r.status)`)
        )
        assert.strictEqual(refused, 403)
        const untouched = yield* call("GET", `/api/content/${customerId}/${pieces[2]}`, { headers: bearer(apiKey) })
        assert.strictEqual(untouched.json.status, "pending_approval")

        // Phone width: readable, nothing wider than the screen.
        const phone = yield* openPage(browser, { width: 390, height: 844 })
        yield* Effect.promise(() => phone.page.context().addCookies([{ ...session }]))
        yield* Effect.promise(() => phone.page.goto(`${url}/dashboard`))
        yield* screenshot(phone.page, "dashboard-phone")
        assert.isAtMost(
          yield* Effect.promise(() => phone.page.evaluate<number>("document.documentElement.scrollWidth")),
          390
        )

        yield* Effect.promise(() => Promise.all([page.waitForURL(`${url}/dashboard`), page.click("text=Sign out")]))
        assert.strictEqual(yield* Effect.promise(() => page.locator("input[name=apiKey]").count()), 1)
        assert.isUndefined(
          (yield* Effect.promise(() => page.context().cookies())).find((c) => c.name === "herald_session")
        )

        // The failed sign-in (401) and the refused fetch (403) are the only console lines: the browser logs failed loads.
        assert.deepStrictEqual(problems.filter((p) => !/status of (?:401|403)/.test(p)), [])
        assert.deepStrictEqual(phone.problems, [])
      })),
    { timeout: 60_000 }
  )
})
