import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
// Oracles: the implementations Lighthouse itself runs (dev dependencies).
import RobotsTxtAudit from "lighthouse/core/audits/seo/robots-txt.js"
import robotsParserModule from "robots-parser"
import { lighthouseLlmsRule, parseLlmsTxt, renderLlmsTxt } from "../src/domain/LlmsTxt.ts"
import { isAllowed, parseRobots, validateRobots } from "../src/domain/Robots.ts"
import { type ChecklistItem, type CheckOutcome, scoreChecklist } from "../src/domain/Scan.ts"
import { datesInText } from "../src/features/scan/checks/geo.ts"
import { analyse } from "../src/features/scan/checks/index.ts"

// A CommonJS module whose typings declare an ES default export.
const robotsParser = robotsParserModule as unknown as (url: string, content: string) => {
  isAllowed: (url: string, ua?: string) => boolean | undefined
}

const ids = [
  "is-crawlable",
  "document-title",
  "canonical",
  "geo.ai-crawlers",
  "geo.statistics",
  "seo.h1",
  "cro.contact",
  "cro.https"
]

const item: fc.Arbitrary<ChecklistItem> = fc.record({
  id: fc.constantFrom(...ids),
  category: fc.constantFrom("seo" as const, "geo" as const, "cro" as const),
  title: fc.constant("t"),
  status: fc.constantFrom("pass" as const, "warn" as const, "fail" as const),
  weight: fc.constantFrom(0.5, 1, 1.5, 2, 3, 5.5),
  detail: fc.constant(""),
  recommendation: fc.constant("")
})

const gradeRank = (grade: string | null) => (grade === null ? -1 : "FDCBA".indexOf(grade))
const better = { fail: ["warn", "pass"], warn: ["pass"], pass: [] } as const

describe("scoring", () => {
  it("fixing a failing or warning check never lowers any score or the grade", () =>
    fc.assert(fc.property(fc.array(item, { minLength: 1, maxLength: 30 }), fc.nat(), fc.nat(), (items, i, j) => {
      const index = i % items.length
      const options = better[items[index].status]
      if (options.length === 0) return
      const fixed = items.map((it, k) => k === index ? { ...it, status: options[j % options.length] } : it)
      const before = scoreChecklist(items)
      const after = scoreChecklist(fixed)
      for (const key of ["seoScore", "geoScore", "croScore", "lighthouseSeoScore"] as const) {
        assert.isAtLeast(after[key] ?? -1, before[key] ?? -1, key)
      }
      assert.isAtLeast(gradeRank(after.citabilityGrade), gradeRank(before.citabilityGrade))
    })))

  it("a not-applicable check changes nothing", () =>
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 5 }), (items, positions) => {
        const withNa: Array<CheckOutcome> = [...items]
        for (const p of positions) withNa.splice(p % (withNa.length + 1), 0, undefined)
        assert.deepStrictEqual(scoreChecklist(withNa), scoreChecklist(items))
      })
    ))

  it("scores are integers from 0 to 100; a blocked page's GEO score is at most 40", () =>
    fc.assert(fc.property(fc.array(item, { maxLength: 30 }), (items) => {
      const scores = scoreChecklist(items)
      for (const value of [scores.seoScore, scores.geoScore, scores.croScore, scores.lighthouseSeoScore]) {
        if (value !== null) assert.isTrue(Number.isInteger(value) && value >= 0 && value <= 100)
      }
      if (items.some((it) => (it.id === "is-crawlable" || it.id === "geo.ai-crawlers") && it.status === "fail")) {
        assert.isAtMost(scores.geoScore ?? 0, 40)
      }
    })))
})

const agents = [
  "*",
  "Googlebot",
  "googlebot",
  "bingbot",
  "DuckDuckBot",
  "archive.org_bot",
  "GPTBot",
  "OAI-SearchBot",
  "ClaudeBot",
  "PerplexityBot",
  "Googlebot/2.1",
  "Google-Extended"
]
const pathChars = fc.constantFrom("/", "a", "b", "*", "$", "%2f", "%C3%A9", "é", "?", "=", ".", "-")
const pattern = fc.array(pathChars, { maxLength: 6 }).map((cs) => cs.join(""))
const urlPath = fc.array(fc.constantFrom("/", "a", "b", "é", "%2F", "?", "=", ".", "x"), { maxLength: 8 })
  .map((cs) => "/" + cs.join(""))

