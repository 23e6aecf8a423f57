import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  brandFrom,
  type Brief,
  fitWords,
  hashtag,
  joinList,
  profileText,
  stableHash,
  writeDraft
} from "../src/domain/Copywriting.ts"
import { charLength } from "../src/domain/Text.ts"

const base: Brief = { kind: "email", brandName: "Acme", topic: "Email marketing", audience: "founders" }

/** Every distinct value `read` gives over many angles of one brief. */
const variants = (brief: Brief, read: (draft: ReturnType<typeof writeDraft>) => ReadonlyArray<string>) => {
  const seen = new Set<string>()
  for (let angle = 0; angle < 400; angle++) for (const text of read(writeDraft({ ...brief, angle }))) seen.add(text)
  return [...seen].sort()
}

describe("house writer templates", () => {
  it("hooks name the topic and the brand, with verbs that agree with the audience", () => {
    assert.deepStrictEqual(variants(base, (d) => [d.hook]), [
      "A few honest notes on email marketing from the Acme team.",
      "Everything Acme knows about email marketing, in one place.",
      "Founders ask us about email marketing more than anything else, so here is what we at Acme have learned.",
      "Here is how we think about email marketing at Acme.",
      "If you care about email marketing, this one is for you. From all of us at Acme.",
      "New from Acme: our take on email marketing."
    ])
    assert.include(
      variants({ ...base, audience: "Gen Z" }, (d) => [d.hook]),
      "Gen Z asks us about email marketing more than anything else, so here is what we at Acme have learned."
    )
  })

  it("titles start with a capital and never put an article before the topic", () => {
    assert.deepStrictEqual(variants(base, (d) => [d.title]), [
      "A closer look at email marketing",
      "Email marketing, explained by Acme",
      "Email marketing: a guide for founders",
      "Email marketing: notes from Acme",
      "Lessons from Acme on email marketing"
    ])
    for (const title of variants({ ...base, topic: "The complete guide to espresso" }, (d) => [d.title])) {
      assert.notMatch(title, /the the/i)
    }
  })

  it("calls to action point to the brand's URL when there is one", () => {
    assert.deepStrictEqual(variants({ ...base, url: " https://acme.test/a " }, (d) => [d.cta]), [
      "Learn more at https://acme.test/a",
      "Questions about email marketing? Ask Acme.",
      "See what Acme offers: https://acme.test/a",
      "Tell us what you think about email marketing."
    ])
    assert.include(variants(base, (d) => [d.cta]), "Follow Acme for more.")
  })

  it("an email: greeting, hook, points, facts, CTA and signature; no hashtags", () => {
    const draft = writeDraft({ ...base, facts: ["12 new signups"] })
    const parts = draft.body.split("\n\n")
    assert.strictEqual(parts[0], "Hi there,")
    assert.strictEqual(parts[1], draft.hook)
    assert.strictEqual(parts.at(-1), "The Acme team")
    assert.strictEqual(parts.at(-2), draft.cta)
    assert.strictEqual(parts.at(-3), "- 12 new signups")
    assert.deepStrictEqual(draft.hashtags, [])
    assert.strictEqual(new Set(parts).size, parts.length, "no point twice")
  })

  it("a report is titled by its subject and lists its findings before the recommendations", () => {
    const draft = writeDraft({
      kind: "report",
      brandName: "Acme",
      topic: "SEO audit of https://acme.test",
      facts: ["SEO score 71"]
    })
    assert.strictEqual(draft.title, "SEO audit of https://acme.test")
    assert.deepStrictEqual(draft.body.split("\n\n").slice(0, 5), [
      "# SEO audit of https://acme.test",
      "Prepared by Herald for Acme.",
      "## Findings",
      "- SEO score 71",
      "## Recommendations"
    ])
  })

  it("a report recommends from its facts: fixes before improvements, the competitors' lead, the figures; the audience always", () => {
    const advice = (facts: ReadonlyArray<string>) => {
      const parts = writeDraft({ kind: "report", brandName: "Acme", topic: "Report", audience: "bakers", facts }).body
        .split("\n\n")
      return parts.slice(parts.indexOf("## Recommendations") + 1)
    }
    assert.deepStrictEqual(advice(["Fix (SEO): No title.", "Fix (GEO): No date.", "Improve (CRO): Slow."]), [
      "- Start with the 2 fixes above, the heaviest first: each one says what to change.",
      "- Then work through the improvement and run the audit again to see the scores move.",
      "- Keep every piece aimed at bakers."
    ])
    assert.deepStrictEqual(advice(["Fix (SEO): No title."]).slice(0, 1), [
      "- Start with the fix above, the heaviest first: each one says what to change."
    ])
    assert.deepStrictEqual(advice(["Competitor watched: Rival", "Competitor https://r.test/: SEO 80/100"]), [
      "- Where a competitor scores higher, look at what its pages do that ours do not, and close that gap first.",
      "- Keep every piece aimed at bakers."
    ])
    assert.deepStrictEqual(
      advice(["Total: 3 posts published, 0 clicks", "Revenue: none recorded over the last 7 days"]),
      [
        "- Post more on the channels with the most engagements and clicks per post, and less where they stay at zero.",
        "- Record sales as revenue so the next report shows what the content earns.",
        "- Keep every piece aimed at bakers."
      ]
    )
    assert.strictEqual(advice(["Total: 1 post published", "Revenue: €3.00"]).length, 2)
    assert.deepStrictEqual(advice([]), [
      "- Keep every piece aimed at bakers.",
      "- Measure one thing every week and drop what does not move it."
    ])
  })

  it("a blog: title, hook, description or introduction, sections, numbers, next step", () => {
    const parts = writeDraft({
      kind: "blog",
      brandName: "Acme",
      topic: "Rockets",
      description: "Acme makes rockets",
      facts: ["42 launches"]
    }).body.split("\n\n")
    assert.match(parts[0]!, /^# /)
    assert.strictEqual(parts[2], "Acme makes rockets. We wrote this guide for our customers.")
    assert.include(parts, "## Why it matters")
    assert.deepStrictEqual(parts.slice(-4, -1), ["## In numbers", "- 42 launches", "## Next step"])
  })

  it("a topic in capitals (an acronym or a name) keeps them mid-sentence; a capitalised common word is lower-cased", () => {
    const body = writeDraft({ kind: "blog", brandName: "Acme", topic: "SEO audits" }).body
    assert.include(body, "SEO audits")
    assert.notInclude(body, "sEO")
    assert.include(writeDraft({ kind: "email", brandName: "Acme", topic: "Cold Brew Season" }).body, "cold brew season")
    assert.include(
      writeDraft({ kind: "email", brandName: "Acme", topic: "Acme recipes", angle: 3 }).body,
      "Acme recipes"
    )
  })

  it("an outreach message introduces the brand with its description", () => {
    assert.strictEqual(
      writeDraft({
        kind: "outreach",
        brandName: "Acme",
        topic: "Partnerships",
        description: "Acme makes rockets.",
        audience: "founder"
      }).body,
      "Hello,\n\nI am reaching out from Acme (Acme makes rockets).\n\nWe work with founders on partnerships, and I thought it might interest you too.\n\n" +
        "Would a short call next week be useful? Questions about partnerships? Ask Acme.\n\nBest regards,\nAcme"
    )
  })

  it("a post on X is one line with its hashtags; a playful voice shows", () => {
    const draft = writeDraft({
      kind: "social",
      platform: "x",
      brandName: "Acme",
      topic: "Cold outreach",
      voice: "playful"
    })
    assert.strictEqual(
      draft.body,
      "A few honest notes on cold outreach from the Acme team. Yes, really. Follow Acme for more. #ColdOutreach #Acme"
    )
    assert.notInclude(
      writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "x", voice: "Formal" }).hook,
      "Yes, really"
    )
  })

  it("LinkedIn and Pinterest take three hashtags, Instagram and TikTok five, others two", () => {
    const brief: Brief = {
      kind: "social",
      brandName: "Acme",
      topic: "Launches",
      keywords: ["a b", "c d", "e f", "g h", "i j"]
    }
    for (
      const [platform, n] of [["linkedin", 3], ["pinterest", 3], ["instagram", 5], ["tiktok", 5], ["facebook", 2], [
        "x",
        2
      ]] as const
    ) {
      assert.lengthOf(writeDraft({ ...brief, platform }).hashtags, n, platform)
    }
    assert.deepStrictEqual(
      writeDraft({ kind: "social", brandName: "Sales", topic: "sales", platform: "linkedin", keywords: ["SALES"] })
        .hashtags,
      ["#Sales"]
    )
  })
})

