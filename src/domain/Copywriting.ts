import { platformBodyLimits } from "./Content.ts"
import { charLength } from "./Text.ts"

/**
 * The house writer: marketing copy composed by templates and rules from a
 * brief (the brand, the topic, the platform). No network, no randomness: the
 * same brief always gives the same piece, and a social body always fits its
 * platform's length limit.
 *
 * The copy is written to be published as it is, so the templates only use
 * the topic and the products where any noun phrase reads well (after "about",
 * "on", or before a colon), the audience as a plural group with verbs that
 * agree with it, and nothing addressed to the marketer (no advice on how to
 * market) outside reports, which are written for the marketer.
 */

export type CopyKind = "blog" | "social" | "email" | "ad" | "outreach" | "report"

export interface Brief {
  readonly kind: CopyKind
  readonly brandName: string
  readonly topic: string
  readonly platform?: string | null | undefined
  readonly description?: string | null | undefined
  readonly voice?: string | null | undefined
  readonly audience?: string | null | undefined
  readonly products?: ReadonlyArray<string> | undefined
  /** The piece's own keywords (a run's options, a request). */
  readonly keywords?: ReadonlyArray<string> | undefined
  /** The brand's own topics and keywords (its profile): hashtags come from these, the topic and the brand. */
  readonly topics?: ReadonlyArray<string> | undefined
  readonly url?: string | null | undefined
  /** Varies the templates between pieces of one run (e.g. the day of the week). */
  readonly angle?: number | undefined
  /** Facts to write from (a report's figures, a competitor list). */
  readonly facts?: ReadonlyArray<string> | undefined
}

/** The brand part of a brief. */
export type BrandFields = Pick<
  Brief,
  "brandName" | "description" | "voice" | "audience" | "products" | "topics" | "url"
>

/** Non-empty text, or a list of texts joined ("friendly, expert"): tone words and audiences are lists in a brand profile. */
export const profileText = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim().length > 0
    ? value.trim()
    : Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string" && v.trim().length > 0).map((v) => v.trim()).join(", ") ||
      undefined
    : undefined

const profileList = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string" && v.trim().length > 0).map((v) => v.trim())
    : typeof value === "string" && value.trim().length > 0
    ? value.split(/[,;]/).map((v) => v.trim()).filter((v) => v.length > 0)
    : []

/**
 * The brand a piece is written for, field by field from the first source
 * that says something (e.g. a run's own options, then the confirmed brand
 * profile), else `fallbackName` for the name; never invented.
 */
export const brandFrom = (
  sources: ReadonlyArray<Record<string, unknown> | undefined>,
  fallbackName: string
): BrandFields => {
  const first = <A>(read: (source: Record<string, unknown>) => A | undefined): A | undefined => {
    for (const source of sources) {
      const value = source === undefined ? undefined : read(source)
      if (value !== undefined) return value
    }
    return undefined
  }
  const list = (...keys: ReadonlyArray<string>) =>
    first((s) => {
      const items = keys.flatMap((key) => profileList(s[key]))
      return items.length > 0 ? items : undefined
    })
  return {
    brandName: first((s) => profileText(s["brandName"])) ?? fallbackName,
    description: first((s) => profileText(s["description"])),
    voice: first((s) => profileText(s["voice"])),
    audience: first((s) => profileText(s["audience"])),
    products: list("products") ?? [],
    topics: list("topics", "keywords") ?? [],
    url: first((s) => profileText(s["url"]) ?? profileText(s["sourceUrl"]))
  }
}

export interface Draft {
  readonly title: string
  readonly hook: string
  readonly body: string
  readonly cta: string
  readonly hashtags: ReadonlyArray<string>
}

/** FNV-1a over the text: a stable template choice for a brief. */
export const stableHash = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

const pick = <A>(items: ReadonlyArray<A>, seed: number): A => items[seed % items.length]!

const clean = (text: string | null | undefined): string => (text ?? "").replace(/\s+/g, " ").trim()

/** `text` without the run of `chars` at its end (a loop: a trailing-run pattern would be quadratic on a long run). */
export const trimTrailing = (text: string, chars: string): string => {
  let end = text.length
  while (end > 0 && chars.includes(text[end - 1]!)) end--
  return text.slice(0, end)
}

