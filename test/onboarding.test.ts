import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { freePort, testApp, TestServer } from "./support/harness.ts"
import { customerApi } from "./support/processes.ts"
import { sites } from "./support/scan-sites.ts"
import { servedSites } from "./support/served-sites.ts"

const site = servedSites()

const live = { timeout: 60_000, excludeTestServices: true }

describe("onboarding", () => {
  layer(testApp(), live)("from a URL", (it) => {
    it.effect("starts onboarding with an event", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        for (const body of [undefined, {}]) {
          const res = yield* api("POST", "/api/onboard/{c}", body)
          assert.strictEqual(res.status, 200)
          assert.strictEqual(res.json.status, "onboarding_started")
          // The social connect links of every platform, each a consent page of this server (sandbox provider).
          assert.deepStrictEqual(Object.keys(res.json.connectLinks).sort(), [
            "facebook",
            "instagram",
            "linkedin",
            "pinterest",
            "tiktok",
            "x"
          ])
          for (const link of Object.values<string>(res.json.connectLinks)) {
            const consent = yield* Effect.promise(() => fetch(link))
            assert.strictEqual(consent.status, 200, link)
          }
        }
        const bad = yield* api("POST", "/api/onboard/{c}", { extra: true })
        assert.strictEqual(bad.status, 400)
        const events = (yield* api("GET", "/api/events/{c}")).json.events
        assert.strictEqual(events.filter((e: any) => e.type === "onboarding.started").length, 2)
      }))

    it.effect("extracts what the page says about the brand", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        const { origin } = yield* site(sites.brand)
        const res = yield* api("POST", "/api/onboard/{c}/auto-extract", { url: `${origin}/` })
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(res.json, {
          brandName: "Northwind Coffee",
          description: "Northwind roasts single-origin coffee for home baristas and small cafes.",
          logoUrl: `${origin}/img/northwind-logo.svg`,
          ogImage: `${origin}/img/northwind-share.jpg`,
          colors: ["#7a3e1d", "#f2a541"],
          voice: ["conversational", "personal", "informal", "concise", "data-driven"],
          audience: ["home baristas", "home baristas and small cafes"],
          products: ["Ethiopia Yirgacheffe", "House Espresso Blend"],
          socials: {
            instagram: "https://www.instagram.com/northwindcoffee",
            x: "https://twitter.com/northwind",
            linkedin: "https://www.linkedin.com/company/northwind"
          },
          sourceUrl: `${origin}/`
        })
        const well = yield* site(sites.wellMarkedUp)
        const acme = (yield* api("POST", "/api/onboard/{c}/auto-extract", { url: `${well.origin}/` })).json
        assert.strictEqual(acme.brandName, "Acme Analytics")
        assert.deepStrictEqual(acme.products, ["Acme"])
        assert.deepStrictEqual(acme.audience, ["SaaS teams"])
      }))

    it.effect("never invents: a page that says nothing gives nulls and empties", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        const { origin } = yield* site(sites.bare)
        const res = yield* api("POST", "/api/onboard/{c}/auto-extract", { url: `${origin}/` })
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(res.json, {
          brandName: null,
          description: null,
          logoUrl: null,
          ogImage: null,
          colors: [],
          voice: [],
          audience: [],
          products: [],
          socials: {},
          sourceUrl: `${origin}/`
        })
      }))

    it.effect("400 for a url that is not http(s); 422 E_FETCH_FAILED for a page it cannot fetch", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        for (const url of ["ftp://example.com/", "mailto:a@b.c", "nope"]) {
          const res = yield* api("POST", "/api/onboard/{c}/auto-extract", { url })
          assert.strictEqual(res.status, 400)
          assert.strictEqual(res.json.code, "E_VALIDATION")
        }
        const closed = yield* Effect.promise(freePort)
        const notFound = yield* site(sites.notFound)
        const json = yield* site(sites.nonHtml)
        const loop = yield* site(sites.redirectLoop)
        for (
          const url of [
            `http://127.0.0.1:${closed}/`,
            `${notFound.origin}/missing`,
            `${json.origin}/`,
            `${loop.origin}/a`
          ]
        ) {
          const res = yield* api("POST", "/api/onboard/{c}/auto-extract", { url })
          assert.strictEqual(res.status, 422, url)
          assert.strictEqual(res.json.code, "E_FETCH_FAILED")
          assert.match(res.json.error, /^The page could not be fetched/)
        }
      }))

    it.effect("confirm-profile stores the profile, sets the brand name and activates the customer once", () =>
      Effect.gen(function*() {
        const { api, customerId } = yield* customerApi
        const before = yield* api("GET", "/api/customer/{c}")
        assert.strictEqual(before.json.status, "onboarding")
        const profile = {
          brandName: "Northwind Coffee",
          description: "Small-batch roasts.",
          logoUrl: "https://northwind.example/logo.png",
          colors: ["#7a3e1d", "#FFFFFF"],
          voice: ["warm"],
          audience: ["home baristas"],
          products: ["Espresso beans"],
          socials: { instagram: "https://instagram.com/northwind" },
          sourceUrl: "https://northwind.example/"
        }
        const res = yield* api("POST", "/api/onboard/{c}/confirm-profile", profile)
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(res.json, { customerId, status: "active", brandName: "Northwind Coffee", profile })
        const after = (yield* api("GET", "/api/customer/{c}")).json
        assert.strictEqual(after.status, "active")
        assert.strictEqual(after.brandName, "Northwind Coffee")
        const { sql } = yield* TestServer
        const storedProfile = Effect.gen(function*() {
          const rows = yield* sql<
            { profile: unknown }
          >`SELECT profile FROM brand_profiles WHERE customer_id = ${customerId}`
          return typeof rows[0].profile === "string" ? JSON.parse(rows[0].profile) : rows[0].profile
        })
        assert.deepStrictEqual(yield* storedProfile, profile)

        // Each field is typed; the error names it; nothing is stored.
        const refused: ReadonlyArray<readonly [unknown, string]> = [
          [{}, "body.brandName"],
          [{ voice: ["bold"] }, "body.brandName"],
          [{ brandName: "" }, "body.brandName"],
          [{ brandName: "   " }, "body.brandName"],
          [{ brandName: 42 }, "body.brandName"],
          [{ brandName: "b".repeat(201) }, "body.brandName"],
          [{ brandName: "N", colors: "red" }, "body.colors"],
          [{ brandName: "N", colors: ["red"] }, "body.colors.0"],
          [{ brandName: "N", colors: ["#12345"] }, "body.colors.0"],
          [{ brandName: "N", logoUrl: "javascript:alert(1)" }, "body.logoUrl"],
          [{ brandName: "N", sourceUrl: "ftp://northwind.example/" }, "body.sourceUrl"],
          [{ brandName: "N", socials: { x: "javascript:alert(1)" } }, "body.socials.x"],
          [{ brandName: "N", voice: "warm" }, "body.voice"],
          [{ brandName: "N", products: Array.from({ length: 51 }, (_, i) => `p${i}`) }, "body.products"],
          [{ brandName: "N", notes: { tagline: "Fresh" } }, "body.notes"]
        ]
        for (const [body, field] of refused) {
          const bad = yield* api("POST", "/api/onboard/{c}/confirm-profile", body)
          assert.strictEqual(bad.status, 400, JSON.stringify(body))
          assert.strictEqual(bad.json.code, "E_VALIDATION")
          assert.include(bad.json.error, field, JSON.stringify(body))
        }
        for (const body of [[1, 2], "text"]) {
          assert.strictEqual(
            (yield* api("POST", "/api/onboard/{c}/confirm-profile", body)).status,
            400,
            JSON.stringify(body)
          )
        }
        assert.deepStrictEqual(yield* storedProfile, profile, "a refused body leaves the stored profile as it was")

        // A new confirmation replaces the profile; left-out fields are gone, the brand name is the new one.
        const again = yield* api("POST", "/api/onboard/{c}/confirm-profile", {
          brandName: "Northwind Roasters",
          voice: ["bold"]
        })
        assert.deepStrictEqual(again.json, {
          customerId,
          status: "active",
          brandName: "Northwind Roasters",
          profile: { brandName: "Northwind Roasters", voice: ["bold"] }
        })
        const events = (yield* api("GET", "/api/events/{c}")).json.events
        const changes = events.filter((e: any) => e.type === "customer.status_changed" && e.data.to === "active")
        assert.strictEqual(changes.length, 1)
        assert.deepInclude(changes[0].data, { from: "onboarding", to: "active" })
        assert.strictEqual(events.filter((e: any) => e.type === "onboarding.completed").length, 1)
      }))
  })

  layer(testApp({ allowPrivateTargets: false }), live)("private targets", (it) => {
    it.effect("a private page is 422 E_FETCH_FAILED", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        const { origin } = yield* site(sites.brand)
        for (const url of [`${origin}/`, "http://localhost/", "http://169.254.169.254/"]) {
          const res = yield* api("POST", "/api/onboard/{c}/auto-extract", { url })
          assert.strictEqual(res.status, 422)
          assert.match(res.json.error, /not a public address/)
        }
      }))
  })
})
