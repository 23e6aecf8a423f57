import { platformBodyLimits } from "./Content.ts"
import { audienceGroups, type CopyKind, hashtag, isGenericHashtag, isPlural } from "./Copywriting.ts"
import { charLength } from "./Text.ts"

/**
 * Rules a piece of copy must pass to be published as written, whoever wrote
 * it (the house writer or a language model). Pure: the copy evaluation and
 * the property tests both read them.
 */

export const lintRules = [
  "doubled-words",
  "agreement",
  "articles",
  "capitals",
  "length",
  "brand-mention",
  "generic-hashtags",
  "advice-leak",
  "template-leftovers"
] as const
export type LintRule = typeof lintRules[number]

export interface LintPiece {
  readonly kind: CopyKind
  readonly platform?: string | null | undefined
  readonly title: string
  readonly body: string
}

/** What the piece was written from: the words it may use for hashtags and the subjects verbs must agree with. */
export interface LintBrief {
  readonly brandName: string
  readonly topic: string
  readonly audience?: string | null | undefined
  readonly products?: ReadonlyArray<string> | undefined
  readonly keywords?: ReadonlyArray<string> | undefined
  readonly topics?: ReadonlyArray<string> | undefined
}

export interface LintFinding {
  readonly rule: LintRule
  readonly detail: string
}

const words = (text: string) => text.split(/\s+/).filter((w) => w.length > 0)
/** The word without the punctuation around it. */
const bare = (word: string) => {
  const chars = Array.from(word)
  const start = chars.findIndex((c) => /[\p{L}\p{N}]/u.test(c))
  if (start < 0) return ""
  const end = chars.findLastIndex((c) => /[\p{L}\p{N}]/u.test(c))
  return chars.slice(start, end + 1).join("")
}

const doubledWords = (text: string): Array<string> => {
  const found: Array<string> = []
  const list = words(text)
  for (let i = 1; i < list.length; i++) {
    const previous = list[i - 1]!
    const word = list[i]!
    // "that that" across a comma or a full stop is two clauses; only a plain repeat counts.
    if (/^\p{L}+$/u.test(word) && /^\p{L}+$/u.test(previous) && word.toLowerCase() === previous.toLowerCase()) {
      found.push(`${previous} ${word}`)
    }
  }
  return found
}

const singularVerbs = [
  "is",
  "has",
  "was",
  "does",
  "helps",
  "gets",
  "wants",
  "needs",
  "asks",
  "tells",
  "cares",
  "makes",
  "works",
  "loves",
  "knows"
]

const agreement = (body: string, brief: LintBrief): Array<string> => {
  const lower = body.toLowerCase()
  const found: Array<string> = []
  const groups = audienceGroups(brief.audience)
  if (groups.length >= 2) {
    // A list of audiences ends with "and": "brewers, enthusiasts get" reads as two sentences run together.
    const [a, b] = [groups.at(-2)!.toLowerCase(), groups.at(-1)!.toLowerCase()]
    for (const joined of [`${a}, ${b}`, `${a}s, ${b}`]) {
      if (lower.includes(joined)) found.push(`list without "and": ${joined}`)
    }
  }
  const subjects = [
    ...groups,
    ...(brief.products ?? []),
    ...(brief.keywords ?? []),
    ...(brief.topics ?? []),
    brief.topic
  ].map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0 && isPlural(s) && !/,|\band\b|&/.test(s))
  for (const subject of subjects) {
    for (const verb of singularVerbs) {
      const phrase = `${subject} ${verb} `
      const at = lower.indexOf(phrase)
      // "brewers is" at the start of a phrase, not inside a longer word ("Xbrewers is").
      if (at >= 0 && (at === 0 || !/[\p{L}\p{N}]/u.test(lower[at - 1]!))) {
        found.push(`plural subject, singular verb: ${phrase.trim()}`)
      }
    }
  }
  return found
}

const vowelSoundExceptions = /^(?:one|once|uni|use|usu|eu|ur)/i

const articles = (text: string): Array<string> => {
  const found: Array<string> = []
  const list = words(text)
  for (let i = 0; i + 1 < list.length; i++) {
    const article = list[i]!.toLowerCase()
    const next = bare(list[i + 1]!)
    // Letters read one by one ("an SEO audit", "a URL") and numbers are left alone.
    if (next.length === 0 || !/^\p{L}/u.test(next) || /^\p{Lu}{2,}/u.test(next)) continue
    if (article === "a" && /^[aeio]/i.test(next) && !vowelSoundExceptions.test(next)) found.push(`a ${next}`)
    if (article === "an" && /^[^aeiouh]/i.test(next)) found.push(`an ${next}`)
  }
  return found
}