/** The groups of an audience: "brewers, enthusiasts and cafés" is three. */
export const audienceGroups = (audience: string | null | undefined): Array<string> =>
  clean(audience).split(/[,;]/).flatMap((part) => part.split(" and ")).map((a) => trimTrailing(clean(a), ".!?:"))
    .filter((a) => a.length > 0)

/** The first letter in capitals (a sentence or a title starts so). */
export const capitalize = (text: string) => text.length === 0 ? text : text.charAt(0).toUpperCase() + text.slice(1)

/** "a", "a and b", "a, b and c". */
export const joinList = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

/**
 * Adjacent repeated words ("The the guide", "for for") written once, the
 * first one kept; line breaks and the rest of the spacing as they were.
 */
export const withoutDoubledWords = (text: string): string => {
  const tokens = text.split(/(\s+)/)
  const out: Array<string> = []
  let previousWord: string | undefined
  for (const token of tokens) {
    if (token.length === 0) continue
    if (/^\s+$/.test(token)) {
      out.push(token)
      continue
    }
    const word = token.toLowerCase()
    if (previousWord !== undefined && word === previousWord && /^\p{L}+$/u.test(token)) {
      out.pop() // the space before the repeated word
      // A name in capitals after a lower-case word ("the The Roasters") keeps its own spelling.
      if (/^\p{Lu}/u.test(token) && !/^\p{Lu}/u.test(out.at(-1)!)) out[out.length - 1] = token
      continue
    }
    previousWord = word
    out.push(token)
  }
  return out.join("")
}

/** Digits on both sides of a word break: joining them would write a new number. */
const digitsMeet = (left: string, right: string) => /\p{N}$/u.test(left) && /^\p{N}/u.test(right)

/**
 * A hashtag from words: letters and digits only, CamelCase, at most 30
 * characters; words whose digits would run into each other keep an `_`
 * between them ("Q3 2026" is `#Q3_2026`, never a new number).
 */
export const hashtag = (text: string): string | undefined => {
  const words = text.normalize("NFKD").replace(/\p{M}/gu, "").replace(/[^\p{L}\p{N} ]/gu, " ").split(/\s+/).filter((
    w
  ) => w.length > 0)
  let tag = ""
  for (const word of words.map(capitalize)) tag += tag.length > 0 && digitsMeet(tag, word) ? `_${word}` : word
  const cut = Array.from(tag).slice(0, 30).join("")
  return cut.length > 1 ? `#${cut}` : undefined
}