describe("copywriting helpers", () => {
  it("hashtag: CamelCase letters and digits, accents folded, digits never merged, at most 30", () => {
    assert.strictEqual(hashtag("cold brew season"), "#ColdBrewSeason")
    assert.strictEqual(hashtag("Élan café"), "#ElanCafe")
    assert.strictEqual(hashtag("Q3 2026"), "#Q3_2026")
    assert.isUndefined(hashtag("!"))
    assert.strictEqual(charLength(hashtag("a".repeat(50))!), 31)
  })

  it("joinList ends with and", () => {
    assert.strictEqual(joinList([]), "")
    assert.strictEqual(joinList(["a"]), "a")
    assert.strictEqual(joinList(["a", "b"]), "a and b")
    assert.strictEqual(joinList(["a", "b", "c"]), "a, b and c")
  })

  it("fitWords never passes the limit", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 0, max: 150 }), (text, max) => {
      assert.isAtMost(charLength(fitWords(text, max)), Math.max(max, 0))
    }))
  })

  it("stableHash is FNV-1a", () => {
    assert.strictEqual(stableHash(""), 0x811c9dc5)
    assert.strictEqual(stableHash("a"), 0xe40c292c)
  })

  it("profileText and brandFrom", () => {
    assert.strictEqual(profileText(["a", " b "]), "a, b")
    assert.strictEqual(brandFrom([{ brandName: " " }], "x.co").brandName, "x.co")
  })
})
