import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { parseLlmsTxt } from "../src/domain/LlmsTxt.ts"
import { freePort } from "./support/harness.ts"
import { call, testApp } from "./support/harness.ts"
import { customerApi } from "./support/processes.ts"
import { sites } from "./support/scan-sites.ts"
import { servedSites } from "./support/served-sites.ts"

const site = servedSites()

const statuses = (checklist: ReadonlyArray<{ id: string; status: string }>) =>
  Object.fromEntries(checklist.map((item) => [item.id, item.status]))

const live = { timeout: 120_000, excludeTestServices: true }

/** Every check of the well-marked-up page passes, except HTTPS (fixtures are served over plain HTTP). */
const allPass: Record<string, string> = {
  "is-crawlable": "pass",
  "document-title": "pass",
  "meta-description": "pass",
  "http-status-code": "pass",
  "link-text": "pass",
  "crawlable-anchors": "pass",
  "robots-txt": "pass",
  "image-alt": "pass",
  "hreflang": "pass",
  "canonical": "pass",
  "seo.title-length": "pass",
  "seo.meta-description-length": "pass",
  "seo.viewport": "pass",
  "seo.h1": "pass",
  "seo.lang": "pass",
  "seo.sitemap": "pass",
  "geo.ai-crawlers": "pass",
  "geo.raw-html-content": "pass",
  "geo.structured-data": "pass",
  "geo.statistics": "pass",
  "geo.citations": "pass",
  "geo.quotations": "pass",
  "geo.headings": "pass",
  "geo.answerable-structure": "pass",
  "geo.freshness": "pass",
  "geo.author": "pass",
  "geo.llms-txt": "pass",
  "cro.cta-above-fold": "pass",
  "cro.form-length": "pass",
  "cro.trust-signals": "pass",
  "cro.contact": "pass",
  "cro.mobile": "pass",
  "cro.page-weight": "pass",
  "cro.response-time": "pass",
  "cro.cta-clarity": "pass",
  "cro.form-labels": "pass",
  "cro.https": "fail"
}

/** The bare page: `<p>Hello</p>`, no site files. n/a checks are absent. */
const bare: Record<string, string> = {
  "is-crawlable": "pass",
  "document-title": "fail",
  "meta-description": "fail",
  "http-status-code": "pass",
  "link-text": "pass",
  "crawlable-anchors": "pass",
  "hreflang": "pass",
  "seo.viewport": "fail",
  "seo.h1": "fail",
  "seo.lang": "fail",
  "seo.sitemap": "fail",
  "geo.ai-crawlers": "pass",
  "geo.raw-html-content": "fail",
  "geo.structured-data": "fail",
  "geo.statistics": "fail",
  "geo.citations": "fail",
  "geo.quotations": "fail",
  "geo.headings": "fail",
  "geo.answerable-structure": "fail",
  "geo.freshness": "fail",
  "geo.author": "fail",
  "geo.llms-txt": "warn",
  "cro.cta-above-fold": "fail",
  "cro.trust-signals": "fail",
  "cro.contact": "fail",
  "cro.page-weight": "pass",
  "cro.response-time": "pass",
  "cro.https": "fail"
}