/** Cuts `text` at a word boundary to at most `max` characters, ending with an ellipsis when cut. */
export const fitWords = (text: string, max: number): string => {
  if (charLength(text) <= max) return text
  if (max <= 1) return Array.from(text).slice(0, Math.max(0, max)).join("")
  const chars = Array.from(text).slice(0, max - 1)
  const cut = chars.join("")
  const space = cut.lastIndexOf(" ")
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/(?<![\s,;:.-])[\s,;:.-]+$/, "")}…`
}

const determiners = new Set([
  "a",
  "an",
  "the",
  "every",
  "each",
  "our",
  "your",
  "their",
  "all",
  "any",
  "some",
  "most",
  "many"
])
const irregularPlurals = new Set(["people", "children", "men", "women", "folks", "staff", "teams", "police", "clergy"])
const singularInS = new Set(["news", "series", "species", "lens", "canvas", "atlas", "gas", "bonus", "campus"])

/** Whether a noun phrase names more than one: a list, or a plural last word ("coffee brewers", "people"). */
export const isPlural = (phrase: string): boolean => {
  if (/,|\band\b|&/.test(phrase)) return true
  const last = phrase.trim().split(/\s+/).at(-1) ?? ""
  const word = last.toLowerCase().replace(/\P{L}/gu, "")
  if (irregularPlurals.has(word)) return true
  if (singularInS.has(word)) return false
  // A word in capitals ("SaaS", "SMBs" aside) is a name or an acronym, not an English plural.
  if (/\p{Lu}/u.test(last.slice(1)) && !/^\p{Lu}+s$/u.test(last)) return false
  return word.length > 3 && word.endsWith("s") && !/(?:[isu]s|ics|ness)$/.test(word)
}

/** The head of a noun phrase: the words before a clause or a preposition ("people" of "people who bake at home"). */
const postModifier = /\s(?:who|that|which|with|at|for|in|of|on|from)\s/

/** Whether an audience group names many: a plural among the words of its head ("couples planning a wedding"). */
export const groupIsPlural = (phrase: string): boolean => {
  const cut = phrase.search(postModifier)
  const head = cut < 0 ? phrase : phrase.slice(0, cut)
  return isPlural(head) || head.split(" ").some((word) => isPlural(word))
}

/** The plural of a singular count noun phrase ("home baker" → "home bakers"); names and plurals are kept. */
const pluralize = (phrase: string): string => {
  const cut = phrase.search(postModifier)
  const head = cut < 0 ? phrase : phrase.slice(0, cut)
  const tail = cut < 0 ? "" : phrase.slice(cut)
  const words = head.split(" ")
  const first = words[0]!.toLowerCase()
  const last = words.at(-1)!
  if (
    groupIsPlural(phrase) || determiners.has(first) || !/^\p{Ll}+$/u.test(last) || words.some((w) => determiners.has(w))
  ) return phrase
  const plural = /(?:[sxz]|ch|sh)$/.test(last)
    ? `${last}es`
    : last.endsWith("y") && !/[aeiou]y$/.test(last)
    ? `${last.slice(0, -1)}ies`
    : `${last}s`
  return [...words.slice(0, -1), plural].join(" ") + tail
}

/** The words of the topic that read mid-sentence in lower case: a capitalised common word, never an acronym or a name of the brand. */
const topicMidSentence = (topic: string, brandName: string): string => {
  const brandWords = new Set(brandName.split(/\s+/).map((w) => w.toLowerCase()))
  const words = topic.split(" ")
  const significant = words.filter((w) => /^\p{L}{4,}/u.test(w))
  const titleCase = words.length > 1 && significant.length > 0 && significant.every((w) => /^\p{Lu}/u.test(w))
  return words.map((word, i) => {
    const common = (/^\p{Lu}\p{Ll}+$/u.test(word) || (word === "A" && words.length > 1)) &&
      !brandWords.has(word.toLowerCase())
    return common && (i === 0 || titleCase) ? word.toLowerCase() : word
  }).join(" ")
}

const generic = new Set([
  "marketing",
  "marketingtips",
  "smallbusiness",
  "business",
  "socialmedia",
  "contentmarketing",
  "growth",
  "tips"
])

/** Whether a hashtag is one every brand uses (it says nothing of this one). */
export const isGenericHashtag = (tag: string): boolean => generic.has(tag.replace(/^#/, "").toLowerCase())

interface Resolved {
  readonly kind: CopyKind
  readonly brandName: string
  /** The topic as it reads mid-sentence, without closing punctuation. */
  readonly topic: string
  readonly platform: string | undefined
  /** The audience as a group: "home coffee brewers and specialty coffee enthusiasts". */
  readonly audience: string
  readonly plural: boolean
  readonly voice: string
  readonly product: string | undefined
  readonly url: string | undefined
  readonly description: string | undefined
  readonly keywords: ReadonlyArray<string>
  readonly topics: ReadonlyArray<string>
  readonly facts: ReadonlyArray<string>
  readonly seed: number
}

/** A verb agreeing with the audience: `verb(b, "asks", "ask")`. */
const verb = (b: Resolved, singular: string, plural: string) => (b.plural ? plural : singular)

/** A sentence from free text: trimmed, capitalised, ending with a full stop. */
const sentence = (text: string): string => {
  const trimmed = clean(text)
  return trimmed.length === 0 ? "" : capitalize(/[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`)
}

