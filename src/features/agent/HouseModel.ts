import { Effect, Stream } from "effect"
import { LanguageModel, Prompt, Response, Tool } from "effect/ai"
import { platformBodyLimits } from "../../domain/Content.ts"
import {
  audienceGroups,
  type BrandFields,
  brandFrom,
  type Brief,
  capitalize,
  type CopyKind,
  joinList,
  stableHash,
  trimTrailing,
  writeDraft
} from "../../domain/Copywriting.ts"
import { reportQuestionOf } from "../../domain/Reports.ts"
import { isSocialPlatform, platformNames } from "../../domain/Social.ts"
import { charLength, lastLineStart } from "../../domain/Text.ts"
import { firstJsonObject } from "./firstJsonObject.ts"
import { parseReportsLine, reportsAnswer } from "./ReportAnswer.ts"

/** The line of a system prompt that carries the confirmed brand profile as JSON. */
export const profileMarker = "Brand profile (JSON): "

/** The marker before the JSON brief in a system message (the Writer puts it there). */
export const briefMarker = "Brief (JSON): "

const kinds: ReadonlyArray<CopyKind> = ["blog", "social", "email", "ad", "outreach", "report"]

const systemText = (prompt: Prompt.Prompt): string =>
  prompt.content.filter((m): m is Prompt.SystemMessage => m.role === "system").map((m) => m.content).join("\n")

const userText = (message: Prompt.Message | undefined): string =>
  message?.role === "user"
    ? message.content.filter((p): p is Prompt.TextPart => p.type === "text").map((p) => p.text).join("\n")
    : ""

const parseBrief = (system: string): Brief | undefined => {
  const line = system.split("\n").find((l) => l.startsWith(briefMarker))
  if (line === undefined) return undefined
  try {
    const value = JSON.parse(line.slice(briefMarker.length)) as Partial<Brief>
    if (typeof value !== "object" || value === null) return undefined
    return {
      ...value,
      kind: kinds.includes(value.kind as CopyKind) ? value.kind as CopyKind : "social",
      brandName: typeof value.brandName === "string" ? value.brandName : "",
      topic: typeof value.topic === "string" ? value.topic : ""
    }
  } catch {
    return undefined
  }
}

/**
 * The words after the first "about" that runs on to the end of the text on
 * one line (what `/\babout\s+(.+)$/i` captures, without retrying the rest of
 * the line from every "about" before a line break).
 */
const aboutTopic = (text: string): string | undefined => {
  const lastLine = lastLineStart(text)
  for (const about of text.matchAll(/\babout\s+(?=\S)/gi)) {
    const start = about.index + about[0].length
    if (start >= lastLine) return text.slice(start)
  }
  return undefined
}

/** A brief from a free request ("a linkedin post about onboarding"): platform and kind from its words. */
const briefFromRequest = (text: string, brand: BrandFields): Brief => {
  const lower = text.toLowerCase()
  const platform = platformIn(lower)
  const kind: CopyKind = platform !== undefined || /\b(?:post|tweet)\b/.test(lower)
    ? "social"
    : /\bemail\b/.test(lower)
    ? "email"
    : /\b(?:ad|advert)\b/.test(lower)
    ? "ad"
    : "blog"
  return { ...brand, kind, topic: topicOf(text, brand), platform }
}

const toolNamed = (tools: ReadonlyArray<Tool.Any>, text: string): Tool.Any | undefined => {
  const lower = text.toLowerCase()
  return tools.find((t) =>
    lower.includes(t.name.toLowerCase()) || lower.includes(t.name.toLowerCase().replaceAll("_", " "))
  )
}

/** The platform a request names ("twitter" is X). */
const platformIn = (lower: string): string | undefined =>
  /\b(?:twitter|tweets?)\b/.test(lower)
    ? "x"
    : Object.keys(platformBodyLimits).find((p) => new RegExp(`\\b${p}\\b`).test(lower))

/** What a request asks for, as a marketer would read it. */
export type Intent =
  | "capabilities"
  | "profile"
  | "reports"
  | "approvals"
  | "performance"
  | "research"
  | "audit"
  | "publish"
  | "ideas"
  | "draft"
  | "unknown"

/** The intent of a request (pure: word rules a person would apply, tested on their own). */
export const intentOf = (text: string): Intent => {
  const lower = text.toLowerCase()
  if (
    /\b(?:what can you do|what do you do|how can you help|your capabilities|what are you able)\b/.test(lower) ||
    lower.trim() === "help"
  ) return "capabilities"
  // Reading a stored report comes before running a new audit or brief: "what did our last SEO audit find?".
  if (reportQuestionOf(text) !== undefined) return "reports"
  if (/\b(?:approv\w*|pending|waiting|waits|to review|in review)\b/.test(lower)) return "approvals"
  if (
    /\b(?:perform\w*|analytics|traffic|sessions|visitors|results|stats|metrics|numbers|how did|how are we doing|engagement)\b/
      .test(lower)
  ) return "performance"
  if (
    /\b(?:competitors?|rivals?|competition|market research|compare (?:us|ourselves|our \w+) (?:with|to|against))\b/
      .test(lower)
  ) return "research"
  if (/\b(?:audit|scan|seo|check (?:our|my) (?:site|website|page))\b/.test(lower)) return "audit"
  if (/\b(?:brand profile|our profile|our brand|our audience|our voice|who are we|about us)\b/.test(lower)) {
    return "profile"
  }
  if (/\b(?:ideas?|what should (?:we|i) post|suggest\w*|inspiration|brainstorm)\b/.test(lower)) return "ideas"
  if (/\b(?:schedule|publish|post it|go live)\b/.test(lower)) return "publish"
  if (/\b(?:write|draft|create|compose|blog|email|newsletter|tweet|caption|post)\b/.test(lower)) return "draft"
  return "unknown"
}

