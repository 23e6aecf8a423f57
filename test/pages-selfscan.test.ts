import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { bearer, randomIp } from "./support/processes.ts"
import { signUp } from "./support/signup.ts"

/**
 * Dogfood: Herald's scanner, through its own API, over Herald's own public
 * pages served by the test server (its outbound guard allows loopback in
 * tests only). None may fail an SEO, GEO or CRO check. The one exception is
 * `cro.https`: the test server speaks plain HTTP, where a deployment serves
 * the same pages behind TLS.
 */
layer(testApp({ trustProxy: true }), { timeout: 180_000, excludeTestServices: true })(
  "Herald's own pages under its own scan",
  (it) => {
    it.effect(
      "home, docs, status, checkout, key-once, consent and sign-in pass every SEO, GEO and CRO check",
      () =>
        Effect.gen(function*() {
          const { url } = yield* TestServer
          const { customerId, apiKey, sessionId } = yield* signUp("selfscan@example.com")
          const checkout = yield* call("POST", "/api/checkout", {
            headers: { "x-forwarded-for": randomIp() },
            body: { email: "scan-me@example.com" }
          })
          const connect = yield* call("POST", `/api/connect/${customerId}`, {
            headers: bearer(apiKey),
            body: { platforms: ["linkedin"] }
          })
          const pages = {
            home: `${url}/`,
            docs: `${url}/docs`,
            status: `${url}/status`,
            checkout: checkout.json.url as string,
            keyOnce: `${url}/checkout/${sessionId}/success`,
            consent: connect.json.connectLinks.linkedin as string,
            signIn: `${url}/dashboard`
          }
          const failing: Record<string, Array<string>> = {}
          for (const [name, pageUrl] of Object.entries(pages)) {
            const scan = yield* call("POST", `/api/scan/${customerId}`, {
              headers: bearer(apiKey),
              body: { url: pageUrl }
            })
            assert.strictEqual(scan.status, 200, `${name}: ${scan.text}`)
            assert.strictEqual(scan.json.status, "done", `${name}: ${scan.text}`)
            const items = scan.json.checklist as Array<{ id: string; category: string; status: string; detail: string }>
            for (const category of ["seo", "geo", "cro"]) {
              assert.isAbove(
                items.filter((item) => item.category === category).length,
                5,
                `${name}: the ${category} checks ran`
              )
            }
            const fails = items.filter((item) => item.status === "fail" && item.id !== "cro.https").map((item) =>
              `${item.id}: ${item.detail}`
            )
            if (fails.length > 0) {
              failing[name] = fails
            }
          }
          assert.deepStrictEqual(failing, {})
        }),
      170_000
    )
  }
)