const line = fc.oneof(
  fc.constantFrom(...agents).map((a) => `User-agent: ${a}`),
  pattern.map((p) => `Disallow: ${p}`),
  pattern.map((p) => `Allow: ${p}`),
  fc.constantFrom(
    "",
    "# comment",
    "Crawl-delay: 5",
    "Sitemap: https://example.com/sitemap.xml",
    "Sitemap: /relative.xml",
    "Noindex: /x",
    "Content-Signal: search=yes",
    "Foo: bar",
    "no colon here",
    "User-agent:",
    "allow /missing-colon",
    "DISALLOW: /Upper",
    "Disallow: /a$b",
    "Disallow: no-slash",
    "Host: example.com"
  )
)
const robotsFile = fc.array(line, { maxLength: 14 }).map((lines) => lines.join("\n"))

describe("robots.txt", () => {
  it("allows or blocks each crawler exactly as robots-parser (Lighthouse's matcher) does", () =>
    fc.assert(
      fc.property(robotsFile, urlPath, fc.constantFrom(undefined, ...agents), (content, path, agent) => {
        const robotsUrl = "https://example.com/robots.txt"
        const url = `https://example.com${path}`
        const oracle = robotsParser(robotsUrl, content).isAllowed(url, agent)
        assert.strictEqual(
          isAllowed(parseRobots(robotsUrl, content), url, agent),
          oracle !== false,
          `${content}\n${url} ${agent}`
        )
      }),
      { numRuns: 2000 }
    ))

  it("a URL of another origin is never covered", () => {
    const robots = parseRobots("https://example.com/robots.txt", "User-agent: *\nAllow: /")
    assert.isFalse(isAllowed(robots, "http://example.com/"))
    assert.isFalse(isAllowed(robots, "https://example.com:8443/"))
    assert.isTrue(isAllowed(robots, "https://example.com:443/"))
  })

  it("validates exactly as Lighthouse's robots-txt audit", () =>
    fc.assert(
      fc.property(robotsFile, (content) => {
        const lighthouse = (RobotsTxtAudit as any).audit({ RobotsTxt: { status: 200, content } })
        const expected = content === "" ? "n/a" : lighthouse.score === 1 ? "valid" : "invalid"
        const ours = content === "" ? "n/a" : validateRobots(content).length === 0 ? "valid" : "invalid"
        assert.strictEqual(ours, expected, content)
      }),
      { numRuns: 2000 }
    ))
})

describe("llms.txt", () => {
  const text = fc.string({
    unit: fc.constantFrom("a", "Z", " ", "#", ">", "[", "]", "(", ")", "\n", "\r", "-", ":", "*", "é", "\t", "`"),
    maxLength: 40
  })
  const link = fc.record({
    name: text,
    url: fc.webUrl().chain((u) => fc.constantFrom(u, `${u}/(x) y`)),
    notes: fc.option(text, { nil: undefined })
  })
  const draft = fc.record({
    title: text,
    summary: fc.option(text, { nil: undefined }),
    sections: fc.array(fc.record({ name: text, links: fc.array(link, { maxLength: 4 }) }), { maxLength: 4 })
  })

  it("what we propose always parses by the llms.txt rules, one section per non-empty list", () =>
    fc.assert(
      fc.property(draft, (d) => {
        const file = renderLlmsTxt(d)
        const parsed = parseLlmsTxt(file)
        assert.isTrue(parsed.ok, file)
        if (!parsed.ok) return
        assert.isAbove(parsed.file.title.length, 0)
        const kept = parsed.file.sections.reduce((n, s) => n + s.links.length, 0)
        assert.isAtMost(kept, d.sections.reduce((n, s) => n + s.links.length, 0))
        for (const section of parsed.file.sections) {
          assert.isAbove(section.links.length, 0)
          for (const l of section.links) assert.isTrue(URL.canParse(l.url), l.url)
        }
      }),
      { numRuns: 1000 }
    ))

  it("a file with a heading, a summary and a link section passes Lighthouse's llms-txt rule", () => {
    const file = renderLlmsTxt({
      title: "Acme",
      summary: "Analytics for teams.",
      sections: [{ name: "Docs", links: [{ name: "Start", url: "https://acme.test/start" }] }]
    })
    assert.isTrue(lighthouseLlmsRule(file))
    assert.isFalse(parseLlmsTxt("no heading\n- [a](b)").ok)
    assert.isFalse(parseLlmsTxt("# A\n\n## S\n\nnot a link\n").ok)
  })
})