/** The brand as the system prompt tells it (the confirmed profile), or a neutral name. */
const brandOf = (
  system: string
): { readonly brand: BrandFields; readonly profile: Record<string, unknown> | undefined } => {
  const line = system.split("\n").find((l) => l.startsWith(profileMarker))
  let profile: Record<string, unknown> | undefined
  if (line !== undefined) {
    try {
      const value = JSON.parse(line.slice(profileMarker.length)) as unknown
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        profile = value as Record<string, unknown>
      }
    } catch {
      profile = undefined
    }
  }
  return { brand: brandFrom([profile], "your brand"), profile }
}

/** The topic a request names after "about", else the brand's first topic or product, else what it does. */
const topicOf = (text: string, brand: BrandFields): string => {
  const about = aboutTopic(text.trim())
  const cut = about === undefined ? undefined : trimTrailing(about, ".?! ").slice(0, 120).trim()
  return cut !== undefined && cut.length > 0 ? cut : brand.topics?.[0] ?? brand.products?.[0] ?? "what we do"
}

const numberWords: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10
}

const howMany = (text: string): number => {
  const lower = text.toLowerCase()
  const digits = /\b(\d{1,2})\b/.exec(lower)
  const word = Object.keys(numberWords).find((w) => new RegExp(`\\b${w}\\b`).test(lower))
  const n = digits !== null ? Number(digits[1]) : word !== undefined ? numberWords[word]! : 3
  return Math.min(Math.max(n, 1), 10)
}

const formatFor: Record<string, string> = {
  x: "a short post",
  linkedin: "a LinkedIn post",
  instagram: "a carousel",
  facebook: "a post",
  tiktok: "a 30-second video",
  pinterest: "a pin"
}

/** What a request asks, with what a follow-up in the thread changed of the request it follows. */
export interface Ask {
  /** The words whose intent and topic count (a follow-up's are the earlier request's). */
  readonly text: string
  /** The platform a follow-up named instead ("what about Instagram?"). */
  readonly platform?: string | undefined
  /** The topic a follow-up named instead ("what about cold brew?"). */
  readonly topic?: string | undefined
  readonly count?: number | undefined
  /** How many ideas or drafts came before in the thread: "another one" is a new one. */
  readonly offset: number
}

const askOfText = (text: string): Ask => ({ text, offset: 0 })

const platformOf = (ask: Ask): string | undefined => ask.platform ?? platformIn(ask.text.toLowerCase())

/** The topic a request names after "about", else the brand's first topic or product, else what it does. */
const topicOfAsk = (ask: Ask, brand: BrandFields): string => ask.topic ?? topicOf(ask.text, brand)

/** One idea: its subject and angle, told long (in the list) or short (when asked for a shorter one). */
interface Idea {
  readonly subject: string
  readonly angle: number
  readonly format: string
  readonly long: string
  readonly short: string
}

const ideaAngles: ReadonlyArray<{
  readonly long: (subject: string, brand: string, audience: string) => string
  readonly short: (subject: string) => string
}> = [
  { long: (s, _, a) => `a quick how-to for ${a} on ${s}`, short: (s) => `how-to: ${s}` },
  { long: (s, b) => `behind the scenes: how ${b} works on ${s}`, short: (s) => `behind the scenes: ${s}` },
  {
    long: (s, _, a) => `a question to ${a}: what would they like to know about ${s}?`,
    short: (s) => `your questions on ${s}`
  },
  { long: (s, b) => `a myth about ${s} that ${b} can put right`, short: (s) => `one myth about ${s}` },
  { long: (s) => `a customer story or review that mentions ${s}`, short: (s) => `a customer on ${s}` },
  { long: (s) => `three tips on ${s}, one line each`, short: (s) => `3 tips: ${s}` },
  { long: (s) => `a before-and-after that shows ${s} at work`, short: (s) => `before and after: ${s}` }
]

/** The ideas an ask gets: the brand's topics and products in turn, each with the next angle. */
const ideasOf = (ask: Ask, brand: BrandFields): ReadonlyArray<Idea> => {
  const platform = platformOf(ask)
  const subjects = ask.topic !== undefined ? [ask.topic] : [...(brand.topics ?? []), ...(brand.products ?? [])]
  const fallback = topicOfAsk(ask, brand)
  const audience = joinList(audienceGroups(brand.audience)) || "your customers"
  const format = platform === undefined ? "a post" : formatFor[platform] ?? "a post"
  return Array.from({ length: ask.count ?? howMany(ask.text) }, (_, n) => {
    const i = ask.offset + n
    const subject = subjects.length > 0 ? subjects[i % subjects.length]! : fallback
    const angle = ideaAngles[i % ideaAngles.length]!
    return {
      subject,
      angle: i,
      format,
      long: angle.long(subject, brand.brandName, audience),
      short: angle.short(subject)
    }
  })
}

