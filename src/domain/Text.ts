import { Schema, SchemaTransformation } from "effect"

/**
 * PostgreSQL's text and jsonb cannot hold NUL, and jsonb refuses an unpaired
 * surrogate: such input must be a 400 at the edge, never a failed statement.
 */
export const isStorableText = (text: string): boolean => !text.includes("\u0000") && text.isWellFormed()

/**
 * Walks a JSON value without recursion (a body under 1 MiB can nest hundreds
 * of thousands of levels), calling `visit` on every string, keys included,
 * with its depth; stops at the first `false`.
 */
const everyString = (root: unknown, visit: (text: string, depth: number) => boolean, maxDepth: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    if (typeof value === "string") {
      if (!visit(value, depth)) return false
    } else if (typeof value === "object" && value !== null) {
      if (depth >= maxDepth) return false
      for (const [key, inner] of Object.entries(value)) {
        if (!Array.isArray(value) && !visit(key, depth)) return false
        stack.push([inner, depth + 1])
      }
    }
  }
  return true
}

/** Every string in a JSON value, keys included, is storable. */
export const isStorableJson = (value: unknown): boolean => everyString(value, isStorableText, Number.POSITIVE_INFINITY)

/** Objects and arrays nest at most `levels` deep (the value itself is level 1). */
export const isNestedAtMost = (value: unknown, levels: number): boolean => everyString(value, () => true, levels)

/** Where the last line of a text starts: after its last line break (`\n`, `\r`, U+2028 or U+2029, the breaks `.` stops at). */
export const lastLineStart = (text: string): number =>
  Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"), text.lastIndexOf("\u2028"), text.lastIndexOf("\u2029")) + 1

/**
 * The text without its tail from the first `mark` on its last line: what
 * `text.replace(/[marks].*$/, "")` removes, in one pass (that pattern retries
 * from every mark before a line break, quadratic on hostile text).
 */
export const cutLastLineAt = (text: string, mark: RegExp): string => {
  const start = lastLineStart(text)
  const at = text.slice(start).search(mark)
  return at < 0 ? text : text.slice(0, start + at)
}

/**
 * Length in characters (code points), as the API's text limits and JSON
 * Schema's maxLength count them; `.length` counts UTF-16 units, two per emoji.
 */
export const charLength = (text: string): number => {
  let count = 0
  for (const _ of text) count++
  return count
}

/** At most `max` characters (code points); documented as maxLength. */
export const isMaxChars = (max: number) =>
  Schema.makeFilter((text: string) => text.length <= max || charLength(text) <= max, {
    expected: `a value with a length of at most ${max}`,
    toJsonSchema: () => ({ maxLength: max })
  })

const unstorableMessage = "must not contain NUL characters or unpaired surrogates"

export const storableText = Schema.makeFilter((text: string) => isStorableText(text) || unstorableMessage)

export const storableJson = Schema.makeFilter((value: unknown) => isStorableJson(value) || unstorableMessage)

export const nestedAtMost = (levels: number) =>
  Schema.makeFilter((value: unknown) => isNestedAtMost(value, levels) || `must nest at most ${levels} levels deep`)

/**
 * A resource id taken from a path. Any shape is accepted, because an id that
 * names nothing is a 404 whatever it looks like; one no row could ever hold
 * becomes the empty string, which no row holds either, so the lookup finds
 * nothing instead of failing in the database.
 */
export const PathId = Schema.String.pipe(
  Schema.decodeTo(
    Schema.String,
    SchemaTransformation.transform({ decode: (id) => (isStorableText(id) ? id : ""), encode: (id) => id })
  )
)

const isHttpUrl = (value: string): boolean => {
  const url = URL.parse(value)
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0
}

/** An absolute http(s) URL of at most 2048 characters (webhook targets, pages to scan or read). */
export const HttpUrl = Schema.String.check(
  isMaxChars(2048),
  storableText,
  Schema.makeFilter(isHttpUrl, {
    message: "must be an absolute http or https URL",
    toJsonSchema: () => ({ format: "uri" })
  })
)
