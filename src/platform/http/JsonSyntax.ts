/**
 * Where a JSON text first goes wrong (RFC 8259 grammar), as an offset in
 * characters and a line and column (both from 1), or undefined when it is
 * valid JSON. JSON.parse says that a text is wrong but, for many errors, not
 * where; a client fixing its request wants the place.
 */
export interface JsonSyntaxError {
  readonly offset: number
  readonly line: number
  readonly column: number
  readonly expected: string
}

const tooDeep = Symbol("too deep")

export const findJsonSyntaxError = (text: string): JsonSyntaxError | undefined => {
  let i = 0
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++
  }
  const fail = (expected: string): never => {
    throw { offset: i, expected }
  }
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length
    else fail("a JSON value")
  }
  const string = () => {
    i++ // opening quote
    for (;;) {
      if (i >= text.length) fail("a closing quote")
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        i++
        return
      }
      if (c < 0x20) fail("no control character inside a string")
      if (c === 0x5c) {
        const next = text[i + 1]
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i += 2
            fail("four hex digits")
          }
          i += 6
        } else if (next !== undefined && "\"\\/bfnrt".includes(next)) i += 2
        else {
          i++
          fail("a valid escape")
        }
      } else i++
    }
  }
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400))
    if (match === null || match[0] === "-" || match[0] === "") fail("a JSON value")
    i += match![0].length
  }
  const value = (depth: number): void => {
    // Deeper than any request Herald accepts (metadata nests 16 levels): JSON.parse's own answer will do.
    if (depth > 1000) throw tooDeep
    ws()
    const c = text[i]
    if (c === "{") {
      i++
      ws()
      if (text[i] === "}") {
        i++
        return
      }
      for (;;) {
        ws()
        if (text[i] !== "\"") fail("a property name in double quotes")
        string()
        ws()
        if (text[i] !== ":") fail("':' after a property name")
        i++
        value(depth + 1)
        ws()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "}") {
          i++
          return
        }
        fail("',' or '}' after a property value")
      }
    }
    if (c === "[") {
      i++
      ws()
      if (text[i] === "]") {
        i++
        return
      }
      for (;;) {
        value(depth + 1)
        ws()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "]") {
          i++
          return
        }
        fail("',' or ']' after an array element")
      }
    }
    if (c === "\"") return string()
    if (c === "t") return literal("true")
    if (c === "f") return literal("false")
    if (c === "n") return literal("null")
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number()
    fail(i >= text.length ? "more input (the text ends early)" : "a JSON value")
  }
  try {
    value(0)
    ws()
    if (i < text.length) fail("the end of the text")
    return undefined
  } catch (thrown) {
    if (thrown === tooDeep) return undefined
    if (typeof thrown !== "object" || thrown === null || !("offset" in thrown)) throw thrown
    const { offset, expected } = thrown as { offset: number; expected: string }
    const before = text.slice(0, offset)
    const line = before.split("\n").length
    const column = offset - before.lastIndexOf("\n")
    return { offset, line, column, expected }
  }
}

/** "Request body is not valid JSON: expected ... at line 3, column 11 (offset 29)". */
export const malformedJsonMessage = (error: JsonSyntaxError): string =>
  `Request body is not valid JSON: expected ${error.expected} at line ${error.line}, column ${error.column} (character ${error.offset})`
