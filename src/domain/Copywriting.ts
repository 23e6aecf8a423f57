import { platformBodyLimits } from "./Content.ts"
import { charLength, cutLastLineAt } from "./Text.ts"

/**
 * The house writer: marketing copy composed by templates and rules from a
 * brief (the brand, the topic, the platform). No network, no randomness: the
 * same brief always gives the same piece, and a social body always fits its
 * platform's length limit.
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
  readonly keywords?: ReadonlyArray<string> | undefined
  readonly url?: string | null | undefined
  /** Varies the templates between pieces of one run (e.g. the day of the week). */
  readonly angle?: number | undefined
  /** Facts to write from (a report's figures, a competitor list). */
  readonly facts?: ReadonlyArray<string> | undefined
}

/** The brand part of a brief. */
export type BrandFields = Pick<Brief, "brandName" | "description" | "voice" | "audience" | "products" | "url">

/** Non-empty text, or a list of texts joined ("friendly, expert"): tone words and audiences are lists in a brand profile. */
export const profileText = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim().length > 0
    ? value.trim()
    : Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string" && v.trim().length > 0).map((v) => v.trim()).join(", ") || undefined
    : undefined

const profileList = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v.trim().length > 0).map((v) => v.trim()) : []

/**
 * The brand a piece is written for, field by field from the first source
 * that says something (e.g. a run's own options, then the confirmed brand
 * profile), else `fallbackName` for the name; never invented.
 */