const resolve = (brief: Brief): Resolved => {
  const brandName = Array.from(clean(brief.brandName)).slice(0, 80).join("").trim() || "our company"
  // A topic of two sentences reads as one phrase mid-sentence: its inner stops become colons.
  const cut = trimTrailing(Array.from(clean(brief.topic)).slice(0, 120).join(""), " .!?:;,")
  const rawTopic = Array.from(cut, (char, i) => (".!?".includes(char) && cut[i + 1] === " " ? ":" : char)).join("")
    .replaceAll("::", ":").replaceAll("::", ":").trim()
  const topic = topicMidSentence(rawTopic || "what we do", brandName)
  const products = (brief.products ?? []).map(clean).filter((p) => p.length > 0)
  const seed = stableHash(JSON.stringify([brief.kind, brandName, topic, brief.platform ?? "", brief.angle ?? 0]))
  const groups = audienceGroups(brief.audience)
  const audienceList = groups.filter((g, i) => groups.findIndex((o) => o.toLowerCase() === g.toLowerCase()) === i)
    .slice(0, 3).map((group) => pluralize(Array.from(group).slice(0, 60).join("").trim()))
  const audience = audienceList.length === 0 ? "our customers" : joinList(audienceList)
  return {
    kind: brief.kind,
    brandName,
    topic,
    platform: clean(brief.platform) || undefined,
    audience,
    plural: audienceList.length !== 1 || groupIsPlural(audience),
    voice: clean(brief.voice).toLowerCase(),
    product: products.length === 0 ? undefined : pick(products, seed >>> 3),
    url: clean(brief.url) || undefined,
    description: clean(brief.description) || undefined,
    keywords: (brief.keywords ?? []).map(clean).filter((k) => k.length > 0),
    topics: (brief.topics ?? []).map(clean).filter((k) => k.length > 0),
    facts: (brief.facts ?? []).map(clean).filter((f) => f.length > 0).map(capitalize),
    seed
  }
}

// Every template puts the topic where any noun phrase or clause reads well, and the brand in each hook.
const hooks: ReadonlyArray<(b: Resolved) => string> = [
  (b) =>
    `${capitalize(b.audience)} ${
      verb(b, "asks", "ask")
    } us about ${b.topic} more than anything else, so here is what we at ${b.brandName} have learned.`,
  (b) => `A few honest notes on ${b.topic} from the ${b.brandName} team.`,
  (b) => `If you care about ${b.topic}, this one is for you. From all of us at ${b.brandName}.`,
  (b) => `Here is how we think about ${b.topic} at ${b.brandName}.`,
  (b) => `New from ${b.brandName}: our take on ${b.topic}.`,
  (b) => `Everything ${b.brandName} knows about ${b.topic}, in one place.`
]

const titles: ReadonlyArray<(b: Resolved) => string> = [
  (b) => `${capitalize(b.topic)}: a guide for ${b.audience}`,
  (b) => `${capitalize(b.topic)}, explained by ${b.brandName}`,
  (b) => `Lessons from ${b.brandName} on ${b.topic}`,
  (b) => `${capitalize(b.topic)}: notes from ${b.brandName}`,
  (b) => `A closer look at ${b.topic}`
]

/** Sentences for the brand's own readers (its audience), never advice to the marketer. */
const points: ReadonlyArray<(b: Resolved) => string> = [
  (b) => `At ${b.brandName} we spend a good part of every week on ${b.topic}, and we keep learning.`,
  (b) => `We wrote this for ${b.audience}: practical, honest and easy to act on.`,
  (b) =>
    b.product === undefined
      ? `Everything we make starts from what ${b.audience} ${verb(b, "tells", "tell")} us.`
      : `It is also why we made ${b.product}.`,
  () => `Small changes add up: try one idea this week and see what difference it makes.`,
  (b) => `The best ideas on ${b.topic} come from you, so keep them coming.`,
  (b) => `No jargon and no hard sell, just what we have seen work for ${b.audience}.`
]

const ctas: ReadonlyArray<(b: Resolved) => string> = [
  (b) => b.url === undefined ? `Follow ${b.brandName} for more.` : `Learn more at ${b.url}`,
  (b) => `Tell us what you think about ${b.topic}.`,
  (b) => b.url === undefined ? `Questions? Ask the ${b.brandName} team.` : `See what ${b.brandName} offers: ${b.url}`,
  (b) => `Questions about ${b.topic}? Ask ${b.brandName}.`
]

/** Hashtags per platform (none for email, blogs, outreach and reports). */
const tagCount = (b: Resolved): number =>
  b.kind !== "social" && b.kind !== "ad"
    ? 0
    : b.platform === "linkedin" || b.platform === "pinterest"
    ? 3
    : b.platform === "instagram" || b.platform === "tiktok"
    ? 5
    : 2

