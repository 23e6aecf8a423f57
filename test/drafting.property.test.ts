import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { RunContentCreationInput } from "../src/api/tools/inputs.ts"
import { NewContent, platformBodyLimits } from "../src/domain/Content.ts"
import { capitalize, fitWords } from "../src/domain/Copywriting.ts"
import { charLength } from "../src/domain/Text.ts"
import { draftPiece } from "../src/features/content/drafting.ts"

const words = fc.string({ minLength: 1, maxLength: 40, unit: "grapheme-ascii" }).filter((s) => s.trim().length > 0)

const request = fc.record({
  customerId: fc.constant("00000000-0000-4000-8000-000000000000"),
  type: fc.constantFrom("blog", "social", "email", "ad", "outreach"),
  topic: fc.string({ minLength: 1, maxLength: 300 }).filter((s) => s.trim().length > 0),
  platform: fc.option(fc.constantFrom("x", "linkedin", "instagram", "pinterest", "newsletter"), { nil: undefined }),
  brief: fc.option(
    fc.array(fc.string({ minLength: 1, maxLength: 400 }), { minLength: 1, maxLength: 12 }).map((lines) =>
      lines.join("\n")
    ),
    { nil: undefined }
  ),
  keywords: fc.option(fc.array(words, { maxLength: 10 }), { nil: undefined }),
  callToAction: fc.option(words, { nil: undefined }),
  url: fc.option(fc.webUrl(), { nil: undefined })
}, { requiredKeys: ["customerId", "type", "topic"] })

describe("run_content_creation drafting", () => {
  it("always writes a storable piece that fits its platform, titled by the topic", () =>
    fc.assert(
      fc.property(request, (raw) => {
        const input = Schema.decodeUnknownSync(RunContentCreationInput)(JSON.parse(JSON.stringify(raw)))
        const draft = draftPiece(input)
        assert.isAbove(draft.body.length, 0)
        const limit = input.platform === undefined ? undefined : platformBodyLimits[input.platform]
        if (limit !== undefined) assert.isAtMost(charLength(draft.body), limit)
        assert.strictEqual(draft.title, capitalize(input.topic.trim()))
        // What Content.create is given passes the REST schema's own rules.
        const piece = {
          type: input.type,
          title: draft.title.slice(0, 300) || "t",
          body: draft.body,
          ...(input.platform === undefined ? {} : { platform: input.platform })
        }
        assert.isTrue(Schema.is(NewContent)(piece), JSON.stringify(piece))
      }),
      { numRuns: 300 }
    ))

  it("invents no figures: every number in the piece comes from the request", () =>
    fc.assert(
      fc.property(request, (raw) => {
        const input = Schema.decodeUnknownSync(RunContentCreationInput)(JSON.parse(JSON.stringify(raw)))
        const source = JSON.stringify(input)
        for (const number of draftPiece(input).body.match(/\d+/g) ?? []) assert.include(source, number)
      }),
      { numRuns: 300 }
    ))

  it("fitWords never exceeds the limit and keeps text that fits", () =>
    fc.assert(fc.property(fc.string({ maxLength: 600 }), fc.integer({ min: 1, max: 500 }), (text, max) => {
      const fitted = fitWords(text, max)
      assert.isAtMost(charLength(fitted), max)
      if (charLength(text) <= max) assert.strictEqual(fitted, text)
    })))
})
