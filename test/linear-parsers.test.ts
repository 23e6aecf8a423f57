import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { firstJsonObject } from "../src/features/agent/firstJsonObject.ts"
import { extractProfile } from "../src/features/onboarding/extract.ts"
import { parseLinkHeader } from "../src/features/scan/checks/LinkHeader.ts"
import { toPage } from "../src/features/scan/checks/Page.ts"
import type { SiteSnapshot } from "../src/features/scan/Fetch.ts"

/**
 * Hand parsers and patterns that read outside text answer hostile input at
 * once: the inputs below blocked the event loop for seconds to minutes with
 * the former code, which these tests' short time limits do not allow.
 */
const hostile = 5_000

/** The former firstJsonObject: every "{" with every later "}", longest first (cubic). */
const referenceFirstJsonObject = (text: string): Record<string, unknown> => {
  for (let start = text.indexOf("{"); start >= 0; start = text.indexOf("{", start + 1)) {
    for (let end = text.lastIndexOf("}"); end > start; end = text.lastIndexOf("}", end - 1)) {
      try {
        const value: unknown = JSON.parse(text.slice(start, end + 1))
        if (typeof value === "object" && value !== null && !Array.isArray(value)) {
          return value as Record<string, unknown>
        }
      } catch {
        // another pair of braces
      }
    }
  }
  return {}
}

const snapshot = (html: string, headers: Record<string, string> = {}): SiteSnapshot => {
  const file = (path: string) => ({ url: `https://brand.example${path}`, status: 404, content: null, error: undefined })
  return {
    requestedUrl: "https://brand.example/",
    url: "https://brand.example/",
    status: 200,
    headers: { "content-type": "text/html", ...headers },
    html,
    bytes: html.length,
    elapsedMs: 1,
    robots: file("/robots.txt"),
    llms: file("/llms.txt"),
    llmsFull: file("/llms-full.txt"),
    sitemap: file("/sitemap.xml"),
    fetchedAt: new Date(0)
  }
}

const page = (h1: string) =>
  toPage(snapshot(`<!doctype html><html><head><title>Brand</title></head><body><h1>${h1}</h1></body></html>`))

describe("firstJsonObject", () => {
  it("answers a message of nested openings at once", () => {
    const message = "query_ga4 " + "{\"a\":".repeat(600) + "}".repeat(1000)
    assert.deepStrictEqual(firstJsonObject(message), {})
    assert.deepStrictEqual(firstJsonObject(`${message} {"metrics":["sessions"]}`), { metrics: ["sessions"] })
    const deep = "{\"a\":".repeat(1500) + "1" + "}".repeat(1500)
    assert.strictEqual(JSON.stringify(firstJsonObject(`query_ga4 ${deep}${"}".repeat(900)}`)), deep)
  }, hostile)

  it("finds the same object as trying every pair of braces", () => {
    const fragment = fc.constantFrom(
      "{",
      "}",
      "{",
      "}",
      "[",
      "]",
      "\"",
      "\"k\"",
      ":",
      ",",
      "\\",
      "\\\"",
      "\\u00e9",
      "1",
      "-",
      ".",
      "e",
      "0",
      "true",
      "null",
      " ",
      "\n",
      "\u0001",
      "x",
      "{\"a\":1}"
    )
    const texts = fc.oneof(
      fc.array(fragment, { maxLength: 24 }).map((parts) => parts.join("")),
      fc.tuple(fc.string({ maxLength: 8 }), fc.json({ maxDepth: 3 }), fc.array(fragment, { maxLength: 8 })).map((
        [before, json, after]
      ) => `${before}${json}${after.join("")}`)
    )
    fc.assert(
      fc.property(texts, (text) => {
        assert.deepStrictEqual(firstJsonObject(text), referenceFirstJsonObject(text))
      }),
      { numRuns: 2_000 }
    )
  })
})