/** Hashtags from the topic (when it is short), the piece's and the brand's own keywords, and the brand: never generic ones. */
const hashtagsFor = (b: Resolved): ReadonlyArray<string> => {
  const count = tagCount(b)
  if (count === 0) return []
  const shortTopic = b.topic.split(" ").length <= 3 ? [b.topic] : []
  const candidates = [...shortTopic, ...b.keywords, ...b.topics, b.brandName]
  const tags: Array<string> = []
  for (const candidate of candidates) {
    if (candidate.split(" ").length > 4) continue
    const tag = hashtag(candidate)
    if (tag !== undefined && !isGenericHashtag(tag) && !tags.some((t) => t.toLowerCase() === tag.toLowerCase())) {
      tags.push(tag)
    }
    if (tags.length === count) break
  }
  return tags
}

/** The first candidate that fits `limit` whole; the last, cut at a word, when none does. */
const firstFitting = (candidates: ReadonlyArray<string>, limit: number): string =>
  candidates.find((c) => charLength(c) <= limit) ?? fitWords(candidates.at(-1)!, limit)

const voiceTouch = (b: Resolved): string =>
  b.voice.includes("playful") || b.voice.includes("fun") ? " Yes, really." : ""

/** The social post's shape on each platform: an X post is a line, a LinkedIn post a few short paragraphs. */
const socialBody = (b: Resolved, hook: string, body: ReadonlyArray<string>, cta: string, tags: string): string => {
  const limit = b.platform === undefined ? 63206 : platformBodyLimits[b.platform] ?? 63206
  const withTags = (text: string) => (tags.length > 0 ? [`${text}\n\n${tags}`, text] : [text])
  const facts = b.facts.map((f) => `- ${f}`)
  switch (b.platform) {
    case "x":
    case "tiktok": {
      // One or two sentences: the hook and the call to action, then the tags; no lists.
      const line = `${hook} ${cta}`
      return firstFitting([...(tags.length > 0 ? [`${line} ${tags}`] : []), line, hook], Math.min(limit, 280))
    }
    case "pinterest": {
      const line = `${hook} ${body[0] ?? ""} ${cta}`.replace(/\s+/g, " ").trim()
      return firstFitting([...withTags(line), ...withTags(`${hook} ${cta}`), hook], limit)
    }
    case "instagram": {
      const lines = [hook, ...body, ...facts, b.url === undefined ? cta : "Link in bio."]
      return firstFitting([
        ...withTags(lines.join("\n\n")),
        ...withTags([hook, ...body, cta].join("\n\n")),
        ...withTags(hook)
      ], limit)
    }
    default: {
      const lines = [hook, ...body.map((p) => (b.platform === "linkedin" ? p : p)), ...facts, cta]
      return firstFitting([
        ...withTags(lines.join("\n\n")),
        ...withTags([hook, ...body, cta].join("\n\n")),
        ...withTags(`${hook}\n\n${cta}`),
        hook
      ], limit)
    }
  }
}

/**
 * What a report recommends, from what its facts are: fixes before
 * improvements for an audit, the competitors' lead for a brief, the figures
 * for a performance report; the audience always.
 */
const reportAdvice = (b: Resolved): Array<string> => {
  const count = (prefix: string) => b.facts.filter((f) => f.startsWith(prefix)).length
  const fixes = count("Fix (")
  const improvements = count("Improve (")
  const competitors = count("Competitor ")
  const performance = b.facts.some((f) => / posts? published/.test(f))
  const advice = [
    ...(fixes > 0
      ? [
        `- Start with the ${
          fixes === 1 ? "fix" : `${fixes} fixes`
        } above, the heaviest first: each one says what to change.`
      ]
      : []),
    ...(improvements > 0
      ? [
        `- Then work through the ${
          improvements === 1 ? "improvement" : `${improvements} improvements`
        } and run the audit again to see the scores move.`
      ]
      : []),
    ...(competitors > 0
      ? ["- Where a competitor scores higher, look at what its pages do that ours do not, and close that gap first."]
      : []),
    ...(performance
      ? [
        "- Post more on the channels with the most engagements and clicks per post, and less where they stay at zero.",
        ...(b.facts.some((f) => f.startsWith("Revenue: none"))
          ? ["- Record sales as revenue so the next report shows what the content earns."]
          : [])
      ]
      : []),
    `- Keep every piece aimed at ${b.audience}.`
  ]
  return advice.length > 1 ? advice : [...advice, "- Measure one thing every week and drop what does not move it."]
}