describe("checks on hostile pages", () => {
  const jsonLd = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.constantFrom(
      "{",
      "[]",
      "null",
      "{\"@type\":5,\"author\":[null,{}],\"sameAs\":{}}",
      "{\"@graph\":[{\"@type\":[\"Organization\",7],\"name\":[],\"logo\":{\"url\":3},\"url\":{}}]}",
      "{\"@type\":\"Article\",\"datePublished\":\"not a date\",\"author\":\"\"}",
      "{\"@graph\":{\"@graph\":null}}"
    )
  )
  const fragment = fc.oneof(
    fc.constantFrom(
      "<a>",
      "</a>",
      "<a href>",
      "<a href=\"javascript:void(0)\">x</a>",
      "<a href=\"http://[::1\">bad</a>",
      "<img>",
      "<img alt=\" \">",
      "<img aria-labelledby=\"nope other\">",
      "<title>",
      "</title>",
      "<svg><title>s</title><a href=\"/x\">here</a></svg>",
      "<meta name=\"robots\" content=\"noindex\">",
      "<meta name=\"viewport\" content=\"user-scalable=no\">",
      "<link rel=\"canonical\" href=\"\">",
      "<link rel=\"canonical\" href=\"http://[x\">",
      "<link rel=\"alternate\" hreflang=\"\" href=\"/\">",
      "<base href=\"http://[bad\">",
      "<base href=\"https://other.example/dir/\">",
      "<form>",
      "<input>",
      "<select>",
      "</form>",
      "<h1>",
      "<h6>",
      "<blockquote>",
      "<q>",
      "<time datetime=\"x\">",
      "<html lang=\"\">",
      "<table>",
      "<ul><li>",
      "<!--",
      "<![CDATA[",
      "<template><a href=\"/t\">t</a></template>",
      "<noscript><img></noscript>",
      "<main>",
      "<article>",
      "<nav>",
      "<footer>"
    ),
    fc.string({ maxLength: 20 }),
    jsonLd.map((j) => `<script type="application/ld+json">${j}</script>`)
  )
  const page = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(""))
  const file = fc.option(fc.string({ maxLength: 200 }), { nil: null })

  it("every check answers for any page and site files; the proposed llms.txt parses", () => {
    fc.assert(
      fc.property(
        page,
        file,
        file,
        file,
        fc.dictionary(
          fc.constantFrom("x-robots-tag", "link", "last-modified", "content-type"),
          fc.string({ maxLength: 60 })
        ),
        (html, robots, llms, sitemap, headers) => {
          const siteFile = (content: string | null) => ({
            url: "https://site.example/f",
            status: content === null ? 404 : 200,
            content,
            error: undefined
          })
          const result = analyse({
            requestedUrl: "https://site.example/a/b",
            url: "https://site.example/a/b",
            status: 200,
            headers,
            html,
            bytes: html.length,
            elapsedMs: 10,
            robots: siteFile(robots),
            llms: siteFile(llms),
            llmsFull: siteFile(null),
            sitemap: siteFile(sitemap),
            fetchedAt: new Date()
          })
          for (const item of result.checklist) {
            assert.include(["pass", "warn", "fail"], item.status)
            if (item.id in { "is-crawlable": 1, "document-title": 1, "canonical": 1, "link-text": 1 }) {
              assert
                .notStrictEqual(item.status, "warn")
            }
          }
          assert.isTrue(parseLlmsTxt(result.llmsTxt).ok, result.llmsTxt)
        }
      ),
      { numRuns: 300 }
    )
  })
})