/** Sentence starts in lower case: the start of each line (after list and heading marks) and after `.`, `!`, `?`. */
const capitals = (piece: LintPiece, brandName: string): Array<string> => {
  const found: Array<string> = []
  const brandFirst = words(brandName)[0] ?? ""
  const brandLast = words(brandName).at(-1) ?? ""
  const lowerStart = (text: string) => {
    const word = words(text)[0] ?? ""
    return /^\p{Ll}/u.test(word) && !word.startsWith(brandFirst) && !/^(?:https?:|www\.)/.test(word) &&
      !/^\p{Ll}+\p{Lu}/u.test(word)
  }
  if (lowerStart(piece.title)) found.push(`title: ${piece.title.slice(0, 40)}`)
  for (const rawLine of piece.body.split("\n")) {
    const line = rawLine.replace(/^\s*(?:#{1,6}\s+|[-*•]\s+|\d+[.)]\s+|>\s+)/, "")
    if (line.trim().length === 0) continue
    if (lowerStart(line)) found.push(`line: ${line.slice(0, 40)}`)
    for (const match of line.matchAll(/[.!?]\s+(?=\S)/g)) {
      const rest = line.slice(match.index + match[0].length)
      const before = line.slice(0, match.index + 1)
      // "e.g. this" and "i.e. that" are not sentence ends.
      if (/\b(?:e\.g|i\.e|etc|vs)\.$/i.test(before)) continue
      // The brand's own full stop ("Acme Co. makes") does not end the sentence.
      if (brandLast.endsWith(".") && before.endsWith(brandLast)) continue
      if (lowerStart(rest)) found.push(`sentence: ${rest.slice(0, 40)}`)
    }
  }
  return found
}

const length = (piece: LintPiece): Array<string> => {
  const found: Array<string> = []
  const limit = piece.platform == null ? undefined : platformBodyLimits[piece.platform]
  if (limit !== undefined && charLength(piece.body) > limit) found.push(`body ${charLength(piece.body)} > ${limit}`)
  if (charLength(piece.title) > 300) found.push(`title ${charLength(piece.title)} > 300`)
  if (piece.title.trim().length === 0 || piece.body.trim().length === 0) found.push("empty title or body")
  // An ellipsis at the end is text cut to fit, not a finished sentence.
  if (/…\s*$/.test(piece.body) || /…\s*$/.test(piece.title)) found.push("cut to fit")
  return found
}

const brandMention = (piece: LintPiece, brief: LintBrief): Array<string> =>
  piece.kind === "report" || brief.brandName.trim().length === 0 ||
    `${piece.title}\n${piece.body}`.toLowerCase().includes(brief.brandName.trim().replace(/\s+/g, " ").toLowerCase())
    ? []
    : [`${brief.brandName} is not named`]

const tagKey = (text: string) => text.replace(/^#/, "").replace(/_/g, "").toLowerCase()

const hashtags = (piece: LintPiece, brief: LintBrief): Array<string> => {
  const found: Array<string> = []
  const own = new Set(
    [brief.topic, brief.brandName, ...(brief.keywords ?? []), ...(brief.topics ?? []), ...(brief.products ?? [])]
      .map((c) => hashtag(c))
      .filter((t): t is string => t !== undefined)
      .map(tagKey)
  )
  for (const match of piece.body.matchAll(/(?<![\p{L}\p{N}_#&/])#[\p{L}\p{N}_]+/gu)) {
    const tag = match[0]
    if (isGenericHashtag(tag)) found.push(`generic ${tag}`)
    else if (!own.has(tagKey(tag))) found.push(`not from the brand's topics: ${tag}`)
  }
  return found
}

/** Sentences addressed to the marketer (how to market), or the words of a brand that has no profile. */
const advicePhrases = [
  "search engines",
  "write for people",
  "one message, one audience",
  "measure one thing",
  "consistency wins",
  "show proof",
  "work back to",
  "compounds over",
  "content calendar",
  "content strategy",
  "posting schedule",
  "engagement rate",
  "your followers",
  "grow your audience",
  "busy teams",
  "marketing tips",
  "off your plate",
  "the repetitive part"
]

const adviceLeak = (piece: LintPiece): Array<string> => {
  if (piece.kind === "report") return []
  const lower = `${piece.title}\n${piece.body}`.toLowerCase()
  return advicePhrases.filter((phrase) => lower.includes(phrase))
}

const leftoverMarks = ["undefined", "null", "nan", "[object", "${", "{{", "}}", "brief (json)", "lorem ipsum", "todo:"]

const leftovers = (piece: LintPiece): Array<string> => {
  const found: Array<string> = []
  for (const part of [piece.title, piece.body]) {
    const lower = part.toLowerCase()
    for (const mark of leftoverMarks) {
      const at = lower.indexOf(mark)
      const wordy = /^\p{L}/u.test(mark)
      if (
        at >= 0 && (!wordy || (!/\p{L}/u.test(lower[at - 1] ?? " ") && !/\p{L}/u.test(lower[at + mark.length] ?? " ")))
      ) found.push(mark)
    }
    for (const line of part.split("\n")) {
      if (/\S {2,}\S/.test(line)) found.push("double space")
      if (/\s[,.;:!?](?:\s|$)/.test(line)) found.push("space before punctuation")
      if (/,,|\.\.(?!\.)|\(\s*\)/.test(line)) found.push("empty or doubled punctuation")
    }
  }
  return found
}

/** Every finding of every rule for one piece; an empty list means it can be published as written. */
export const lintCopy = (piece: LintPiece, brief: LintBrief): ReadonlyArray<LintFinding> => {
  const text = `${piece.title}\n${piece.body}`
  const of = (rule: LintRule, details: ReadonlyArray<string>) => details.map((detail) => ({ rule, detail }))
  return [
    ...of("doubled-words", [...doubledWords(piece.title), ...doubledWords(piece.body)]),
    ...of("agreement", agreement(text, brief)),
    ...of("articles", articles(text)),
    ...of("capitals", capitals(piece, brief.brandName)),
    ...of("length", length(piece)),
    ...of("brand-mention", brandMention(piece, brief)),
    ...of("generic-hashtags", hashtags(piece, brief)),
    ...of("advice-leak", adviceLeak(piece)),
    ...of("template-leftovers", leftovers(piece))
  ]
}
