import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { lintCopy, type LintRule } from "../src/domain/CopyLint.ts"
import {
  type Brief,
  type CopyKind,
  isPlural,
  joinList,
  withoutDoubledWords,
  writeDraft
} from "../src/domain/Copywriting.ts"
import { shorten } from "../src/features/agent/HouseModel.ts"

const kinds: ReadonlyArray<CopyKind> = ["blog", "social", "email", "ad", "outreach", "report"]
const platforms = ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"]

const nameWords = [
  "Brewline",
  "Coffee",
  "Roasters",
  "Acme",
  "Crumb",
  "Bakery",
  "Northwind",
  "Studio",
  "Labs",
  "The",
  "Orbit",
  "Fjord",
  "Élan",
  "Co.",
  "&",
  "Kettle",
  "Maple"
]
const brandName = fc.array(fc.constantFrom(...nameWords), { minLength: 1, maxLength: 4 })
  .map((ws) => ws.join(" "))
  .filter((name) => /^\p{Lu}/u.test(name) && !/^(?:&|Co\.)/.test(name) && !/(?:^| )(\S+) \1(?: |$)/.test(name))

const singular = fc.constantFrom(
  "home barista",
  "small business owner",
  "busy parent",
  "coffee lover",
  "runner",
  "agency",
  "first-time buyer"
)
const plural = fc.constantFrom(
  "home coffee brewers",
  "specialty coffee enthusiasts",
  "SaaS founders",
  "marketing teams",
  "people who bake at home",
  "dog owners",
  "cafés"
)
const audience = fc.oneof(
  singular,
  plural,
  fc.array(fc.oneof(singular, plural), { minLength: 2, maxLength: 3 }).map((groups) => groups.join(", "))
)

const topicWords = [
  "cold",
  "brew",
  "Season",
  "espresso",
  "Dialing",
  "in",
  "SEO",
  "AI",
  "visibility",
  "subscriptions",
  "the",
  "complete",
  "guide",
  "to",
  "Q3",
  "2026",
  "launch",
  "recipes",
  "iPhone",
  "photos",
  "Coffee"
]
const topic = fc.tuple(
  fc.array(fc.constantFrom(...topicWords), { minLength: 1, maxLength: 7 }),
  fc.constantFrom("", "!", "?", ".", ":", " & more", ": what's next?", " (2026)")
).map(([ws, end]) => `${ws.join(" ")}${end}`)

const phrase = fc.array(
  fc.constantFrom("cold brew", "Pour Over", "Espresso", "grinders", "SEO", "latte art", "Subscriptions", "beans"),
  { maxLength: 4 }
)

const brief: fc.Arbitrary<Brief> = fc.record({
  kind: fc.constantFrom(...kinds),
  brandName,
  topic,
  platform: fc.option(fc.constantFrom(...platforms), { nil: undefined }),
  description: fc.option(
    fc.constantFrom("We roast coffee in small batches", "Bread for people who care.", "the friendliest studio in town"),
    { nil: undefined }
  ),
  voice: fc.option(fc.constantFrom("playful", "formal", "warm, expert"), { nil: undefined }),
  audience: fc.option(audience, { nil: undefined }),
  products: fc.option(
    fc.array(fc.constantFrom("Coffee subscriptions", "Starter Kit", "the Brew Box", "grinders"), { maxLength: 3 }),
    { nil: undefined }
  ),
  keywords: fc.option(phrase, { nil: undefined }),
  topics: fc.option(phrase, { nil: undefined }),
  url: fc.option(fc.constantFrom("https://brewline.example", "https://acme.example/spring"), { nil: undefined }),
  angle: fc.option(fc.nat(50), { nil: undefined }),
  facts: fc.option(
    fc.array(fc.constantFrom("12 new subscribers", "sessions up 8%", "3 posts published"), { maxLength: 3 }),
    { nil: undefined }
  )
}, { requiredKeys: ["kind", "brandName", "topic"] })

const findings = (b: Brief) => {
  const draft = writeDraft(b)
  return lintCopy({
    kind: b.kind,
    platform: b.kind === "report" ? undefined : b.platform,
    title: draft.title,
    body: draft.body
  }, b)
}

