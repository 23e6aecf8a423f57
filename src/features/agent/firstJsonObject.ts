/**
 * The first JSON object in a text: the leftmost "{" at which a JSON object
 * starts (one JSON.parse accepts, ending at its matching "}"), parsed; {} when
 * there is none.
 *
 * Linear time. Each candidate "{" is checked by one validating scan, never by
 * parsing slices (which re-reads the text once per pair of braces: cubic). A
 * scan records for every object it meets at a value position whether it is
 * valid and where it ends, and later scans jump over those or stop at them:
 * an object nested at a value position is read by its container exactly as
 * on its own, so it is valid when its container reaches its end and invalid
 * when its container fails while it is open. A "{" that a scan passed inside
 * a string starts its own scan; two scans alive at the same place disagree on
 * whether they are inside a string (quotes toggle both, an escape outside a
 * string ends one), so at most two scans read any character.
 */
export const firstJsonObject = (text: string): Record<string, unknown> => {
  // Per position: 0 not yet known, -1 no object starts there, else the index after its "}".
  const verdicts = new Int32Array(text.length)
  for (let start = text.indexOf("{"); start >= 0; start = text.indexOf("{", start + 1)) {
    if (verdicts[start] === 0) scan(text, start, verdicts)
    if (verdicts[start] > 0) return JSON.parse(text.slice(start, verdicts[start])) as Record<string, unknown>
  }
  return {}
}

// Raw characters from U+0020 up, except the quote and the backslash: JSON strings hold no control characters.
const stringToken = /"(?:[\u0020\u0021\u0023-\u005b\u005d-\uffff]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y
const numberToken = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const literalToken = /true|false|null/y
const whitespace = /[ \t\n\r]*/y

/** The index after the token of `pattern` at `at`, or -1. */
const tokenEnd = (pattern: RegExp, text: string, at: number): number => {
  pattern.lastIndex = at
  return pattern.test(text) ? pattern.lastIndex : -1
}

const skipWhitespace = (text: string, at: number): number => tokenEnd(whitespace, text, at)

interface Frame {
  readonly object: boolean
  readonly start: number
}

type Expect = "value" | "valueOrEnd" | "key" | "keyOrEnd" | "colon" | "next"

/** Validates the JSON object at `root`, recording verdicts for it and every object it contains. */
const scan = (text: string, root: number, verdicts: Int32Array): void => {
  const stack: Array<Frame> = []
  let expect: Expect = "value"
  let i = root
  const fail = () => {
    for (const frame of stack) if (frame.object) verdicts[frame.start] = -1
  }
  for (;;) {
    i = skipWhitespace(text, i)
    if (i >= text.length) return fail()
    const c = text[i]
    if (
      (expect === "valueOrEnd" && c === "]") || (expect === "keyOrEnd" && c === "}") ||
      (expect === "next" && c === (stack[stack.length - 1].object ? "}" : "]"))
    ) {
      const frame = stack.pop()!
      if (frame.object) verdicts[frame.start] = i + 1
      if (stack.length === 0) return
      i++
      expect = "next"
    } else if (expect === "value" || expect === "valueOrEnd") {
      if (c === "{" && verdicts[i] !== 0) {
        if (verdicts[i] < 0) return fail()
        i = verdicts[i]
        expect = "next"
      } else if (c === "{" || c === "[") {
        stack.push({ object: c === "{", start: i })
        i++
        expect = c === "{" ? "keyOrEnd" : "valueOrEnd"
      } else {
        i = tokenEnd(
          c === "\"" ? stringToken : c === "t" || c === "f" || c === "n" ? literalToken : numberToken,
          text,
          i
        )
        if (i < 0) return fail()
        expect = "next"
      }
    } else if (expect === "key" || expect === "keyOrEnd") {
      i = c === "\"" ? tokenEnd(stringToken, text, i) : -1
      if (i < 0) return fail()
      expect = "colon"
    } else if (expect === "colon" && c === ":") {
      i++
      expect = "value"
    } else if (expect === "next" && c === ",") {
      i++
      expect = stack[stack.length - 1].object ? "key" : "value"
    } else {
      return fail()
    }
  }
}
