import { assert, describe, it } from "@effect/vitest"
import { fitWords, writeDraft } from "../src/domain/Copywriting.ts"
import { cronProblem, nextFire } from "../src/domain/Cron.ts"
import { charLength } from "../src/domain/Text.ts"

describe("house writer: cutting and fitting", () => {
  it("cuts at the last space only when it keeps more than half the text", () => {
    assert.strictEqual(fitWords("alphabet gamma delta", 14), "alphabet…")
    assert.strictEqual(fitWords("abcdef ghijklmnop", 12), "abcdef ghij…")
    assert.strictEqual(fitWords("abcdefg hijklmnop", 12), "abcdefg…")
  })

  it("a post too long for its platform drops the last facts first, keeping the CTA and hashtags", () => {
    const a = "A".repeat(1400)
    const b = "B".repeat(1400)
    const draft = writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "linkedin", facts: [a, b] })
    const parts = draft.body.split("\n\n")
    assert.deepStrictEqual(parts.map((p) => p.slice(0, 2)), ["Wh", "• ", "• ", "• ", "- ", "Sa", "#C"])
    assert.strictEqual(parts[4], `- ${a}`)
    assert.strictEqual(parts.at(-1), draft.hashtags.join(" "))
    assert.isAtMost(charLength(draft.body), 3000)
  })

  it("then the hashtags, then the CTA: the hook stays", () => {
    const draft = writeDraft({ kind: "social", brandName: "B".repeat(80), topic: "t".repeat(120), platform: "x", audience: "a".repeat(80) })
    assert.strictEqual(draft.body, draft.hook)
  })

  it("a post that fits exactly is kept whole", () => {
    let found = false
    for (let n = 1; n < 280 && !found; n++) {
      const fact = "f".repeat(n)
      const draft = writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "x", facts: [fact] })
      found = charLength(draft.body) === 280 && draft.body.includes(`- ${fact} `)
    }
    assert.isTrue(found)
  })

  it("audiences are cut to 80 characters; no keywords means topic, brand and the generic tags", () => {
    const draft = writeDraft({ kind: "blog", brandName: "Acme", topic: "Rockets", audience: "a".repeat(100) })
    assert.include(draft.body, `This guide is for ${"a".repeat(80)}.`)
    assert.deepStrictEqual(writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "linkedin" }).hashtags,
      ["#ColdOutreach", "#Acme", "#MarketingTips"])
  })
})

describe("cron edges", () => {
  it("croner's reason without its prefix; a schedule that never fires has no next time", () => {
    assert.strictEqual(cronProblem("61 * * * *"), "is not a valid cron expression (Invalid value for minute: 61)")
    assert.isUndefined(nextFire("0 0 30 2 *", "UTC", new Date(Date.UTC(2026, 0, 1))))
  })
})