const expected: Record<string, { path?: string; checks: Record<string, string> }> = {
  bare: { checks: bare },
  blockedByRobots: { checks: { ...allPass, "is-crawlable": "fail", "geo.ai-crawlers": "fail" } },
  noindex: { checks: { ...allPass, "is-crawlable": "fail", "geo.ai-crawlers": "fail" } },
  noindexHeader: { checks: { ...allPass, "is-crawlable": "fail", "geo.ai-crawlers": "fail" } },
  brokenCanonical: { checks: { ...allPass, canonical: "fail" } },
  rootCanonical: { path: "/blog/post", checks: { ...allPass, canonical: "fail" } },
  aiCrawlersBlocked: { checks: { ...allPass, "geo.ai-crawlers": "fail" } },
  trainingBlocked: { checks: { ...allPass, "geo.ai-crawlers": "warn" } },
  invalidRobots: { checks: { ...allPass, "robots-txt": "fail" } },
  // robots.txt gets 2 s, as in Lighthouse: after that it counts as unfetchable, which Lighthouse fails.
  slowRobots: { checks: { ...allPass, "robots-txt": "fail" } },
  flawed: {
    checks: {
      ...bare,
      "document-title": "pass",
      "link-text": "fail",
      "crawlable-anchors": "fail",
      "robots-txt": "fail",
      "image-alt": "fail",
      "hreflang": "fail",
      "seo.title-length": "warn",
      "seo.h1": "pass",
      "seo.lang": "pass",
      "geo.headings": "warn"
    }
  },
  notFound: {
    path: "/missing",
    checks: { ...bare, "http-status-code": "fail", "document-title": "pass", "seo.title-length": "warn" }
  },
  heavy: {
    checks: {
      ...bare,
      "document-title": "pass",
      "seo.title-length": "warn",
      "geo.raw-html-content": "pass",
      "cro.page-weight": "fail"
    }
  }
}