describe("copy that can be published as written", () => {
  it("every brief gives a piece that passes every lint rule", () => {
    fc.assert(
      fc.property(brief, (b) => {
        const found = findings(b)
        assert.deepStrictEqual(found, [], JSON.stringify({ brief: b, draft: writeDraft(b) }))
      }),
      { numRuns: 1500 }
    )
  })

  it("a piece made shorter in the chat still passes every lint rule", () => {
    fc.assert(
      fc.property(brief, (b) => {
        const kind = b.kind === "report" ? "social" : b.kind
        const draft = writeDraft({ ...b, kind })
        const shorter = shorten(draft.body, b.brandName)
        const found = lintCopy({ kind, platform: b.platform, title: draft.title, body: shorter }, b)
        assert.deepStrictEqual(found, [], JSON.stringify({ brief: b, shorter }))
      }),
      { numRuns: 1000 }
    )
  })

  it("a list of audiences ends with 'and', and its verbs agree", () => {
    fc.assert(fc.property(brief, fc.uniqueArray(plural, { minLength: 2, maxLength: 3 }), (b, groups) => {
      const draft = writeDraft({ ...b, audience: groups.join(", ") })
      const text = `${draft.title}\n${draft.body}`
      if (text.includes(groups[0]!)) assert.include(text, joinList(groups))
      assert.notMatch(text, / (?:asks|tells) us/)
    }))
  })

  it("hashtags come from the topic, the keywords, the brand's topics and its name; never generic ones", () => {
    const draft = writeDraft({
      kind: "social",
      platform: "instagram",
      brandName: "Brewline Coffee Roasters",
      topic: "Cold brew season",
      topics: ["Pour over"],
      keywords: ["grinders"]
    })
    assert.deepStrictEqual(draft.hashtags, ["#ColdBrewSeason", "#Grinders", "#PourOver", "#BrewlineCoffeeRoasters"])
    const long = writeDraft({
      kind: "social",
      platform: "linkedin",
      brandName: "Brewline",
      topic: "What should we post on LinkedIn this week to grow our coffee subscriptions"
    })
    assert.deepStrictEqual(long.hashtags, ["#Brewline"])
  })

  it("an X post is one line that fits, never a cut blog post", () => {
    fc.assert(fc.property(brief, (b) => {
      const draft = writeDraft({ ...b, kind: "social", platform: "x" })
      assert.notInclude(draft.body, "\n\n#", "tags on the same line")
      assert.notInclude(draft.body, "##")
      assert.isFalse(draft.body.endsWith("…"))
      assert.isAtMost(draft.body.length, 280)
    }))
  })

  it("doubled words are written once; a name in capitals keeps its spelling", () => {
    assert.strictEqual(withoutDoubledWords("The the complete guide"), "The complete guide")
    assert.strictEqual(
      withoutDoubledWords("Ask the The Roasters team.\n\nfor for you"),
      "Ask The Roasters team.\n\nfor you"
    )
    assert.include(
      writeDraft({ kind: "email", brandName: "The Roasters", topic: "beans", angle: 2 }).body,
      "The Roasters"
    )
  })

  it("plural and singular noun phrases", () => {
    for (const p of ["home coffee brewers", "people", "cafés, roasters", "SMBs", "teams"]) assert.isTrue(isPlural(p), p)
    for (const s of ["home barista", "business", "SaaS", "analytics", "Gen Z", "news"]) assert.isFalse(isPlural(s), s)
  })
})

describe("the lint rules catch what a reader would", () => {
  const brief = {
    brandName: "Brewline Coffee Roasters",
    topic: "Cold brew season",
    audience: "home coffee brewers, specialty coffee enthusiasts",
    products: ["Coffee subscriptions"]
  }
  const rulesOf = (
    body: string,
    title = "A title",
    kind: CopyKind = "social",
    platform?: string
  ): ReadonlyArray<LintRule> => lintCopy({ kind, platform, title, body }, brief).map((f) => f.rule)

  it("each example from a bad piece fails its rule, and a good one passes", () => {
    assert.include(
      rulesOf(
        "Most home coffee brewers, specialty coffee enthusiasts get cold brew season wrong. Brewline Coffee Roasters"
      ),
      "agreement"
    )
    assert.include(rulesOf("Coffee subscriptions helps to keep it fresh. Brewline Coffee Roasters"), "agreement")
    assert.include(rulesOf("Brewline Coffee Roasters", "The the complete guide"), "doubled-words")
    assert.include(rulesOf("Brewline Coffee Roasters", "the complete guide"), "capitals")
    assert.include(rulesOf("Brewline Coffee Roasters. then this"), "capitals")
    assert.include(
      rulesOf("Write for people first; search engines and assistants follow clear answers. Brewline Coffee Roasters"),
      "advice-leak"
    )
    assert.include(rulesOf("Brewline Coffee Roasters #MarketingTips #SmallBusiness"), "generic-hashtags")
    assert.include(rulesOf("Brewline Coffee Roasters #WhatShouldWePostOnLinkedInThis"), "generic-hashtags")
    assert.include(rulesOf("Brewline Coffee Roasters is a evening treat"), "articles")
    assert.include(rulesOf("A post about cold brew"), "brand-mention")
    assert.include(rulesOf(`Brewline Coffee Roasters ${"x".repeat(300)}`, "T", "social", "x"), "length")
    assert.include(rulesOf("Brewline Coffee Roasters undefined"), "template-leftovers")
    assert.include(rulesOf("Brewline Coffee Roasters  twice"), "template-leftovers")
    assert.deepStrictEqual(
      rulesOf(
        "Home coffee brewers and specialty coffee enthusiasts ask us about cold brew season. Brewline Coffee Roasters has an answer. #ColdBrewSeason"
      ),
      []
    )
  })
})