describe("one finding per defect; dates a reader sees", () => {
  const fetchedAt = new Date("2026-06-01T00:00:00Z")
  const noFile = { url: "https://site.example/f", status: 404, content: null, error: undefined }
  const checks = (
    body: string,
    headers: Record<string, string> = {},
    head = "<meta name=\"viewport\" content=\"width=device-width\">"
  ) => {
    const html = `<html lang="en"><head><title>T</title>${head}</head><body>${body}</body></html>`
    const result = analyse({
      requestedUrl: "https://site.example/",
      url: "https://site.example/",
      status: 200,
      headers: { "content-type": "text/html", ...headers },
      html,
      bytes: html.length,
      elapsedMs: 10,
      robots: noFile,
      llms: noFile,
      llmsFull: noFile,
      sitemap: noFile,
      fetchedAt
    })
    return Object.fromEntries(result.checklist.map((item) => [item.id, item]))
  }

  it("a missing viewport fails seo.viewport only; disabled zoom warns cro.mobile only", () => {
    const missing = checks("<p>x</p>", {}, "")
    assert.strictEqual(missing["seo.viewport"].status, "fail")
    assert.notProperty(missing, "cro.mobile")
    const noZoom = checks("<p>x</p>", {}, "<meta name=\"viewport\" content=\"width=device-width, user-scalable=no\">")
    assert.strictEqual(noZoom["seo.viewport"].status, "pass")
    assert.strictEqual(noZoom["cro.mobile"].status, "warn")
    const fine = checks("<p>x</p>")
    assert.strictEqual(fine["seo.viewport"].status, "pass")
    assert.strictEqual(fine["cro.mobile"].status, "pass")
  })

  it("geo.freshness ignores Last-Modified and reads visible dates, <time> and structured data", () => {
    const recent = "Mon, 25 May 2026 10:00:00 GMT"
    assert.strictEqual(checks("<p>No date here.</p>", { "last-modified": recent })["geo.freshness"].status, "fail")
    assert.strictEqual(
      checks("<p>x</p>", {}, "<meta name=\"last-modified\" content=\"2026-05-25\">")["geo.freshness"].status,
      "fail"
    )
    const visible = [
      "<p>Updated 12 March 2026</p>",
      "<p>Posted on March 12th, 2026.</p>",
      "<p>Last reviewed: 2026-03-12</p>",
      "<time>Mar. 12, 2026</time>",
      "<time datetime=\"2026-03-12\">last spring</time>",
      "<span itemprop=\"dateModified\" content=\"2026-03-12\">recently</span>",
      "<script type=\"application/ld+json\">{\"@type\":\"Article\",\"dateModified\":\"2026-03-12\"}</script>"
    ]
    for (const body of visible) {
      const freshness = checks(body, { "last-modified": "Mon, 01 Jan 2018 00:00:00 GMT" })["geo.freshness"]
      assert.strictEqual(freshness.status, "pass", body)
      assert.strictEqual(freshness.detail, "Last dated 2026-03-12.", body)
    }
    // A date only in a script or a hidden template is not shown to anyone.
    assert.strictEqual(
      checks("<script>var d = '12 March 2026'</script><template>12 March 2026</template>")["geo.freshness"].status,
      "fail"
    )
    assert.strictEqual(checks("<p>Updated 3 January 2024</p>")["geo.freshness"].status, "warn")
    // Not dates: an impossible day, a bare year.
    assert.strictEqual(checks("<p>31 February 2026, in 2026</p>")["geo.freshness"].status, "fail")
  })

  it("any calendar date written in any of the three forms is read back as that day", () => {
    const names = [
      "January",
      "February",
      "March",
      "April",
      "May",
      "June",
      "July",
      "August",
      "September",
      "October",
      "November",
      "December"
    ]
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }),
        fc.string({ maxLength: 30 }),
        (date, noise) => {
          const y = date.getUTCFullYear()
          const m = date.getUTCMonth()
          const d = date.getUTCDate()
          const day = Date.UTC(y, m, d)
          const iso = `${y}-${String(m + 1).padStart(2, "0")}-${String(d).padStart(2, "0")}`
          for (const written of [iso, `${d} ${names[m]} ${y}`, `${names[m].slice(0, 3)} ${d}, ${y}`]) {
            assert.include(datesInText(`${noise} ${written} ${noise}`), day, written)
          }
        }
      )
    )
  })
})