/** Post ideas for the brand: its topics and products, its audience, the platform's format. */
const ideas = (ask: Ask, brand: BrandFields): string => {
  const platform = platformOf(ask)
  const subjects = [...(brand.topics ?? []), ...(brand.products ?? [])]
  const audience = joinList(audienceGroups(brand.audience)) || "your customers"
  const list = ideasOf(ask, brand)
  const n = list.length
  const lines = list.map((idea, i) =>
    `${i + 1}. ${capitalize(idea.format)}: ${idea.long}${idea.long.endsWith("?") ? "" : "."}`
  )
  const where = platform === undefined ? "" : ` on ${platformNames[platform]}`
  const missing = subjects.length === 0
    ? "\n\nConfirm a brand profile with your topics and products and the ideas will use them."
    : ""
  const heading = ask.offset > 0 ? (n === 1 ? "One more idea" : `${n} more ideas`) : n === 1 ? "One idea" : `${n} ideas`
  return `${heading} for ${brand.brandName}${where}, for ${audience}:\n\n${
    lines.join("\n")
  }\n\nAsk me to draft one ("draft the ${
    n > 1 ? "second" : "first"
  } one") and it goes to your content queue for approval.${missing}`
}

const profileAnswer = (brand: BrandFields, profile: Record<string, unknown> | undefined): string => {
  if (profile === undefined || Object.keys(profile).length <= 1) {
    return "No brand profile has been confirmed yet. Start onboarding with your site's address and confirm what it finds; I then write in your voice, for your audience."
  }
  const lines = [
    `Brand: ${brand.brandName}`,
    brand.description === undefined ? undefined : `What you do: ${brand.description}`,
    brand.audience === undefined ? undefined : `Audience: ${joinList(audienceGroups(brand.audience))}`,
    brand.voice === undefined ? undefined : `Voice: ${brand.voice}`,
    (brand.products ?? []).length === 0 ? undefined : `Products: ${joinList(brand.products ?? [])}`,
    (brand.topics ?? []).length === 0 ? undefined : `Topics: ${joinList(brand.topics ?? [])}`,
    brand.url === undefined ? undefined : `Site: ${brand.url}`
  ].filter((l): l is string => l !== undefined)
  return `Here is the brand profile I work from:\n\n${lines.join("\n")}`
}

const capabilities = (brand: BrandFields): string =>
  [
    `I am Herald, the marketing assistant of ${brand.brandName}. Without a language model I can:`,
    "- suggest post ideas for a platform (\"3 LinkedIn ideas\")",
    "- draft a post, blog or email into your content queue (\"draft an Instagram post about our new blend\")",
    "- report how your content performed (\"how did we do this week?\")",
    "- tell you what waits for your approval",
    "- run an SEO and AI-visibility audit of your site (\"audit https://…\")",
    "- research competitors and write a brief to your reports (\"compare us with Rival Co and rival.example\")",
    "- read your stored reports back: SEO audits, competitor briefs, performance reports (\"what did our last SEO audit find?\", \"list our reports\")",
    "- tell you what your brand profile says",
    "For open questions, an administrator can configure a language model (LLM_PROVIDER=openai with an OpenAI-compatible server)."
  ].join("\n")

const unknownAnswer = (brand: BrandFields): string => `I can't answer that one on my own.\n\n${capabilities(brand)}`

