import fc from "fast-check"
import { assert, describe, it } from "@effect/vitest"
import { brandFrom, fitWords, hashtag, profileText, stableHash, writeDraft, type Brief } from "../src/domain/Copywriting.ts"
import { charLength } from "../src/domain/Text.ts"

const base: Brief = { kind: "email", brandName: "Acme", topic: "Email marketing", audience: "founders" }

/** Every distinct value `read` gives over many angles of one brief. */
const variants = (brief: Brief, read: (draft: ReturnType<typeof writeDraft>) => ReadonlyArray<string>) => {
  const seen = new Set<string>()
  for (let angle = 0; angle < 400; angle++) for (const text of read(writeDraft({ ...brief, angle }))) seen.add(text)
  return [...seen].sort()
}

/** The points an email lists: between the hook and the CTA. */
const emailPoints = (draft: ReturnType<typeof writeDraft>) => draft.body.split("\n\n").slice(2, -2)

describe("house writer templates", () => {
  it("hooks name the topic, the audience and the brand", () => {
    assert.deepStrictEqual(variants(base, (d) => [d.hook]), [
      "A simple rule for email marketing that founders can use today.",
      "Email marketing: three things we learned the hard way at Acme.",
      "Most founders get email marketing wrong. Here is what works.",
      "Stop guessing about email marketing.",
      "The quiet advantage in email marketing that founders overlook.",
      "What would change if email marketing took half the effort?"
    ])
  })

  it("titles", () => {
    assert.deepStrictEqual(variants(base, (d) => [d.title]), [
      "Email marketing, without the guesswork",
      "Email marketing: a practical guide from Acme",
      "How founders can get more from email marketing",
      "The email marketing checklist for founders",
      "What Acme learned about email marketing"
    ])
  })

  it("calls to action point to the brand's URL when there is one", () => {
    assert.deepStrictEqual(variants(base, (d) => [d.cta]), [
      "Follow Acme for more.",
      "Questions about email marketing? Ask Acme.",
      "Save this for later and share it with your team.",
      "Tell us how you handle email marketing."
    ])
    assert.deepStrictEqual(variants({ ...base, url: " https://acme.test/a " }, (d) => [d.cta]), [
      "Learn more: https://acme.test/a",
      "Questions about email marketing? Ask Acme.",
      "See how Acme can help: https://acme.test/a",
      "Tell us how you handle email marketing."
    ])
  })

  it("points, with the brand's product when it has one", () => {
    const common = [
      "Consistency wins: a steady rhythm on email marketing compounds over months.",
      "Keep it simple: one message, one audience, one next step.",
      "Measure one thing about email marketing every week; drop what does not move it.",
      "Show proof: a number, a customer story or a before-and-after beats a claim.",
      "Start with the outcome founders care about, then work back to email marketing.",
      "Write for people first; search engines and assistants follow clear answers."
    ]
    assert.deepStrictEqual(variants(base, emailPoints), [...common, "Use tools to take the repetitive part of email marketing off your plate."].sort())
    assert.deepStrictEqual(
      variants({ ...base, products: ["  ", " Flow  app "] }, emailPoints),
      [...common, "Flow app helps to take the repetitive part of email marketing off your plate."].sort()
    )
  })
})

