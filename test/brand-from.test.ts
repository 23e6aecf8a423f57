import { assert, describe, it } from "@effect/vitest"
import { brandFrom, profileText } from "../src/domain/Copywriting.ts"

describe("brandFrom", () => {
  it("takes each field from the first source that says something, lists joined, never invented", () => {
    const options = { brandName: "  ", voice: "bold", products: [] }
    const profile = {
      brandName: "Crumb",
      description: "Bread.",
      voice: ["warm", "", 3],
      audience: ["home bakers", "cafes"],
      products: ["Kit", " "],
      topics: ["sourdough"],
      keywords: "rye, spelt",
      sourceUrl: "https://crumb.example/"
    }
    assert.deepStrictEqual(brandFrom([options, undefined, profile], "crumb.example"), {
      brandName: "Crumb",
      description: "Bread.",
      voice: "bold",
      audience: "home bakers, cafes",
      products: ["Kit"],
      topics: ["sourdough", "rye", "spelt"],
      url: "https://crumb.example/"
    })
    assert.deepStrictEqual(brandFrom([{}, { url: "https://a.example/", sourceUrl: "https://b.example/" }], "x.co"), {
      brandName: "x.co",
      description: undefined,
      voice: undefined,
      audience: undefined,
      products: [],
      topics: [],
      url: "https://a.example/"
    })
  })

  it("profileText trims text and joins lists of text", () => {
    assert.strictEqual(profileText("  warm "), "warm")
    assert.strictEqual(profileText(["a", " b ", 1, ""]), "a, b")
    assert.isUndefined(profileText([]))
    assert.isUndefined(profileText(" "))
    assert.isUndefined(profileText(7))
  })
})
