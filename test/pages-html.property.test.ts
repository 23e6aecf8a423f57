import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { parseDocument } from "htmlparser2"
import { linkify } from "../src/platform/http/Html.ts"

const text = (node: any): string => node.type === "text" ? node.data : (node.children ?? []).map(text).join("")
const anchors = (
  node: any
): Array<any> => [...(node.name === "a" ? [node] : []), ...(node.children ?? []).flatMap(anchors)]
const render = (value: string) => parseDocument(`<p>${linkify(value).value}</p>`, { decodeEntities: true })

const url = fc.webUrl({ withQueryParameters: true, withFragments: true })
const words = fc.string({ unit: "grapheme-composite", maxLength: 30 })

describe("links in a post's text", () => {
  it("the text reads the same; every link is an http(s) URL of the text, nofollow ugc, and the only element", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(words, url, fc.constantFrom("javascript:alert(1)", "<b>x</b>", "\"quoted\"")), {
          maxLength: 6
        }),
        (parts) => {
          const value = parts.join(" ")
          const doc = render(value)
          assert.strictEqual(text(doc), value)
          for (const a of anchors(doc)) {
            assert.match(a.attribs.href, /^https?:\/\//i)
            assert.strictEqual(a.attribs.rel, "nofollow noopener ugc")
            assert.strictEqual(text(a), a.attribs.href)
            assert.include(value, a.attribs.href)
          }
          const elements = (
            node: any
          ): Array<string> => [...(node.type === "tag" ? [node.name] : []), ...(node.children ?? []).flatMap(elements)]
          assert.deepStrictEqual(elements(doc).filter((name) => name !== "a"), ["p"])
        }
      )
    )
  })

  it("a URL in running text is linked without the sentence's punctuation; other schemes are not links", () => {
    const doc = render(
      "Read https://example.com/blog?x=1&y=2. Or (see https://example.com/a), not javascript:alert(1) or ftp://x.example"
    )
    assert.deepStrictEqual(anchors(doc).map((a) => a.attribs.href), [
      "https://example.com/blog?x=1&y=2",
      "https://example.com/a"
    ])
    assert.strictEqual(anchors(render("http:// alone")).length, 0)
    assert.strictEqual(
      anchors(render("https://x.example/\"onmouseover=\"alert(1)")).map((a) => a.attribs.href)[0],
      "https://x.example/"
    )
  })
})