describe("house writer pieces", () => {
  it("an email: greeting, hook, points, facts, CTA and signature", () => {
    const draft = writeDraft({ ...base, facts: [" 12  new  signups ", " "], angle: 3 })
    const parts = draft.body.split("\n\n")
    assert.strictEqual(parts[0], "Hi there,")
    assert.strictEqual(parts[1], draft.hook)
    assert.strictEqual(parts.at(-1), "— The Acme team")
    assert.strictEqual(parts.at(-2), draft.cta)
    assert.strictEqual(parts.at(-3), "- 12 new signups")
    assert.deepStrictEqual(draft.hashtags, [])
    assert.strictEqual(new Set(parts.slice(2, -3)).size, parts.length - 5, "no point twice")
  })

  it("an empty brief still names a topic, a brand and an audience", () => {
    const draft = writeDraft({ kind: "report", brandName: "  ", topic: " \n ", audience: "  " })
    assert.strictEqual(draft.title, "Marketing: a practical guide from our team")
    assert.strictEqual(draft.hook, "Most busy teams get marketing wrong. Here is what works.")
    assert.deepStrictEqual(draft.body.split("\n\n"), [
      "# Marketing: a practical guide from our team",
      "Most busy teams get marketing wrong. Here is what works.",
      "## Recommendations",
      "- Consistency wins: a steady rhythm on marketing compounds over months.",
      "- Use tools to take the repetitive part of marketing off your plate.",
      "- Keep it simple: one message, one audience, one next step.",
      "Follow our team for more."
    ])
  })

  it("a report lists its findings before the recommendations", () => {
    const draft = writeDraft({ kind: "report", brandName: "Acme", topic: "Weekly performance", facts: ["120 clicks", "4 posts"] })
    assert.deepStrictEqual(draft.body.split("\n\n"), [
      "# The weekly performance checklist for busy teams",
      "Weekly performance: three things we learned the hard way at Acme.",
      "## Findings",
      "- 120 clicks",
      "- 4 posts",
      "## Recommendations",
      "- Keep it simple: one message, one audience, one next step.",
      "- Measure one thing about weekly performance every week; drop what does not move it.",
      "Questions about weekly performance? Ask Acme."
    ])
  })

  it("a blog: title, hook, description or introduction, numbered sections, numbers, next step", () => {
    const intro = writeDraft({ kind: "blog", brandName: "Acme", topic: "Email marketing", audience: "founders" })
    assert.deepStrictEqual(intro.body.split("\n\n"), [
      "# Email marketing: a practical guide from Acme",
      "A simple rule for email marketing that founders can use today.",
      "At Acme we spend our days on email marketing. This guide is for founders.",
      "## 1. Start with the outcome founders care about, then work back to email marketing",
      "Start with the outcome founders care about, then work back to email marketing. Write for people first; search engines and assistants follow clear answers.",
      "## 2. Show proof",
      "Show proof: a number, a customer story or a before-and-after beats a claim. Consistency wins: a steady rhythm on email marketing compounds over months.",
      "## Next step",
      "Save this for later and share it with your team."
    ])
    const described = writeDraft({ kind: "blog", brandName: "Acme", topic: "Rockets", description: " Acme  makes rockets. ", facts: ["42 launches"] })
    const parts = described.body.split("\n\n")
    assert.strictEqual(parts[2], "Acme makes rockets.")
    assert.deepStrictEqual(parts.slice(-4), ["## In numbers", "- 42 launches", "## Next step", described.cta])
    assert.match(parts[3], /^## 1\. /)
  })

  it("every blog section ends on a sentence of its own: not the section's point, not another section's", () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 20 }), (topic, brandName) => {
      const parts = writeDraft({ kind: "blog", brandName, topic }).body.split("\n\n")
      const sections = parts.filter((_, i) => i > 0 && /^## \d+\. /.test(parts[i - 1]!))
      const endings = sections.map((text) => text.slice(text.lastIndexOf(". ", text.length - 2) + 2))
      assert.strictEqual(new Set(endings).size, endings.length, JSON.stringify(sections))
      for (const text of sections) assert.isFalse(text.endsWith(` ${text.slice(0, text.indexOf(". ") + 1)}`), text)
    }))
  })

  it("a topic in capitals (an acronym or a name) keeps them mid-sentence; a capitalised word is lower-cased", () => {
    assert.include(writeDraft({ kind: "blog", brandName: "Acme", topic: "SEO audits" }).body, "SEO audits")
    assert.notInclude(writeDraft({ kind: "blog", brandName: "Acme", topic: "SEO audits" }).body, "sEO")
    assert.include(writeDraft({ kind: "blog", brandName: "Acme", topic: "Email marketing", audience: "founders" }).body, "work back to email marketing")
  })

  it("an outreach message introduces the brand with its description", () => {
    const draft = writeDraft({ kind: "outreach", brandName: "Acme", topic: "Partnerships", description: "We build tools for makers." })
    assert.strictEqual(draft.body,
      "Hello,\n\nI am reaching out from Acme (We build tools for makers.).\n\n" +
        "We work with busy teams on partnerships. Use tools to take the repetitive part of partnerships off your plate.\n\n" +
        "Would a short call next week be useful? Tell us how you handle partnerships.\n\nBest regards,\nAcme")
    assert.include(writeDraft({ kind: "outreach", brandName: "Acme", topic: "Partnerships" }).body, "I am reaching out from Acme.\n\n")
  })

  it("a post on X is one paragraph with hashtags; a playful voice shows", () => {
    const draft = writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "x", keywords: ["sales", " ", "b2b"], voice: "Playful" })
    assert.strictEqual(draft.hook, "What would change if cold outreach took half the effort? Yes, really.")
    assert.deepStrictEqual(draft.hashtags, ["#ColdOutreach", "#Sales"])
    assert.strictEqual(draft.body,
      "What would change if cold outreach took half the effort? Yes, really. Write for people first; search engines and assistants " +
        "follow clear answers. Use tools to take the repetitive part of cold outreach off your plate. Tell us how you handle cold outreach. " +
        "#ColdOutreach #Sales")
    assert.notInclude(writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "x", voice: "Formal" }).hook, "Yes, really")
    assert.include(writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "x", voice: "FUN" }).hook, "Yes, really")
  })

  it("LinkedIn takes three hashtags, Instagram five, others two; bullets, facts, CTA, tags", () => {
    const linkedin = writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "linkedin", keywords: ["sales", "b2b"], url: "https://acme.test" })
    assert.strictEqual(linkedin.body,
      "What would change if cold outreach took half the effort?\n\n" +
        "• Show proof: a number, a customer story or a before-and-after beats a claim.\n\n" +
        "• Start with the outcome busy teams care about, then work back to cold outreach.\n\n" +
        "• Consistency wins: a steady rhythm on cold outreach compounds over months.\n\n" +
        "See how Acme can help: https://acme.test\n\n#ColdOutreach #Sales #B2b")
    const instagram = writeDraft({ kind: "ad", brandName: "Acme", topic: "Product launches", platform: "instagram", keywords: ["launch"], facts: ["3x reach"] })
    assert.deepStrictEqual(instagram.hashtags, ["#ProductLaunches", "#Launch", "#Acme", "#MarketingTips", "#SmallBusiness"])
    assert.include(instagram.body, "\n\n- 3x reach\n\n")
    assert.isTrue(instagram.body.endsWith("\n\n#ProductLaunches #Launch #Acme #MarketingTips #SmallBusiness"))
    assert.lengthOf(writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "tiktok", keywords: ["a b", "c d", "e f"] }).hashtags, 5)
    assert.lengthOf(writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "facebook", keywords: ["a b", "c d"] }).hashtags, 2)
    assert.lengthOf(writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", keywords: ["a b", "c d"] }).hashtags, 2)
    // A tag already taken (in any case) is not repeated.
    assert.deepStrictEqual(writeDraft({ kind: "social", brandName: "Sales", topic: "sales", platform: "linkedin", keywords: ["SALES"] }).hashtags,
      ["#Sales", "#MarketingTips", "#SmallBusiness"])
  })

  it("a long post drops middle parts first, keeps the CTA and tags, and fits the platform", () => {
    const long = "word ".repeat(40).trim()
    const draft = writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "x", facts: [long, long, long] })
    assert.isAtMost(charLength(draft.body), 280)
    assert.isTrue(draft.body.startsWith(draft.hook), draft.body)
    assert.isTrue(draft.body.endsWith(draft.hashtags.join(" ")), draft.body)
    assert.include(draft.body, draft.cta)
    const pinterest = writeDraft({ kind: "blog", brandName: "Acme", topic: "Cold outreach", platform: "pinterest" })
    assert.isAtMost(charLength(pinterest.body), 500)
    assert.isAbove(charLength(pinterest.body), 480)
    assert.isTrue(pinterest.body.endsWith("…"))
  })

  it("the same brief gives the same piece; the angle, kind and platform vary it", () => {
    assert.deepStrictEqual(writeDraft(base), writeDraft({ ...base }))
    assert.deepStrictEqual(writeDraft(base), writeDraft({ ...base, angle: 0 }))
    assert.deepStrictEqual(writeDraft({ ...base, platform: null }), writeDraft({ ...base, platform: "" }))
    const hooks = new Set([0, 1, 2, 3, 4, 5, 6, 7].map((angle) => writeDraft({ ...base, angle }).hook))
    assert.isAbove(hooks.size, 2)
  })

  it("long brand names, topics and audiences are cut", () => {
    const draft = writeDraft({ kind: "report", brandName: "B".repeat(100), topic: "t".repeat(200), audience: "a".repeat(100) })
    assert.include(draft.body, "B".repeat(80))
    assert.notInclude(draft.body, "B".repeat(81))
    assert.include(draft.body, "t".repeat(120))
    assert.notInclude(draft.body, "t".repeat(121))
  })
})