/** Writes one piece from the brief. */
export const writeDraft = (brief: Brief): Draft => {
  const b = resolve(brief)
  const chosenHook = `${pick(hooks, b.seed)(b)}${voiceTouch(b)}`
  // A short platform takes the shortest hook when the chosen one would not fit whole.
  const room = b.platform === "x" || b.platform === "tiktok"
    ? 280
    : b.platform === undefined
    ? undefined
    : platformBodyLimits[b.platform]
  const hook = room === undefined || charLength(chosenHook) <= room || b.kind === "report"
    ? chosenHook
    : hooks.map((h) => h(b)).reduce((a, c) => (charLength(c) < charLength(a) ? c : a))
  const title = fitWords(b.kind === "report" ? capitalize(b.topic) : pick(titles, b.seed >>> 5)(b), 300)
  const cta = pick(ctas, b.seed >>> 7)(b)
  const hashtags = hashtagsFor(b)
  const start = (b.seed >>> 9) % points.length
  const chosen = [0, 1, 2].map((i) => points[(start + i) % points.length]!(b))
  const keywordLine = b.keywords.length > 0 ? [`Along the way we cover ${joinList(b.keywords.slice(0, 5))}.`] : []
  const factLines = b.facts.map((f) => `- ${f}`)
  // A report is read in Herald, never posted: no platform limits it.
  const limit = b.platform === undefined || b.kind === "report" ? undefined : platformBodyLimits[b.platform]

  // A piece for a platform with a length limit is published there: it takes the platform's shape, whatever its kind.
  const shape: CopyKind = limit !== undefined && (b.kind === "blog" || b.kind === "email" || b.kind === "outreach")
    ? "social"
    : b.kind
  let body: string
  switch (shape) {
    case "social":
      body = socialBody(b, hook, chosen.slice(0, 2), cta, hashtags.join(" "))
      break
    case "ad": {
      const line = `${hook} ${chosen[0]} ${cta}`
      body = firstFitting([
        ...(hashtags.length > 0 ? [`${line}\n\n${hashtags.join(" ")}`] : []),
        line,
        `${hook} ${cta}`,
        hook
      ], limit ?? 63206)
      break
    }
    case "email":
      body = [`Hi there,`, hook, ...chosen, ...keywordLine, ...factLines, cta, `The ${b.brandName} team`].join("\n\n")
      break
    case "outreach":
      body = [
        `Hello,`,
        `I am reaching out from ${b.brandName}${
          b.description === undefined ? "" : ` (${fitWords(trimTrailing(b.description, ".!?"), 160)})`
        }.`,
        `We work with ${b.audience} on ${b.topic}, and I thought it might interest you too.`,
        `Would a short call next week be useful? ${cta}`,
        `Best regards,\n${b.brandName}`
      ].join("\n\n")
      break
    case "report":
      // A report is written for the marketer: findings, then what to do about them.
      body = [
        `# ${title}`,
        `Prepared by Herald for ${b.brandName}.`,
        ...(factLines.length > 0 ? ["## Findings", ...factLines] : []),
        "## Recommendations",
        ...reportAdvice(b)
      ].join("\n\n")
      break
    case "blog": {
      const intro = b.description === undefined
        ? `At ${b.brandName} we spend our days on ${b.topic}. This guide is for ${b.audience}.`
        : `${sentence(b.description)} We wrote this guide for ${b.audience}.`
      body = [
        `# ${title}`,
        hook,
        intro,
        "## Why it matters",
        `${chosen[0]} ${chosen[1]}`,
        ...(keywordLine.length > 0 ? ["## What we cover", keywordLine[0]!] : []),
        "## Where to start",
        chosen[2]!,
        ...(factLines.length > 0 ? ["## In numbers", ...factLines] : []),
        "## Next step",
        cta
      ].join("\n\n")
      break
    }
  }
  // A brand or a topic ending in a full stop ("Acme Co.") before the template's own.
  body = withoutDoubledWords(body).replace(/(?<!\.)\.\.(?!\.)/g, ".")
  if (limit !== undefined) body = fitWords(body, limit)
  const once = (text: string) => withoutDoubledWords(text).replace(/(?<!\.)\.\.(?!\.)/g, ".")
  return { title: once(title), hook: once(hook), body, cta: once(cta), hashtags }
}