/** The first http(s) address in a text, without the punctuation after it. */
const urlIn = (text: string): string | undefined => {
  const found = /\bhttps?:\/\/[^\s"'<>]+/.exec(text)?.[0]
  return found === undefined ? undefined : trimTrailing(found, ".,;:!?)")
}

const offered = (tools: ReadonlyArray<Tool.Any>, name: string) => tools.some((t) => t.name === name)

const contentType = (
  kind: CopyKind
): "blog" | "social" | "email" | "ad" => (kind === "email" || kind === "ad" || kind === "social" ? kind : "blog")

/**
 * The competitors a request names: its addresses, and the names after "with",
 * "against", "vs", "such as" or a colon ("compare us with Asana and
 * Trello"), at most five.
 */
export const competitorsIn = (text: string): ReadonlyArray<string> => {
  const urls = [...text.matchAll(/\bhttps?:\/\/[^\s"'<>,]+/g)].map((m) => trimTrailing(m[0], ".,;:!?)"))
  const named = /(?:\b(?:with|against|vs|versus|such as)\b|:)([^:]+)$/i.exec(
    text.split("\n").at(-1)!.replace(/\bhttps?:\/\/[^\s"'<>,]+/g, "")
  )
  const names = named === null ? [] : named[1]!.split(/,|\band\b|\bor\b|\bvs\b/i)
    .map((name) => trimTrailing(name.trim(), ".?!;").trim())
    .filter((name) =>
      name.length > 0 && name.length <= 60 && !/^(?:us|we|them|competitors?)$/i.test(name) &&
      !/^(?:a|an|the|their|its|my|our|your)\b/i.test(name)
    )
  return [...new Set([...urls, ...names])].slice(0, 5)
}

/** What the house model does for a request in plain words: a tool call for the customer's data, or an answer. */
const answerRequest = (ask: Ask, system: string, tools: ReadonlyArray<Tool.Any>): HouseTurn => {
  const request = ask.text
  const { brand, profile } = brandOf(system)
  switch (intentOf(request)) {
    case "capabilities":
      return { _tag: "text", text: capabilities(brand) }
    case "profile":
      return { _tag: "text", text: profileAnswer(brand, profile) }
    case "reports":
      return { _tag: "text", text: reportsAnswer(parseReportsLine(system), brand.brandName) }
    case "approvals":
      return offered(tools, "query_ga4")
        ? { _tag: "tool", name: "query_ga4", params: { period: "last_90_days" } }
        : { _tag: "text", text: "The content queue lists what waits for your approval (status pending_approval)." }
    case "performance": {
      const lower = request.toLowerCase()
      const period = /\b(?:quarter|90 days|three months)\b/.test(lower)
        ? "last_90_days"
        : /\b(?:month|30 days)\b/.test(lower)
        ? "last_30_days"
        : "last_7_days"
      return offered(tools, "query_ga4")
        ? { _tag: "tool", name: "query_ga4", params: { period } }
        : { _tag: "text", text: unknownAnswer(brand) }
    }
    case "research": {
      const competitors = competitorsIn(request)
      return offered(tools, "run_research")
        ? {
          _tag: "tool",
          name: "run_research",
          params: { topic: topicOfAsk(ask, brand), ...(competitors.length === 0 ? {} : { competitors }) }
        }
        : {
          _tag: "text",
          text: `Ask me in the chat to research ${
            competitors.length === 0 ? "your competitors" : joinList(competitors)
          }; the brief is stored with your reports.`
        }
    }
    case "audit": {
      const url = urlIn(request) ?? brand.url
      if (url === undefined) {
        return {
          _tag: "text",
          text: "Which page should I audit? Send me its full address, for example https://example.com."
        }
      }
      return offered(tools, "ai_seo_audit")
        ? { _tag: "tool", name: "ai_seo_audit", params: { url } }
        : { _tag: "text", text: `Ask me in the chat to audit ${url}; here I only read figures.` }
    }
    case "publish":
      return {
        _tag: "text",
        text:
          `I publish only what you have approved, on platforms you have connected. Approve a draft in the content queue and the publisher posts it for ${brand.brandName}, or give me the platform, the exact text and the time and I will schedule it.`
      }
    case "ideas":
      return { _tag: "text", text: ideas(ask, brand) }
    case "draft":
      return draftTurn(ask, brand, tools)
    case "unknown":
      return { _tag: "text", text: unknownAnswer(brand) }
  }
}

/** A draft for the ask: into the content queue through run_content_creation when offered, else as text. */
const draftTurn = (ask: Ask, brand: BrandFields, tools: ReadonlyArray<Tool.Any>, idea?: Idea): HouseTurn => {
  const asked = briefFromRequest(ask.text, brand)
  const platform = ask.platform ?? asked.platform
  const brief: Brief = {
    ...asked,
    kind: platform !== undefined ? "social" : asked.kind,
    topic: idea?.subject ?? ask.topic ?? asked.topic,
    platform,
    angle: idea?.angle ?? ask.offset
  }
  if (offered(tools, "run_content_creation")) {
    const type = contentType(brief.kind)
    const draft = writeDraft({ ...brief, kind: type })
    return {
      _tag: "tool",
      name: "run_content_creation",
      params: { type, topic: draft.title, ...(platform === undefined ? {} : { platform }), brief: draft.body }
    }
  }
  const draft = writeDraft(brief)
  return { _tag: "text", text: `${draft.title}\n\n${draft.body}` }
}

// ---- Follow-ups ------------------------------------------------------------
// A short message that leans on the thread ("make the second one shorter", "another one for X",
// "yes, schedule it", "what about Instagram?") is read against the earlier turns: the request it
// follows, and what was drafted.

const ordinalWords: Readonly<Record<string, number>> = {
  first: 0,
  "1st": 0,
  second: 1,
  "2nd": 1,
  third: 2,
  "3rd": 2,
  fourth: 3,
  "4th": 3,
  fifth: 4,
  "5th": 4,
  last: -1,
  final: -1
}

/**
 * The item a follow-up points at ("the second one", "idea 2", "number 2", "#2"): its position, -1 for
 * the last one, undefined when it names none ("it").
 */
const ordinalIn = (lower: string): number | undefined => {
  const word = /\b(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last|final) (?:one|idea|post|draft)\b/.exec(
    lower
  )
  if (word !== null) return ordinalWords[word[1]!]
  const numbered = /(?:\bnumber |\bidea |#)([1-9])\b/.exec(lower)
  return numbered === null ? undefined : Number(numbered[1]) - 1
}

/** A follow-up as the house model reads it. */
type FollowUp =
  | { readonly _tag: "ask"; readonly ask: Ask }
  | { readonly _tag: "shorter"; readonly item: number | undefined }
  | { readonly _tag: "draft"; readonly item: number | undefined }
  | { readonly _tag: "schedule"; readonly now: boolean }

const isShortFollowUp = (lower: string) => lower.split(/\s+/).filter((w) => w.length > 0).length <= 12

/**
 * Reads a message as a follow-up of `previous` (the request it follows in the
 * thread), or undefined when it stands on its own.
 */
export const followUpOf = (text: string, previous: Ask | undefined): FollowUp | undefined => {
  const lower = text.toLowerCase().trim()
  if (!isShortFollowUp(lower)) return undefined
  if (/\b(?:shorter|shorten|trim it|tighter|more concise|cut it down)\b/.test(lower)) {
    return { _tag: "shorter", item: ordinalIn(lower) }
  }
  if (
    /^(?:yes|yeah|yep|sure|ok|okay|great|perfect|go ahead|do it|please do)\b/.test(lower) ||
    /\b(?:schedule|publish|post) (?:it|that|this one|that one)\b/.test(lower)
  ) {
    if (
      /\b(?:schedule|publish|post|queue)\b/.test(lower) ||
      /^(?:yes|yeah|yep|sure|ok|okay|go ahead|do it|please do)\W*$/.test(lower)
    ) {
      return { _tag: "schedule", now: /\b(?:now|right away|immediately)\b/.test(lower) && !/\bschedule\b/.test(lower) }
    }
  }
  if (previous === undefined) return undefined
  if (
    /\b(?:draft|write)\b/.test(lower) && (ordinalIn(lower) !== undefined || /\b(?:it|that one|this one)\b/.test(lower))
  ) {
    return { _tag: "draft", item: ordinalIn(lower) }
  }
  const about = /^(?:and |so )?(?:what|how) about (.+)$/.exec(trimTrailing(lower, "?!. "))
  if (about !== null) {
    const target = about[1]!.replace(/^(?:for |on )/, "")
    const platform = platformIn(target)
    if (platform !== undefined) return { _tag: "ask", ask: { ...previous, platform } }
    const period = /\b(?:month|quarter|week|30 days|90 days|7 days)\b/.test(target)
    if (period && intentOf(previous.text) === "performance") {
      return { _tag: "ask", ask: { ...previous, text: `how did we perform ${target}` } }
    }
    return { _tag: "ask", ask: { ...previous, topic: trimTrailing(about[1]!, ".?! ") } }
  }
  if (/\b(?:another|one more|more of those|more ideas|a few more|some more)\b/.test(lower)) {
    const platform = platformIn(lower)
    const digits = /\b(\d{1,2})\b/.exec(lower)
    const count = digits !== null ? howMany(lower) : /\bone\b|\banother\b/.test(lower) ? 1 : howMany(lower)
    const shown = previous.count ?? howMany(previous.text)
    const forTopic = /\bfor (.+)$/.exec(trimTrailing(lower, "?!. "))?.[1]
    return {
      _tag: "ask",
      ask: {
        ...previous,
        count,
        offset: previous.offset + (intentOf(previous.text) === "ideas" ? shown : 1),
        ...(platform !== undefined ? { platform } : forTopic !== undefined ? { topic: forTopic } : {})
      }
    }
  }
  return undefined
}

/** What a tool call recorded in the thread said: `(tool call: {name, arguments, result})`, as chat stores it. */
const recordedCall = (
  message: Prompt.Message
): { readonly name: string; readonly arguments: any; readonly result: any } | undefined => {
  if (message.role !== "assistant") return undefined
  const text = message.content.filter((p): p is Prompt.TextPart => p.type === "text").map((p) => p.text).join("")
  if (!text.startsWith("(tool call: ") || !text.endsWith(")")) return undefined
  try {
    const value = JSON.parse(text.slice("(tool call: ".length, -1)) as unknown
    return typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string"
      ? value as never
      : undefined
  } catch {
    return undefined
  }
}

/** A piece drafted in the thread: its id in the content queue, its text and platform. */
interface Drafted {
  readonly id: string | undefined
  readonly title: string
  readonly body: string
  readonly platform: string | undefined
}

/** The last piece drafted in the thread. */
const lastDraft = (messages: ReadonlyArray<Prompt.Message>): Drafted | undefined => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const call = recordedCall(messages[i]!)
    const data = call?.result?.data
    if (call?.name === "run_content_creation" && typeof data?.body === "string") {
      return {
        id: typeof data.id === "string" ? data.id : undefined,
        title: String(data.title ?? ""),
        body: data.body,
        platform: typeof data.platform === "string" ? data.platform : undefined
      }
    }
  }
  return undefined
}

/** The thread's user messages, each read as an ask (a follow-up read against the one before). */
const asksOf = (
  messages: ReadonlyArray<Prompt.Message>
): ReadonlyArray<{ readonly ask: Ask; readonly followUp: FollowUp | undefined }> => {
  const asks: Array<{ ask: Ask; followUp: FollowUp | undefined }> = []
  let previous: Ask | undefined
  for (const message of messages) {
    if (message.role !== "user") continue
    const text = userText(message)
    const followUp = intentOf(text) === "unknown" || intentOf(text) === "publish" || intentOf(text) === "draft"
      ? followUpOf(text, previous)
      : undefined
    const ask = followUp?._tag === "ask"
      ? followUp.ask
      : followUp === undefined
      ? askOfText(text)
      : previous ?? askOfText(text)
    asks.push({ ask, followUp })
    previous = ask
  }
  return asks
}

/**
 * The text made shorter by whole paragraphs or sentences, never cut mid-word:
 * the opening, the closing call to action, the hashtags, and the first point
 * naming the brand when neither of those does.
 */
export const shorten = (body: string, brandName = ""): string => {
  const paragraphs = body.split(/\n{2,}/).map((p) => p.trim()).filter((p) => p.length > 0)
  const tags = paragraphs.length > 1 && paragraphs.at(-1)!.startsWith("#") ? paragraphs.at(-1) : undefined
  const text = tags === undefined ? paragraphs : paragraphs.slice(0, -1)
  // Two paragraphs or fewer: the sentences are what can go. The brand's own full stop ("Acme Co.") ends none.
  const name = brandName.trim()
  const mark = "\u0001"
  const sentences = text.length > 2
    ? text
    : (name.length === 0 ? text.join(" ") : text.join(" ").replaceAll(name, mark)).split(/(?<=[.!?])\s+/).map((part) =>
      part.replaceAll(mark, name)
    )
  const joiner = text.length > 2 ? "\n\n" : " "
  if (sentences.length <= 2) return body
  const brand = brandName.trim().replace(/\s+/g, " ").toLowerCase()
  const names = (text: string) => brand.length === 0 || text.toLowerCase().includes(brand)
  // The opening and the close; else with the first point naming the brand between them; else with as many
  // points after the opening as it takes (a brand with a full stop, "Acme Co.", spans sentences).
  const middle = sentences.slice(1, -1).find(names)
  const tries = [
    [sentences[0]!, sentences.at(-1)!].join(joiner),
    ...(middle === undefined ? [] : [[sentences[0]!, middle, sentences.at(-1)!].join(joiner)]),
    ...Array.from(
      { length: sentences.length - 1 },
      (_, n) => [...sentences.slice(0, n + 1), sentences.at(-1)!].join(joiner)
    )
  ]
  const shorter = tries.find(names) ?? text.join("\n\n")
  return tags === undefined ? shorter : `${shorter}\n\n${tags}`
}

const weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

/**
 * When "schedule it" asks for (UTC): "today", "tomorrow" or a weekday, and
 * "at 3pm", "at 15:30", "9 am" or "15:30"; tomorrow at 09:00 when it says nothing,
 * and never a time already past (today's past hour is tomorrow's).
 */
export const scheduledTime = (text: string, now: Date): string => {
  const lower = text.toLowerCase()
  // "at 3", "at 15:30", or a time that says it is one without "at": "9am", "3 pm", "15:30".
  const clock = /\bat (\d{1,2})(?::(\d{2}))? ?(am|pm)?\b/.exec(lower) ??
    /\b(\d{1,2})(?::(\d{2}))? ?(am|pm)\b/.exec(lower) ?? /\b(\d{1,2}):(\d{2})\b/.exec(lower)
  const hour = clock === null
    ? 9
    : (Number(clock[1]) % 12) + (clock[3] === "pm" || (clock[3] === undefined && Number(clock[1]) >= 12) ? 12 : 0)
  const minute = clock?.[2] === undefined ? 0 : Math.min(59, Number(clock[2]))
  const weekday = weekdays.findIndex((day) => new RegExp(`\\b${day}\\b`).test(lower))
  const today = now.getUTCDay()
  const days = /\btoday\b/.test(lower)
    ? 0
    : weekday >= 0
    ? (weekday - today + 7) % 7 || 7
    : /\btomorrow\b/.test(lower) || clock === null
    ? 1
    : 0
  let at = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days, Math.min(hour, 23), minute)
  if (at <= now.getTime()) at += 86_400_000
  return new Date(at).toISOString().replace(".000Z", "Z")
}

/** A follow-up answered from the thread, or undefined when the thread has nothing it can refer to. */
const answerFollowUp = (
  request: string,
  followUp: FollowUp,
  asked: Ask | undefined,
  messages: ReadonlyArray<Prompt.Message>,
  system: string,
  tools: ReadonlyArray<Tool.Any>
): HouseTurn | undefined => {
  const { brand } = brandOf(system)
  const draft = lastDraft(messages)
  const previousIdeas = asked !== undefined && intentOf(asked.text) === "ideas" ? ideasOf(asked, brand) : undefined
  const pick = <A>(items: ReadonlyArray<A>, item: number | undefined) =>
    items[item === undefined ? 0 : item < 0 ? items.length - 1 : item]
  switch (followUp._tag) {
    case "ask":
      return answerRequest(followUp.ask, system, tools)
    case "shorter": {
      if (previousIdeas !== undefined) {
        const idea = pick(previousIdeas, followUp.item)
        if (idea === undefined) {
          return {
            _tag: "text",
            text: `That list had ${plural(previousIdeas.length, "idea", "ideas")}; which one should I shorten?`
          }
        }
        const n = followUp.item === undefined ? 1 : followUp.item < 0 ? previousIdeas.length : followUp.item + 1
        return {
          _tag: "text",
          text: `Idea ${n}, shorter: ${
            capitalize(idea.short)
          }.\n\nSay "draft it" and I will write it up for your content queue.`
        }
      }
      if (draft !== undefined) {
        const shorter = shorten(draft.body, brand.brandName)
        return {
          _tag: "text",
          text: `A shorter version of "${draft.title}" (${charLength(shorter)} characters instead of ${
            charLength(draft.body)
          }):\n\n${shorter}\n\nPaste it over the draft in the content queue, or say "schedule it" and I will queue this version.`
        }
      }
      return {
        _tag: "text",
        text: "Which text should I shorten? Ask me for ideas or a draft first, then \"make it shorter\"."
      }
    }
    case "draft": {
      if (previousIdeas === undefined || asked === undefined) return undefined
      const idea = pick(previousIdeas, followUp.item)
      if (idea === undefined) {
        return {
          _tag: "text",
          text: `That list had ${plural(previousIdeas.length, "idea", "ideas")}; which one should I draft?`
        }
      }
      return draftTurn(asked, brand, tools, idea)
    }
    case "schedule": {
      if (draft === undefined) {
        return previousIdeas === undefined
          ? undefined
          : {
            _tag: "text",
            text:
              `Which idea should I draft first? Say "draft the second one", for example; once it is drafted, "schedule it" queues it.`
          }
      }
      const shortened = messages.some((m) =>
        m.role === "assistant" &&
        m.content.some((p) => p.type === "text" && p.text.startsWith(`A shorter version of "${draft.title}"`))
      )
      const body = shortened ? shorten(draft.body, brand.brandName) : draft.body
      if (draft.platform === undefined || !isSocialPlatform(draft.platform)) {
        return {
          _tag: "text",
          text:
            `"${draft.title}" is not a social post, so there is nothing to schedule: approve it in the content queue and it is published there.`
        }
      }
      const name = followUp.now ? "publish_to_social" : "schedule_content"
      if (!offered(tools, name)) {
        return {
          _tag: "text",
          text: `Approve "${draft.title}" in the content queue and the publisher posts it on ${
            platformNames[draft.platform]
          }.`
        }
      }
      return {
        _tag: "tool",
        name,
        params: {
          // The drafted piece itself goes out (approved as it reads now), so no second copy waits in the queue.
          ...(draft.id === undefined ? {} : { contentId: draft.id }),
          platform: draft.platform,
          body,
          ...(followUp.now ? {} : { scheduledAt: scheduledTime(request, new Date()) })
        }
      }
    }
  }
}

const count = (value: unknown): number => (typeof value === "number" ? value : 0)
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** The latest performance report a figures tool named, as a sentence pointing at it. */
const latestReportLine = (value: unknown): string => {
  const report = value as { title?: unknown; url?: unknown; createdAt?: unknown } | null | undefined
  if (typeof report?.title !== "string" || typeof report.url !== "string") return ""
  const on = typeof report.createdAt === "string" && !Number.isNaN(Date.parse(report.createdAt))
    ? ` of ${
      new Date(report.createdAt).toLocaleDateString("en-GB", {
        day: "numeric",
        month: "long",
        year: "numeric",
        timeZone: "UTC"
      })
    }`
    : ""
  return `\n\nYour latest performance report${on}, "${report.title}", is at ${report.url}.`
}

/** A tool's result told as a person would: what it found for the brand, from the tool's own data. */
const summarise = (result: Prompt.ToolResultPart, request: string, system: string, draft?: Drafted): string => {
  const { brand } = brandOf(system)
  const value = result.result as { summary?: unknown; data?: Record<string, unknown>; message?: unknown } | null
  if (result.isFailure) {
    const message = typeof value?.message === "string" ? value.message : "it failed"
    return `I could not run ${result.name}: ${message}`
  }
  const data = value?.data ?? {}
  const summary = typeof value?.summary === "string" ? value.summary : ""
  if (result.name === "query_ga4" && data["source"] === "herald") {
    const byStatus = (data["contentByStatus"] ?? {}) as Record<string, unknown>
    const waiting = count(byStatus["pending_approval"])
    if (intentOf(request) === "approvals") {
      return waiting === 0
        ? `Nothing waits for your approval right now. Ask me for post ideas and I will draft some for ${brand.brandName}.`
        : `${plural(waiting, "piece waits", "pieces wait")} for your approval in the content queue, and ${
          plural(count(byStatus["draft"]), "draft is", "drafts are")
        } still open. Approve or reject them there; the publisher takes the approved ones.`
    }
    const created = Object.entries((data["contentCreated"] ?? {}) as Record<string, unknown>)
    const total = created.reduce((sum, [, n]) => sum + count(n), 0)
    const days = String(data["period"] ?? "last_7_days").replace("last_", "").replace("_days", "")
    const kinds = created.map(([type, n]) => `${count(n)} ${type}`).join(", ")
    return [
      `In the last ${days} days ${brand.brandName} created ${plural(total, "piece", "pieces")}${
        kinds.length > 0 ? ` (${kinds})` : ""
      } and published ${count(data["published"])}; ${waiting} ${waiting === 1 ? "waits" : "wait"} for your approval.`,
      "Google Analytics is not connected to this Herald server, so these are Herald's own figures, not website traffic; with GA4 set up I report sessions, users and conversions."
    ].join(" ") + latestReportLine(data["latestReport"])
  }
  if (result.name === "run_content_creation") {
    const status = String(data["status"] ?? "draft")
    const where = status === "pending_approval"
      ? "waits for your approval"
      : status === "approved"
      ? "is approved and queued"
      : "is a draft"
    const platform = typeof data["platform"] === "string" && isSocialPlatform(data["platform"])
      ? platformNames[data["platform"]]
      : undefined
    const next = platform === undefined
      ? ""
      : `\n\nSay "schedule it" and I will queue it for ${platform} tomorrow at 09:00 UTC (or say when: "schedule it for Monday at 10am"), or "make it shorter".`
    return `I drafted "${String(data["title"] ?? "")}" for ${brand.brandName}; it ${where} in the content queue.\n\n${
      String(data["body"] ?? "")
    }${next}`
  }
  if ((result.name === "schedule_content" || result.name === "publish_to_social") && typeof data["id"] === "string") {
    const platform = typeof data["platform"] === "string"
      ? platformNames[data["platform"]] ?? data["platform"]
      : "the platform"
    const at = typeof data["scheduledAt"] === "string" ? new Date(data["scheduledAt"]) : undefined
    const when = at === undefined || Number.isNaN(at.getTime())
      ? "now"
      : `on ${at.toLocaleDateString("en-GB", { weekday: "long", day: "numeric", month: "long", timeZone: "UTC" })} at ${
        at.toISOString().slice(11, 16)
      } UTC`
    if (draft !== undefined && draft.id === data["id"]) {
      return `"${draft.title}" is approved and queued for ${platform} ${when} (piece ${
        data["id"]
      }); the publisher posts it ${at === undefined ? "in a moment" : "then"} for ${brand.brandName}.`
    }
    const drafted = draft === undefined
      ? ""
      : ` The draft "${draft.title}" still waits in the content queue: reject it there so the post does not go out twice.`
    return `Queued for ${platform} ${when} (post ${
      data["id"]
    }); the publisher posts it then for ${brand.brandName}.${drafted}`
  }
  if (summary.length > 0) return summary
  const json = JSON.stringify(result.result) ?? "null"
  return `${result.name} returned: ${charLength(json) > 1500 ? `${Array.from(json).slice(0, 1500).join("")}…` : json}`
}

export type HouseTurn =
  | { readonly _tag: "text"; readonly text: string }
  | { readonly _tag: "tool"; readonly name: string; readonly params: Record<string, unknown> }

const lastUserText = (messages: ReadonlyArray<Prompt.Message>): string => {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return userText(messages[i])
  return ""
}

/**
 * What the house model answers to a prompt (pure, so tests can assert it):
 * a tool call when the last user message names an offered tool (its params
 * the first JSON object in the message, or the address it names); after tool
 * results, what they say in words; for a writer's prompt (a brief in the
 * system message), the piece; otherwise the request's intent answered from
 * the brand profile and the customer's data through the offered tools, or
 * an honest "I can't" with what it can do.
 */
export const houseTurn = (
  options: Pick<LanguageModel.ProviderOptions, "prompt" | "tools" | "toolChoice">
): HouseTurn => {
  const messages = options.prompt.content
  const last = messages[messages.length - 1]
  const system = systemText(options.prompt)
  if (last?.role === "tool") {
    const results = last.content.filter((p): p is Prompt.ToolResultPart => p.type === "tool-result")
    const request = asksOf(messages).at(-1)?.ask.text ?? lastUserText(messages)
    const draft = lastDraft(messages)
    return {
      _tag: "text",
      text: results.length === 0 ? "Done." : results.map((r) => summarise(r, request, system, draft)).join("\n\n")
    }
  }
  const request = userText(last)
  const choice = options.toolChoice
  const tools = choice === "none" ? [] : options.tools
  if (tools.length > 0 && last?.role === "user") {
    const forced = typeof choice === "object" && "tool" in choice
      ? tools.find((t) => t.name === choice.tool)
      : undefined
    const tool = forced ?? toolNamed(tools, request) ?? (choice === "required" ? tools[0] : undefined)
    if (tool !== undefined) {
      const params = firstJsonObject(request)
      const url = urlIn(request)
      // "run ai_seo_audit on https://…" names the page in words: it is the url argument when no JSON is given.
      return {
        _tag: "tool",
        name: tool.name,
        params: url !== undefined && Object.keys(params).length === 0 ? { url } : params
      }
    }
  }
  const brief = parseBrief(system)
  if (brief !== undefined) {
    const draft = writeDraft(brief)
    return { _tag: "text", text: `${draft.title}\n\n${draft.body}` }
  }
  const asks = asksOf(messages)
  const current = asks.at(-1)
  if (current?.followUp !== undefined) {
    const answered = answerFollowUp(request, current.followUp, asks.at(-2)?.ask, messages.slice(0, -1), system, tools)
    if (answered !== undefined) return answered
    // Nothing in the thread to lean on: the message is answered for its own words.
    return answerRequest(askOfText(request), system, tools)
  }
  return answerRequest(current?.ask ?? askOfText(request), system, tools)
}

/** About four characters a token, as the usage figures of a local writer. */
const tokens = (text: string) => Math.ceil(charLength(text) / 4)

const promptTokens = (prompt: Prompt.Prompt) =>
  tokens(prompt.content.map((m) => typeof m.content === "string" ? m.content : JSON.stringify(m.content)).join("\n"))

/** Deltas of a few words each, as a model streams them. */
export const deltas = (text: string): ReadonlyArray<string> =>
  text.match(/\S+\s*|\s+/g)?.reduce<Array<string>>((acc, word, i) => {
    if (i % 3 === 0) acc.push(word)
    else acc[acc.length - 1] += word
    return acc
  }, []) ?? []

const parts = (
  options: LanguageModel.ProviderOptions,
  turn = houseTurn(options)
): Array<Response.StreamPartEncoded> => {
  const inputTokens = promptTokens(options.prompt)
  if (turn._tag === "tool") {
    const id = `call_${stableHash(`${turn.name}:${JSON.stringify(turn.params)}`).toString(36)}`
    return [
      { type: "tool-call", id, name: turn.name, params: turn.params },
      {
        type: "finish",
        reason: "tool-calls",
        usage: { inputTokens: { total: inputTokens }, outputTokens: { total: tokens(JSON.stringify(turn.params)) } }
      }
    ]
  }
  return [
    { type: "text-start", id: "text_0" },
    ...deltas(turn.text).map((delta): Response.StreamPartEncoded => ({ type: "text-delta", id: "text_0", delta })),
    { type: "text-end", id: "text_0" },
    {
      type: "finish",
      reason: "stop",
      usage: { inputTokens: { total: inputTokens }, outputTokens: { total: tokens(turn.text) } }
    }
  ]
}

/** The house provider: local, free, deterministic. */
export const makeHouseModel = LanguageModel.make({
  generateText: (options) =>
    Effect.sync(() => {
      const turn = houseTurn(options)
      const streamed = parts(options, turn)
      const finish = streamed[streamed.length - 1]!
      return turn._tag === "text"
        ? [{ type: "text", text: turn.text } as Response.PartEncoded, finish as Response.PartEncoded]
        : (streamed as Array<Response.PartEncoded>)
    }),
  streamText: (options) => Stream.suspend(() => Stream.fromIterable(parts(options)))
})