describe("house writer helpers", () => {
  it("stableHash is 32-bit FNV-1a", () => {
    assert.strictEqual(stableHash(""), 0x811c9dc5)
    assert.strictEqual(stableHash("a"), 0xe40c292c)
    assert.strictEqual(stableHash("foobar"), 0xbf9cf968)
  })

  it("hashtag: letters and digits, CamelCase, at most 30 characters", () => {
    assert.strictEqual(hashtag("marketing tips"), "#MarketingTips")
    assert.strictEqual(hashtag("  café au-lait! "), "#CafeAuLait")
    assert.strictEqual(hashtag("100 days of code"), "#100DaysOfCode")
    assert.strictEqual(hashtag("ab"), "#Ab")
    assert.isUndefined(hashtag("a"))
    assert.isUndefined(hashtag("!!"))
    assert.isUndefined(hashtag(""))
    assert.strictEqual(hashtag("abcdefghij ".repeat(4)), "#AbcdefghijAbcdefghijAbcdefghij")
  })

  it("fitWords cuts at a word boundary with an ellipsis, never past the limit", () => {
    assert.strictEqual(fitWords("hello world", 11), "hello world")
    assert.strictEqual(fitWords("hello world", 12), "hello world")
    assert.strictEqual(fitWords("alpha beta gamma", 12), "alpha beta…")
    assert.strictEqual(fitWords("alphabetagamma delta", 10), "alphabeta…")
    assert.strictEqual(fitWords("one, two, three", 10), "one, two…")
    assert.strictEqual(fitWords("ab cd.. efgh", 8), "ab cd…")
    assert.strictEqual(fitWords("a-b-c-d-e-f", 6), "a-b-c…")
    assert.strictEqual(fitWords("abc", 1), "a")
    assert.strictEqual(fitWords("abc", 0), "")
    assert.strictEqual(fitWords("abc", -1), "")
    assert.strictEqual(fitWords("😀😀😀", 2), "😀…")
    assert.strictEqual(fitWords("😀😀", 2), "😀😀")
  })

  it("profileText trims text and joins lists; brandFrom trims product lists", () => {
    assert.strictEqual(profileText("  a  "), "a")
    assert.strictEqual(profileText(["  a ", "", 3, " ", " b"]), "a, b")
    assert.isUndefined(profileText(["  ", 1]))
    assert.isUndefined(profileText("   "))
    assert.isUndefined(profileText(5))
    assert.deepStrictEqual(brandFrom([{ products: ["  Flow ", " ", 7] }], "x").products, ["Flow"])
    assert.deepStrictEqual(brandFrom([{ products: [" "] }, { products: ["Desk"] }], "x").products, ["Desk"])
  })
})
