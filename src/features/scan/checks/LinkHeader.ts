/**
 * Entries of a `Link:` header (RFC 8288): `<uri>; rel="x"; hreflang="y"`,
 * comma separated; reading stops at the first entry that is not one.
 *
 * A quoted value that leaves the rest of its entry unreadable is read again as
 * a bare token ending at the first `;`, `,` or blank, so `title="a, b` ends its
 * entry at the comma. A backtracking pattern tries those two readings of every
 * quoted value in turn (exponential in their number); here whether the
 * parameters from a position end an entry, and where, is worked out once per
 * position, from the end of the header backwards.
 */
export const parseLinkHeader = (value: string): ReadonlyArray<Record<string, string>> => {
  const ends = parameterEnds(value)
  const out: Array<Record<string, string>> = []
  let at = 0
  while (at < value.length) {
    const open = skip(blanks, value, at)
    const close = value[open] === "<" ? value.indexOf(">", open + 1) : -1
    if (close < 0) break
    const start = skip(blanks, value, close + 1)
    const end = ends[start]
    if (end < 0) break
    const params: Record<string, string> = { uri: value.slice(open + 1, close) }
    for (const param of value.slice(start, end).matchAll(/;\s*([^;,=\s]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*))?/g)) {
      const raw = param[2] ?? ""
      const key = param[1].toLowerCase()
      if (!(key in params)) params[key] = raw.startsWith("\"") ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw
    }
    out.push(params)
    at = end < value.length ? end + 1 : end
  }
  return out
}

const blanks = /\s*/y
const key = /[^;,=\s]+/y
const quoted = /"(?:[^"\\]|\\.)*"/y
const bare = /[^;,\s]*/y

/** The index after the match of sticky `pattern` at `at`, or -1. */
const skip = (pattern: RegExp, text: string, at: number): number => {
  pattern.lastIndex = at
  return pattern.test(text) ? pattern.lastIndex : -1
}

/**
 * For each position where an entry's parameters may start (after `>` and
 * blanks, or after a parameter and its blanks): where they end, at the
 * entry's `,` or the end of the header, or -1 when no reading ends the entry.
 */
const parameterEnds = (text: string): Int32Array => {
  const ends = new Int32Array(text.length + 1).fill(-1)
  ends[text.length] = text.length
  for (let p = text.length - 1; p >= 0; p--) {
    if (text[p] === ",") ends[p] = p
    else if (text[p] === ";") ends[p] = afterParameter(text, p, ends)
  }
  return ends
}

/** Where the parameters from the `;` at `p` end, given the ends of every later position. */
const afterParameter = (text: string, p: number, ends: Int32Array): number => {
  const nameEnd = skip(key, text, skip(blanks, text, p + 1))
  if (nameEnd < 0) return -1
  const afterName = skip(blanks, text, nameEnd)
  if (text[afterName] !== "=") return ends[afterName]
  const valueStart = skip(blanks, text, afterName + 1)
  const quotedEnd = skip(quoted, text, valueStart)
  const asQuoted = quotedEnd < 0 ? -1 : ends[skip(blanks, text, quotedEnd)]
  return asQuoted >= 0 ? asQuoted : ends[skip(blanks, text, skip(bare, text, valueStart))]
}
