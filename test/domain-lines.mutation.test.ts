import { assert, describe, it } from "@effect/vitest"
import { lighthouseLlmsRule, parseLlmsTxt } from "../src/domain/LlmsTxt.ts"
import { cutLastLineAt, lastLineStart } from "../src/domain/Text.ts"

describe("the last line of a text", () => {
  it("starts after the last of the four line breaks, or at 0", () => {
    assert.strictEqual(lastLineStart("abc"), 0)
    assert.strictEqual(lastLineStart(""), 0)
    for (const lineBreak of ["\n", "\r", "\u2028", "\u2029"]) {
      assert.strictEqual(lastLineStart(`a${lineBreak}bc`), 2, JSON.stringify(lineBreak))
      assert.strictEqual(lastLineStart(`a${lineBreak}b\nc`), 4, JSON.stringify(lineBreak))
      assert.strictEqual(lastLineStart(`a\nb${lineBreak}c`), 4, JSON.stringify(lineBreak))
    }
  })

  it("is cut at its first mark, as `replace(/[marks].*$/, \"\")` cuts", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["a.b.c", "a"],
      ["a.b\nc.d.e", "a.b\nc"],
      ["a.b\nc", "a.b\nc"],
      ["no mark", "no mark"],
      [".", ""],
      ["x\n.", "x\n"],
      ["a:b;c", "a"],
      ["a;b", "a"],
      ["a\u2028b.c", "a\u2028b"],
      ["a.b\r", "a.b\r"],
      ["", ""]
    ]
    for (const [text, cut] of cases) assert.strictEqual(cutLastLineAt(text, /[.;:]/), cut, JSON.stringify(text))
    assert.strictEqual(cutLastLineAt("https://a.example/p#x#y", /#/), "https://a.example/p")
    assert.strictEqual(cutLastLineAt("fe80::1%eth0", /%/), "fe80::1")
  })
})

describe("llms.txt links", () => {
  const links = (line: string) => {
    const result = parseLlmsTxt(`# A\n## Docs\n${line}`)
    return result.ok ? result.file.sections[0].links : null
  }

  it("take notes after a colon, trimmed, on one line after the blanks that follow it", () => {
    assert.deepStrictEqual(links("- [a](u)"), [{ name: "a", url: "u", notes: undefined }])
    assert.deepStrictEqual(links("- [a](u):"), [{ name: "a", url: "u", notes: undefined }])
    assert.deepStrictEqual(links("- [a](u):  the notes "), [{ name: "a", url: "u", notes: "the notes" }])
    assert.deepStrictEqual(links("- [a](u):\u2028 notes"), [{ name: "a", url: "u", notes: "notes" }])
    assert.isNull(links("- [a](u): one\u2028two"))
    assert.isNull(links("- [a](u) notes"))
    assert.isNull(links("- [a](u)x: notes"))
  })

  it("count for Lighthouse when one line holds [text](url)", () => {
    const padded = (text: string) => `# Title\n${text}\n${"x".repeat(60)}`
    assert.isTrue(lighthouseLlmsRule(padded("see [a](b) here")))
    assert.isTrue(lighthouseLlmsRule(padded("[[a]](b)")))
    assert.isTrue(lighthouseLlmsRule(padded("[](a](b)")))
    assert.isFalse(lighthouseLlmsRule(padded("[](b)")))
    assert.isFalse(lighthouseLlmsRule(padded("[a]()")))
    assert.isFalse(lighthouseLlmsRule(padded("[a]\n(b)")))
    assert.isFalse(lighthouseLlmsRule(padded("[a](\nb)")))
    assert.isFalse(lighthouseLlmsRule(padded("[a](b\u2028)")))
    assert.isFalse(lighthouseLlmsRule(padded("a](b) [")))
  })
})
