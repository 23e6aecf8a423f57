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

  it("a LinkedIn post too long for its platform drops the facts, keeping the hook, the CTA and the hashtags", () => {
    const a = "A".repeat(1400)
    const b = "B".repeat(1700)
    const draft = writeDraft({
      kind: "social",
      brandName: "Acme",
      topic: "Cold outreach",
      platform: "linkedin",
      facts: [a, b]
    })
    const parts = draft.body.split("\n\n")
    assert.strictEqual(parts[0], draft.hook)
    assert.strictEqual(parts.at(-2), draft.cta)
    assert.strictEqual(parts.at(-1), draft.hashtags.join(" "))
    assert.notInclude(draft.body, a)
    assert.isAtMost(charLength(draft.body), 3000)
    const short = writeDraft({
      kind: "social",
      brandName: "Acme",
      topic: "Cold outreach",
      platform: "linkedin",
      facts: ["12 replies"]
    })
    assert.include(short.body.split("\n\n"), "- 12 replies")
  })

  it("on X the hashtags go first, then the CTA: the hook stays whole", () => {
    const draft = writeDraft({
      kind: "social",
      brandName: "B".repeat(80),
      topic: "t".repeat(120),
      platform: "x",
      audience: "a".repeat(80)
    })
    assert.strictEqual(draft.body, draft.hook)
    assert.isFalse(draft.body.endsWith("…"))
    const roomy = writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "x" })
    assert.strictEqual(roomy.body, `${roomy.hook} ${roomy.cta} ${roomy.hashtags.join(" ")}`)
  })

  it("audience groups are cut to 60 characters and named as a group; hashtags are the topic's and the brand's, never generic", () => {
    const draft = writeDraft({ kind: "blog", brandName: "Acme", topic: "Rockets", audience: "a".repeat(100) })
    assert.include(draft.body, `This guide is for ${"a".repeat(60)}s.`)
    assert.deepStrictEqual(
      writeDraft({ kind: "social", brandName: "Acme", topic: "Cold outreach", platform: "linkedin" }).hashtags,
      ["#ColdOutreach", "#Acme"]
    )
  })
})

describe("cron edges", () => {
  it("croner's reason without its prefix; a schedule that never fires has no next time", () => {
    assert.strictEqual(cronProblem("61 * * * *"), "is not a valid cron expression (Invalid value for minute: 61)")
    assert.isUndefined(nextFire("0 0 30 2 *", "UTC", new Date(Date.UTC(2026, 0, 1))))
  })
})
