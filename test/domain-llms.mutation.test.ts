import { assert, describe, it } from "@effect/vitest"
import { cronProblem } from "../src/domain/Cron.ts"
import { lighthouseLlmsRule, parseLlmsTxt } from "../src/domain/LlmsTxt.ts"

const parsed = (text: string) => {
  const result = parseLlmsTxt(text)
  if (!result.ok) assert.fail(`${JSON.stringify(text)}: ${result.errors.join("; ")}`)
  return result.file
}

describe("llms.txt parsing, line by line", () => {
  it("blank lines may hold spaces, before the title, after it and inside sections", () => {
    assert.strictEqual(parsed("   \n\t\n# A").title, "A")
    assert.strictEqual(parsed("# A\n  \n> S").summary, "S")
    assert.deepStrictEqual(parsed("# A\n## Docs\n   \n- [a](https://a.example)").sections, [{
      name: "Docs",
      links: [{ name: "a", url: "https://a.example", notes: undefined }]
    }])
  })

  it("the summary: `>` lines, with or without a space, joined and trimmed", () => {
    assert.strictEqual(parsed("# A\n>S").summary, "S")
    assert.strictEqual(parsed("# A\n> one \n>two ").summary, "one  two")
    assert.strictEqual(parsed("# A\n> S ").summary, "S")
    const notQuote = parsed("# A\nText > more")
    assert.isUndefined(notQuote.summary)
    assert.strictEqual(notQuote.details, "Text > more")
  })

  it("details keep their lines; `#` or `##` inside a line is text", () => {
    assert.strictEqual(parsed("# A\nl1\nl2\n").details, "l1\nl2")
    assert.strictEqual(parsed("# A\nsee # 5\nx ## y").details, "see # 5\nx ## y")
    assert.strictEqual(parsed("# A\nx\uFEFFy").details, "x\uFEFFy")
  })

  it("section names and links are trimmed; notes after the colon are trimmed", () => {
    const file = parsed("# A\n##  Docs  \n  - [a](https://a.example):   first steps  \n- [b](https://b.example)")
    assert.deepStrictEqual(file.sections, [{
      name: "Docs",
      links: [{ name: "a", url: "https://a.example", notes: "first steps" }, {
        name: "b",
        url: "https://b.example",
        notes: undefined
      }]
    }])
  })

  it("Lighthouse's rule wants the heading at the start of a line", () => {
    const padding = "x".repeat(50)
    assert.isFalse(lighthouseLlmsRule(`Title # x\n[a](b) ${padding}`))
    assert.isTrue(lighthouseLlmsRule(`Intro\n# x\n[a](b) ${padding}`))
  })
})

describe("cron fields", () => {
  it("fields may be separated by several spaces or tabs", () => {
    assert.isUndefined(cronProblem("0  9\t* *   1"))
  })
})