export const brandFrom = (sources: ReadonlyArray<Record<string, unknown> | undefined>, fallbackName: string): BrandFields => {
  const first = <A>(read: (source: Record<string, unknown>) => A | undefined): A | undefined => {
    for (const source of sources) {
      const value = source === undefined ? undefined : read(source)
      if (value !== undefined) return value
    }
    return undefined
  }
  const products = first((s) => {
    const list = profileList(s["products"])
    return list.length > 0 ? list : undefined
  })
  return {
    brandName: first((s) => profileText(s["brandName"])) ?? fallbackName,
    description: first((s) => profileText(s["description"])),
    voice: first((s) => profileText(s["voice"])),
    audience: first((s) => profileText(s["audience"])),
    products: products ?? [],
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

const capitalize = (text: string) => text.length === 0 ? text : text.charAt(0).toUpperCase() + text.slice(1)

/** A hashtag from words: letters and digits only, CamelCase, at most 30 characters. */
export const hashtag = (text: string): string | undefined => {
  const words = text.normalize("NFKD").replace(/[^\p{L}\p{N} ]/gu, " ").split(/\s+/).filter((w) => w.length > 0)
  const tag = words.map(capitalize).join("").slice(0, 30)
  return tag.length > 1 ? `#${tag}` : undefined
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

const hooks: ReadonlyArray<(b: Resolved) => string> = [
  (b) => `Most ${b.audience} get ${b.topic} wrong. Here is what works.`,
  (b) => `What would change if ${b.topic} took half the effort?`,
  (b) => `${capitalize(b.topic)}: three things we learned the hard way at ${b.brandName}.`,
  (b) => `Stop guessing about ${b.topic}.`,
  (b) => `The quiet advantage in ${b.topic} that ${b.audience} overlook.`,
  (b) => `A simple rule for ${b.topic} that ${b.audience} can use today.`
]

const titles: ReadonlyArray<(b: Resolved) => string> = [
  (b) => `${capitalize(b.topic)}: a practical guide from ${b.brandName}`,
  (b) => `How ${b.audience} can get more from ${b.topic}`,
  (b) => `${capitalize(b.topic)}, without the guesswork`,
  (b) => `What ${b.brandName} learned about ${b.topic}`,
  (b) => `The ${b.topic} checklist for ${b.audience}`
]

const points: ReadonlyArray<(b: Resolved) => string> = [
  (b) => `Start with the outcome ${b.audience} care about, then work back to ${b.topic}.`,
  (b) => `Measure one thing about ${b.topic} every week; drop what does not move it.`,
  () => `Keep it simple: one message, one audience, one next step.`,
  (b) => `${b.product === undefined ? "Use tools" : `${b.product} helps`} to take the repetitive part of ${b.topic} off your plate.`,
  () => `Write for people first; search engines and assistants follow clear answers.`,
  () => `Show proof: a number, a customer story or a before-and-after beats a claim.`,
  (b) => `Consistency wins: a steady rhythm on ${b.topic} compounds over months.`
]

const ctas: ReadonlyArray<(b: Resolved) => string> = [
  (b) => b.url === undefined ? `Follow ${b.brandName} for more.` : `Learn more: ${b.url}`,
  (b) => `Tell us how you handle ${b.topic}.`,
  (b) => b.url === undefined ? `Save this for later and share it with your team.` : `See how ${b.brandName} can help: ${b.url}`,
  (b) => `Questions about ${b.topic}? Ask ${b.brandName}.`
]

interface Resolved {
  readonly kind: CopyKind
  readonly brandName: string
  readonly topic: string
  readonly platform: string | undefined
  readonly audience: string
  readonly voice: string
  readonly product: string | undefined
  readonly url: string | undefined
  readonly description: string | undefined
  readonly keywords: ReadonlyArray<string>
  readonly facts: ReadonlyArray<string>
  readonly seed: number
}

const resolve = (brief: Brief): Resolved => {
  const topic = clean(brief.topic).slice(0, 120) || "marketing"
  const brandName = clean(brief.brandName).slice(0, 80) || "our team"
  const products = (brief.products ?? []).map(clean).filter((p) => p.length > 0)
  const seed = stableHash(JSON.stringify([brief.kind, brandName, topic, brief.platform ?? "", brief.angle ?? 0]))
  return {
    kind: brief.kind,
    brandName,
    // A capitalised word reads mid-sentence in lower case; an acronym or name in capitals ("SEO", "AI") stays.
    topic: /^\p{Lu}\p{Ll}/u.test(topic) ? topic.charAt(0).toLowerCase() + topic.slice(1) : topic,
    platform: clean(brief.platform) || undefined,
    audience: clean(brief.audience).slice(0, 80) || "busy teams",
    voice: clean(brief.voice).toLowerCase(),
    product: products.length === 0 ? undefined : pick(products, seed >>> 3),
    url: clean(brief.url) || undefined,
    description: clean(brief.description) || undefined,
    keywords: (brief.keywords ?? []).map(clean).filter((k) => k.length > 0),
    facts: (brief.facts ?? []).map(clean).filter((f) => f.length > 0),
    seed
  }
}

/** The hashtags a platform takes (none for email, blogs and outreach). */
const hashtagsFor = (b: Resolved): ReadonlyArray<string> => {
  if (b.kind !== "social" && b.kind !== "ad") return []
  const count = b.platform === "linkedin" ? 3 : b.platform === "instagram" || b.platform === "tiktok" ? 5 : 2
  const candidates = [b.topic, ...b.keywords, b.brandName, "marketing tips", "small business"]
  const tags: Array<string> = []
  for (const candidate of candidates) {
    const tag = hashtag(candidate)
    if (tag !== undefined && !tags.some((t) => t.toLowerCase() === tag.toLowerCase())) tags.push(tag)
    if (tags.length === count) break
  }
  return tags
}

/** Joins parts, dropping the later optional ones until the whole fits `limit`; the hook is cut as a last resort. */
const fitParts = (required: string, optional: ReadonlyArray<string>, limit: number, separator: string): string => {
  const parts = [required, ...optional]
  while (parts.length > 1 && charLength(parts.join(separator)) > limit) {
    // Drop the middle optional part first: the CTA and hashtags (at the end) matter most.
    const middle = parts.length > 3 ? parts.length - 3 : parts.length - 1
    parts.splice(Math.max(1, middle), 1)
  }
  return fitWords(parts.join(separator), limit)
}

const voiceTouch = (b: Resolved): string =>
  b.voice.includes("playful") || b.voice.includes("fun") ? " Yes, really." : ""

/** Writes one piece from the brief. */
export const writeDraft = (brief: Brief): Draft => {
  const b = resolve(brief)
  const hook = `${pick(hooks, b.seed)(b)}${voiceTouch(b)}`
  const title = fitWords(pick(titles, b.seed >>> 5)(b), 300)
  const cta = pick(ctas, b.seed >>> 7)(b)
  const hashtags = hashtagsFor(b)
  const chosen = [0, 1, 2].map((i) => pick(points, (b.seed >>> (9 + i * 3)) + i * 2)(b))
  const uniquePoints = chosen.filter((p, i) => chosen.indexOf(p) === i)
  const factLines = b.facts.map((f) => `- ${f}`)
  const limit = b.platform === undefined ? undefined : platformBodyLimits[b.platform]
  const tagLine = hashtags.join(" ")

  let body: string
  switch (b.kind) {
    case "social":
    case "ad": {
      const bullets = uniquePoints.map((p) => (b.platform === "x" ? p : `• ${p}`))
      const optional = [...bullets, ...factLines, cta, ...(tagLine.length > 0 ? [tagLine] : [])]
      body = fitParts(hook, optional, limit ?? 63206, b.platform === "x" ? " " : "\n\n")
      break
    }
    case "email": {
      body = [
        `Hi there,`,
        hook,
        ...uniquePoints,
        ...factLines,
        cta,
        `— The ${b.brandName} team`
      ].join("\n\n")
      break
    }
    case "outreach": {
      body = [
        `Hello,`,
        `I am reaching out from ${b.brandName}${b.description === undefined ? "" : ` (${fitWords(b.description, 160)})`}.`,
        `We work with ${b.audience} on ${b.topic}. ${uniquePoints[0]}`,
        `Would a short call next week be useful? ${cta}`,
        `Best regards,\n${b.brandName}`
      ].join("\n\n")
      break
    }
    case "report": {
      body = [
        `# ${title}`,
        hook,
        ...(factLines.length > 0 ? ["## Findings", ...factLines] : []),
        "## Recommendations",
        ...uniquePoints.map((p) => `- ${p}`),
        cta
      ].join("\n\n")
      break
    }
    case "blog": {
      // Each section's supporting sentence: one of the points no section is about (at least four), another per section.
      const spare = points.map((point) => point(b)).filter((sentence) => !uniquePoints.includes(sentence))
      const sections = uniquePoints.map((p, i) =>
        `## ${i + 1}. ${fitWords(cutLastLineAt(p, /[.;:]/), 80)}\n\n${p} ${pick(spare, b.seed + i)}`
      )
      body = [
        `# ${title}`,
        hook,
        b.description === undefined ? `At ${b.brandName} we spend our days on ${b.topic}. This guide is for ${b.audience}.` : b.description,
        ...sections,
        ...(factLines.length > 0 ? ["## In numbers", ...factLines] : []),
        "## Next step",
        cta
      ].join("\n\n")
      break
    }
  }
  if (limit !== undefined) body = fitWords(body, limit)
  return { title, hook, body, cta, hashtags }
}