describe("brand extraction", () => {
  it("reads a heading of one long word without a phrase end at once", () => {
    assert.deepStrictEqual(extractProfile(page(`for ${"a".repeat(170)}#`)).audience, [])
    assert.deepStrictEqual(extractProfile(page(`for ${"a".repeat(170)}.`)).audience, ["a".repeat(170)])
    assert.deepStrictEqual(extractProfile(page(`For ${"ab ".repeat(3000)}#`)).audience, [])
  }, hostile)

  it("takes the audience up to a phrase end, at most five words", () => {
    assert.deepStrictEqual(extractProfile(page("Coffee for home baristas who care about taste")).audience, [
      "home baristas"
    ])
    assert.deepStrictEqual(extractProfile(page("Coffee for home baristas with taste")).audience, [
      "home baristas with taste"
    ])
    assert.deepStrictEqual(extractProfile(page("Tools for small teams with big goals.")).audience, [
      "small teams with big goals"
    ])
    assert.deepStrictEqual(extractProfile(page("Built for one two three four five six")).audience, [])
    assert.deepStrictEqual(extractProfile(page("Built for one two three four five")).audience, [
      "one two three four five"
    ])
  })
})

/** The former Link header pattern (exponential in the number of quoted values), the reference on short headers. */
const referenceLinkHeader = (value: string): ReadonlyArray<Record<string, string>> => {
  const out: Array<Record<string, string>> = []
  // eslint-disable-next-line regexp/no-super-linear-backtracking, regexp/no-dupe-disjunctions -- the reference, run on short input only
  const entry = /\s*<([^>]*)>\s*((?:;\s*[^;,=\s]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?\s*)*)\s*(?:,|$)/y
  let match: RegExpExecArray | null
  while (entry.lastIndex < value.length && (match = entry.exec(value)) !== null) {
    const params: Record<string, string> = { uri: match[1] }
    for (const param of match[2].matchAll(/;\s*([^;,=\s]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*))?/g)) {
      const raw = param[2] ?? ""
      const key = param[1].toLowerCase()
      if (!(key in params)) params[key] = raw.startsWith("\"") ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw
    }
    out.push(params)
    if (match[0].length === 0) break
  }
  return out
}

describe("Link header", () => {
  it("reads many quoted values followed by garbage at once", () => {
    assert.deepStrictEqual(parseLinkHeader("<https://a.example/>" + "; a=\"x\"".repeat(40) + " !"), [])
    assert.deepStrictEqual(parseLinkHeader("<https://a.example/>" + "; a=\"x\"".repeat(40) + ", </b>; rel=\"next\""), [
      { uri: "https://a.example/", a: "x" },
      { uri: "/b", rel: "next" }
    ])
    const links = (link: string) =>
      toPage(snapshot("<html></html>", { link })).links.filter((l) => l.source === "headers")
    assert.deepStrictEqual(links("<https://brand.example/fr/>" + "; hreflang=\"fr\"".repeat(40) + " !"), [])
    assert.deepStrictEqual(
      links("<https://brand.example/fr/>" + "; hreflang=\"fr\"".repeat(40) + "; rel=alternate").map((
        l
      ) => [l.rel, l.href, l.hreflang]),
      [
        ["alternate", "https://brand.example/fr/", "fr"]
      ]
    )
  }, hostile)

  it("reads entries as the former pattern did", () => {
    const fragment = fc.constantFrom(
      "<",
      ">",
      "<a>",
      "</x>",
      ";",
      "; rel=next",
      "; rel=\"a b\"",
      "=",
      "\"",
      "\\",
      "\\\"",
      ",",
      " ",
      "a",
      "title",
      "; t=\"x, y\"",
      "\n",
      "\u2028"
    )
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join("")), (header) => {
        assert.deepStrictEqual(parseLinkHeader(header), referenceLinkHeader(header))
      }),
      { numRuns: 3_000 }
    )
  })
})