describe("scan", () => {
  layer(testApp(), live)("with Chromium", (it) => {
    it.effect("scans a well-marked-up site: scores, checklist, llms.txt, screenshot, stored, event", () =>
      Effect.gen(function*() {
        const { api, auth, customerId } = yield* customerApi
        const { origin } = yield* site(sites.wellMarkedUp)
        const res = yield* api("POST", "/api/scan/{c}", { url: `${origin}/` })
        assert.strictEqual(res.status, 200)
        const scan = res.json
        assert.strictEqual(scan.status, "done")
        assert.isNull(scan.error)
        assert.match(scan.scanId, /^scan_/)
        assert.strictEqual(scan.url, `${origin}/`)
        assert.deepStrictEqual(statuses(scan.checklist), allPass)
        assert.strictEqual(scan.seoScore, 100)
        assert.strictEqual(scan.geoScore, 100)
        assert.strictEqual(scan.lighthouseSeoScore, 100)
        assert.strictEqual(scan.citabilityGrade, "A")
        // Only cro.https fails: weight 1 of 15.5.
        assert.strictEqual(scan.croScore, Math.round(100 * 14.5 / 15.5))
        assert.match(scan.checklist.find((i: any) => i.id === "geo.llms-txt").detail, /llms-full\.txt is published/)
        for (const item of scan.checklist) {
          assert.deepStrictEqual(Object.keys(item).sort(), [
            "category",
            "detail",
            "id",
            "recommendation",
            "status",
            "title",
            "weight"
          ])
          if (item.status !== "pass") assert.isAbove(item.recommendation.length, 10, item.id)
        }
        const llms = parseLlmsTxt(scan.llmsTxt)
        assert.isTrue(llms.ok)
        if (llms.ok) {
          assert.strictEqual(llms.file.title, "Acme Analytics")
          assert.deepStrictEqual(llms.file.sections.map((s) => s.name), ["Main pages", "Optional"])
          assert.include(llms.file.sections[1].links.map((l) => l.url), `${origin}/privacy`)
        }

        assert.strictEqual(
          scan.screenshotUrl,
          `http://127.0.0.1:${new URL(scan.screenshotUrl).port}/api/scan/${customerId}/${scan.scanId}/screenshot.png`
        )
        const png = yield* Effect.promise(() => fetch(scan.screenshotUrl, { headers: auth }))
        assert.strictEqual(png.status, 200)
        assert.strictEqual(png.headers.get("content-type"), "image/png")
        const bytes = new Uint8Array(yield* Effect.promise(() => png.arrayBuffer()))
        assert.deepStrictEqual([...bytes.slice(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        assert.isAbove(bytes.length, 5_000)
        const anonymous = yield* Effect.promise(() => fetch(scan.screenshotUrl))
        assert.strictEqual(anonymous.status, 401)

        const got = yield* api("GET", `/api/scan/{c}/${scan.scanId}`)
        assert.deepStrictEqual(got.json, scan)
        // The list shows a summary; the checklist stays at the scan's own path.
        const list = yield* api("GET", "/api/scan/{c}")
        const countOf = (status: string) => scan.checklist.filter((item: any) => item.status === status).length
        assert.deepStrictEqual(list.json, {
          scans: [{
            scanId: scan.scanId,
            url: scan.url,
            status: "done",
            seoScore: scan.seoScore,
            geoScore: scan.geoScore,
            croScore: scan.croScore,
            citabilityGrade: scan.citabilityGrade,
            counts: { pass: countOf("pass"), warn: countOf("warn"), fail: countOf("fail") },
            error: null,
            createdAt: scan.createdAt,
            completedAt: scan.completedAt
          }],
          nextCursor: null
        })
        assert.isAbove(countOf("pass"), 0)
        assert.isAbove(countOf("fail"), 0)
        const events = yield* api("GET", "/api/events/{c}")
        const event = events.json.events.find((e: any) => e.type === "scan.completed")
        assert.deepInclude(event.data, { scanId: scan.scanId, status: "done", seoScore: 100 })
      }))

    it.effect("lists newest first with limit and a signed cursor; 400 for a bad limit or an altered cursor", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        const { origin } = yield* site(sites.bare)
        const ids: Array<string> = []
        for (let i = 0; i < 3; i++) {
          ids.push((yield* api("POST", "/api/scan/{c}", { url: `${origin}/?n=${i}` })).json.scanId)
        }
        const newestFirst = [...ids].reverse()
        const first = yield* api("GET", "/api/scan/{c}?limit=2")
        assert.strictEqual(first.status, 200, first.text)
        assert.deepStrictEqual(first.json.scans.map((s: any) => s.scanId), newestFirst.slice(0, 2))
        assert.deepStrictEqual(first.json.scans.map((s: any) => s.url), [`${origin}/?n=2`, `${origin}/?n=1`])
        assert.isString(first.json.nextCursor)
        // A scan started while paging does not shift the next page.
        yield* api("POST", "/api/scan/{c}", { url: `${origin}/?n=3` })
        const second = yield* api("GET", `/api/scan/{c}?limit=2&cursor=${encodeURIComponent(first.json.nextCursor)}`)
        assert.deepStrictEqual(second.json.scans.map((s: any) => s.scanId), newestFirst.slice(2))
        assert.isNull(second.json.nextCursor)
        const all = yield* api("GET", "/api/scan/{c}")
        assert.strictEqual(all.json.scans.length, 4)
        assert.isNull(all.json.nextCursor)
        for (const limit of ["0", "101", "x"]) {
          const bad = yield* api("GET", `/api/scan/{c}?limit=${limit}`)
          assert.strictEqual(bad.status, 400, limit)
          assert.strictEqual(bad.json.code, "E_VALIDATION")
        }
        const altered = yield* api(
          "GET",
          `/api/scan/{c}?cursor=${encodeURIComponent(first.json.nextCursor.slice(0, -2) + "AA")}`
        )
        assert.strictEqual(altered.status, 400)
        assert.strictEqual(altered.json.code, "E_INVALID_CURSOR")
      }))

    it.effect("answers 400 for a url that is not http(s), 404 for unknown scans, 403 across tenants and for viewers", () =>
      Effect.gen(function*() {
        const { api, customerId } = yield* customerApi
        for (
          const body of [{ url: "ftp://example.com/" }, { url: "javascript:alert(1)" }, { url: "not a url" }, {}, {
            url: `https://example.com/${"a".repeat(2048)}`
          }, { url: "https://example.com/", extra: 1 }]
        ) {
          const res = yield* api("POST", "/api/scan/{c}", body)
          assert.strictEqual(res.status, 400, JSON.stringify(body).slice(0, 80))
          assert.strictEqual(res.json.code, "E_VALIDATION")
        }
        assert.strictEqual((yield* api("GET", "/api/scan/{c}/scan_nope")).status, 404)
        assert.strictEqual((yield* api("GET", "/api/scan/{c}/scan_nope/screenshot.png")).status, 404)
        const other = yield* customerApi
        assert.strictEqual((yield* other.api("GET", `/api/scan/${customerId}`)).status, 403)
        const invited = yield* api("POST", "/api/team/{c}/members", {
          email: `v-${crypto.randomUUID()}@example.com`,
          role: "viewer"
        })
        const viewer = { authorization: `Bearer ${invited.json.apiKey}` }
        const refused = yield* call("POST", `/api/scan/${customerId}`, {
          headers: viewer,
          body: { url: "https://example.com/" }
        })
        assert.strictEqual(refused.status, 403)
        assert.strictEqual((yield* call("GET", `/api/scan/${customerId}`, { headers: viewer })).status, 200)
      }))
  })

  layer(testApp({ chromiumPath: "/nonexistent/chromium" }), live)("fixtures, without Chromium", (it) => {
    it.effect("asserts every check's status on every fixture; no screenshot without Chromium", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        for (const [name, { path, checks }] of Object.entries(expected)) {
          const { origin } = yield* site(sites[name as keyof typeof sites])
          const res = yield* api("POST", "/api/scan/{c}", { url: `${origin}${path ?? "/"}` })
          assert.strictEqual(res.status, 200, name)
          assert.strictEqual(res.json.status, "done", name)
          assert.isNull(res.json.screenshotUrl, name)
          assert.deepStrictEqual(statuses(res.json.checklist), checks, name)
          if (name === "slowRobots") {
            const robots = res.json.checklist.find((item: any) => item.id === "robots-txt")
            assert.match(robots.detail, /could not be fetched: no answer within 2000 ms/)
          }
        }
      }))

    it.effect("scores follow the blocking rules", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        const blocked = yield* site(sites.blockedByRobots)
        const res = (yield* api("POST", "/api/scan/{c}", { url: `${blocked.origin}/` })).json
        // is-crawlable weighs 5.5 of 18 in our SEO score and 93/23 of 9 + 93/23 in Lighthouse's.
        assert.strictEqual(res.seoScore, Math.round(100 * 12.5 / 18))
        assert.strictEqual(res.lighthouseSeoScore, Math.round(100 * 9 / (9 + 93 / 23)))
        assert.strictEqual(res.geoScore, 40)
        assert.strictEqual(res.citabilityGrade, "D")
        const bareSite = yield* site(sites.bare)
        const bareScan = (yield* api("POST", "/api/scan/{c}", { url: `${bareSite.origin}/` })).json
        assert.strictEqual(bareScan.citabilityGrade, "F")
        assert.isTrue(parseLlmsTxt(bareScan.llmsTxt).ok)
      }))

    it.effect("unreachable, too large, too slow, redirect loops, other schemes and non-HTML fail with a reason", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        const closed = yield* Effect.promise(freePort)
        const cases: Array<[string, string, RegExp]> = [
          [`http://127.0.0.1:${closed}/`, "unreachable", /unreachable/],
          [`${(yield* site(sites.huge)).origin}/`, "huge", /larger than 5 MiB/],
          [`${(yield* site(sites.slow)).origin}/`, "slow", /within 10 seconds/],
          [`${(yield* site(sites.redirectLoop)).origin}/a`, "loop", /Too many redirects/],
          [`${(yield* site(sites.redirectToFile)).origin}/`, "file", /only http and https/],
          [
            `${(yield* site(sites.nonHtml)).origin}/`,
            "non-HTML",
            /Not an HTML page \(Content-Type: application\/json\)/
          ]
        ]
        for (const [url, name, reason] of cases) {
          const res = yield* api("POST", "/api/scan/{c}", { url })
          assert.strictEqual(res.status, 200, name)
          assert.strictEqual(res.json.status, "failed", name)
          assert.match(res.json.error, reason, name)
          assert.isNull(res.json.seoScore, name)
          assert.deepStrictEqual(res.json.checklist, [], name)
          const stored = yield* api("GET", `/api/scan/{c}/${res.json.scanId}`)
          assert.strictEqual(stored.json.status, "failed")
        }
        const events = (yield* api("GET", "/api/events/{c}")).json.events.filter((e: any) =>
          e.type === "scan.completed"
        )
        assert.strictEqual(events.length, cases.length)
        assert.isTrue(events.every((e: any) => e.data.status === "failed"))
      }))

    it.effect("runs at most two scans at once per customer; another customer is not held up", () =>
      Effect.gen(function*() {
        const one = yield* customerApi
        const two = yield* customerApi
        const slowSite = yield* site(() => ({
          "/": { headers: { "content-type": "text/html" }, body: "<html><body>x</body></html>", delayMs: 1500 }
        }))
        const url = `${slowSite.origin}/`
        const results = yield* Effect.all([
          one.api("POST", "/api/scan/{c}", { url }),
          one.api("POST", "/api/scan/{c}", { url }),
          one.api("POST", "/api/scan/{c}", { url }),
          one.api("POST", "/api/scan/{c}", { url })
        ], { concurrency: "unbounded" })
        assert.deepStrictEqual(results.map((r) => r.json.status), ["done", "done", "done", "done"])
        assert.strictEqual(slowSite.maxInFlight.get("/"), 2)
        // Answered once all three are in progress (or after 8 s, when one of them was held up elsewhere).
        const other = yield* site(() => ({
          "/": {
            headers: { "content-type": "text/html" },
            body: "<html><body>x</body></html>",
            delayMs: 8000,
            heldUntil: 3
          }
        }))
        yield* Effect.all([
          one.api("POST", "/api/scan/{c}", { url: `${other.origin}/` }),
          one.api("POST", "/api/scan/{c}", { url: `${other.origin}/` }),
          two.api("POST", "/api/scan/{c}", { url: `${other.origin}/` })
        ], { concurrency: "unbounded" })
        assert.strictEqual(other.maxInFlight.get("/"), 3)
      }))
  })

  layer(testApp({ allowPrivateTargets: false, chromiumPath: "/nonexistent/chromium" }), live)(
    "private targets refused",
    (it) => {
      it.effect("a loopback or private page is a failed scan, its address named", () =>
        Effect.gen(function*() {
          const { api } = yield* customerApi
          const { origin } = yield* site(sites.wellMarkedUp)
          for (
            const url of [
              `${origin}/`,
              "http://localhost/",
              "http://169.254.169.254/latest/meta-data/",
              "http://10.0.0.1/"
            ]
          ) {
            const res = yield* api("POST", "/api/scan/{c}", { url })
            assert.strictEqual(res.status, 200)
            assert.strictEqual(res.json.status, "failed")
            assert.match(res.json.error, /not a public address/)
          }
        }))
    }
  )

  // 127.0.0.1 stands for a public site (SCAN_ALLOWED_ADDRESSES lets exactly it through); 127.0.0.2 for a private host.
  layer(
    testApp({ allowPrivateTargets: false, scanAllowedAddresses: ["127.0.0.1"], chromiumPath: "/nonexistent/chromium" }),
    live
  )("redirects to a private address", (it) => {
    it.effect("a public page redirecting to a private address is a failed scan and a failed extraction; the private host is never asked", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        const hidden = yield* site(sites.wellMarkedUp, "127.0.0.2")
        const open = yield* site(sites.wellMarkedUp)
        const fine = yield* api("POST", "/api/scan/{c}", { url: `${open.origin}/` })
        assert.strictEqual(fine.json.status, "done", fine.text)
        const redirecting = yield* site(() => ({ "/": { status: 302, headers: { location: `${hidden.origin}/` } } }))
        const scanned = yield* api("POST", "/api/scan/{c}", { url: `${redirecting.origin}/` })
        assert.strictEqual(scanned.status, 200)
        assert.strictEqual(scanned.json.status, "failed")
        assert.match(scanned.json.error, /not a public address/)
        const extracted = yield* api("POST", "/api/onboard/{c}/auto-extract", { url: `${redirecting.origin}/` })
        assert.strictEqual(extracted.status, 422, extracted.text)
        assert.strictEqual(extracted.json.code, "E_FETCH_FAILED")
        assert.deepStrictEqual([...hidden.maxInFlight.keys()], [])
      }))
  })
})
