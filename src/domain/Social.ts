import { Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import type { CustomerId } from "./Ids.ts"
import { charLength, isMaxChars, storableText } from "./Text.ts"

/** The six social platforms. */
export const socialPlatforms = ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"] as const
export const SocialPlatform = Schema.Literals(socialPlatforms)
export type SocialPlatform = typeof SocialPlatform.Type

/** How each platform's name is written for people. */
export const platformNames: Readonly<Record<string, string>> = {
  x: "X",
  linkedin: "LinkedIn",
  instagram: "Instagram",
  facebook: "Facebook",
  tiktok: "TikTok",
  pinterest: "Pinterest"
}

export const isSocialPlatform = (name: string | null | undefined): name is SocialPlatform =>
  name != null && (socialPlatforms as ReadonlyArray<string>).includes(name)

/** Per-platform rules: body length in characters and whether media is required. */
export const platformRules: Readonly<
  Record<SocialPlatform, { readonly maxLength: number; readonly mediaRequired: boolean }>
> = {
  x: { maxLength: 280, mediaRequired: false },
  linkedin: { maxLength: 3000, mediaRequired: false },
  instagram: { maxLength: 2200, mediaRequired: true },
  facebook: { maxLength: 63206, mediaRequired: false },
  tiktok: { maxLength: 2200, mediaRequired: true },
  pinterest: { maxLength: 500, mediaRequired: true }
}

export interface PublishViolation {
  readonly path: "body" | "media"
  readonly message: string
}

/** The first rule a post breaks on its platform, else undefined. */
export const publishViolation = (
  platform: SocialPlatform,
  body: string,
  media: ReadonlyArray<string> | undefined
): PublishViolation | undefined => {
  const rule = platformRules[platform]
  if (charLength(body) > rule.maxLength) {
    return { path: "body", message: `must be at most ${rule.maxLength} characters for ${platform}` }
  }
  if (rule.mediaRequired && (media === undefined || media.length === 0)) {
    return { path: "media", message: `${platform} posts need at least one media item` }
  }
  return undefined
}

/** A piece's media: the addresses in `metadata.media` (anything else in the list is not a medium). */
export const mediaOf = (metadata: unknown): ReadonlyArray<string> => {
  const listed = typeof metadata === "object" && metadata !== null
    ? (metadata as { readonly media?: unknown }).media
    : undefined
  return Array.isArray(listed) ? listed.filter((m): m is string => typeof m === "string") : []
}

/**
 * The one check every publishing path makes (a new post, an approved piece,
 * a retry, a workflow's hand-off, the publisher before it sends): the first
 * rule a stored piece breaks on `platform`, else undefined.
 */
export const pieceViolation = (
  platform: SocialPlatform,
  piece: { readonly body: string | null; readonly metadata: unknown }
): PublishViolation | undefined => publishViolation(platform, piece.body ?? "", mediaOf(piece.metadata))

/** The violation as people read it, with the field it names (`body.media`, as a request's own check says). */
export const violationText = (violation: PublishViolation) => ({
  path: `body.${violation.path}`,
  error: `Invalid body.${violation.path}: ${violation.message}`,
  message: violation.message
})

const isHttpUri = (text: string) => {
  if (!/^https?:\/\//i.test(text)) return false
  try {
    new URL(text)
    return true
  } catch {
    return false
  }
}

export const MediaUri = Schema.String.check(
  isMaxChars(2048),
  storableText,
  Schema.makeFilter((text: string) => isHttpUri(text) || "must be an http(s) URI", {
    toJsonSchema: () => ({ format: "uri" })
  })
)

export const withinPlatformRules = Schema.makeFilter(
  (
    input: {
      readonly platform: SocialPlatform
      readonly body: string
      readonly media?: ReadonlyArray<string> | undefined
    }
  ) => {
    const violation = publishViolation(input.platform, input.body, input.media)
    return violation === undefined ? undefined : { path: [violation.path], issue: violation.message }
  }
)

export const SocialConnection = Schema.Struct({
  connected: Schema.Boolean,
  accountName: Schema.NullOr(Schema.String),
  connectedAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
}).annotate({ identifier: "SocialConnection" })
export type SocialConnection = typeof SocialConnection.Type

const perPlatform = <S extends Schema.Top>(value: S) =>
  Schema.Struct(Object.fromEntries(socialPlatforms.map((p) => [p, value])) as Record<SocialPlatform, S>)

export const Connections = perPlatform(SocialConnection).annotate({ identifier: "SocialConnections" })

export const ConnectRequest = Schema.Struct({
  platforms: Schema.optionalKey(Schema.Array(SocialPlatform).check(Schema.isMaxLength(6)))
}).annotate({ identifier: "ConnectRequest" })

export const ConnectLinks = Schema.Struct({
  connectLinks: Schema.Record(Schema.String, Schema.String.annotate({ format: "uri" }))
}).annotate({ identifier: "ConnectLinks" })

export const PublishAttempt = Schema.Struct({
  id: Schema.String,
  attempt: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  provider: Schema.String,
  status: Schema.Literals(["sent", "failed", "reconciled"]),
  providerPostId: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  attemptedAt: Schema.String.annotate({ format: "date-time" })
}).annotate({ identifier: "PublishAttempt" })
export type PublishAttempt = typeof PublishAttempt.Type

export const AnalyticsPeriod = Schema.Literals(["last_7_days", "last_30_days", "last_90_days"])
export type AnalyticsPeriod = typeof AnalyticsPeriod.Type
export const periodDays: Readonly<Record<AnalyticsPeriod, number>> = {
  last_7_days: 7,
  last_30_days: 30,
  last_90_days: 90
}

export const analyticsChannels = [...socialPlatforms, "web", "email"] as const
export const metricNames = ["posts", "clicks", "impressions", "engagements", "revenue"] as const

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const ChannelMetrics = Schema.Struct({
  posts: Count,
  clicks: Count,
  impressions: Count,
  engagements: Count,
  revenue: Schema.Finite.annotate({
    description: "Sum of tracked revenue amounts (mixed currencies are summed as recorded)"
  })
}).annotate({ identifier: "ChannelMetrics" })
export type ChannelMetrics = typeof ChannelMetrics.Type

export const AnalyticsReport = Schema.Struct({
  period: AnalyticsPeriod,
  channels: Schema.Struct(
    Object.fromEntries(analyticsChannels.map((c) => [c, ChannelMetrics])) as Record<
      typeof analyticsChannels[number],
      typeof ChannelMetrics
    >
  ),
  totals: ChannelMetrics
}).annotate({ identifier: "AnalyticsReport" })
export type AnalyticsReport = typeof AnalyticsReport.Type

export const zeroMetrics: ChannelMetrics = { posts: 0, clicks: 0, impressions: 0, engagements: 0, revenue: 0 }

// ---------------------------------------------------------------- retries

// ---------------------------------------------------------------- connect state

export interface StatePayload {
  /** Nonce: the single-use row. */
  readonly n: string
  /** Customer id. */
  readonly c: CustomerId
  /** Platform. */
  readonly p: string
  /** Expiry, epoch seconds. */
  readonly e: number
}

const mac = (secret: string, text: string) =>
  createHmac("sha256", secret).update(`connect-state.${text}`).digest("base64url")

/** `base64url(JSON payload).base64url(HMAC)`. */
export const signState = (secret: string, payload: StatePayload): string => {
  const text = Buffer.from(JSON.stringify(payload)).toString("base64url")
  return `${text}.${mac(secret, text)}`
}

/** The payload of an authentic, unexpired state, else undefined. */
export const verifyState = (secret: string, state: string, nowSeconds: number): StatePayload | undefined => {
  const dot = state.indexOf(".")
  if (dot <= 0 || state.length > 2000) return undefined
  const text = state.slice(0, dot)
  const given = Buffer.from(state.slice(dot + 1))
  const wanted = Buffer.from(mac(secret, text))
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return undefined
  try {
    const payload = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as StatePayload
    if (typeof payload.n !== "string" || typeof payload.c !== "string" || typeof payload.p !== "string") {
      return undefined
    }
    if (typeof payload.e !== "number" || payload.e <= nowSeconds) return undefined
    return payload
  } catch {
    return undefined
  }
}

/** The CSRF token of a consent form: bound to the state and the browser's cookie. */
export const consentToken = (secret: string, state: string, cookie: string) =>
  createHmac("sha256", secret).update(`consent.${cookie}.${state}`).digest("base64url")

// ---------------------------------------------------------------- tracked links

const linkPattern = /\bhttps?:\/\/[^\s<>"'`]+/gi
/** Punctuation that ends a sentence rather than a URL. */
const trailing = /(?<![.,;:!?)\]}])[.,;:!?)\]}]+$/

/** The `utm_` parameters a tracked target carries (existing ones are kept). */
export const withUtm = (target: string, platform: string): string => {
  const url = new URL(target)
  const add: ReadonlyArray<readonly [string, string]> = [
    ["utm_source", platform],
    ["utm_medium", "social"],
    ["utm_campaign", "herald"]
  ]
  for (const [name, value] of add) if (!url.searchParams.has(name)) url.searchParams.set(name, value)
  return url.toString()
}

export interface LinkRewrite {
  readonly body: string
  /** Each original link with its UTM-tagged target, in order of appearance. */
  readonly targets: ReadonlyArray<{ readonly original: string; readonly target: string }>
}

/**
 * Replaces each http(s) link of `body` with the tracked address `codeFor`
 * gives its UTM-tagged target. Links already under `trackedPrefix` (this
 * service's `/r/`) are left alone, so rewriting twice changes nothing.
 */
export const rewriteLinks = (
  body: string,
  platform: string,
  trackedPrefix: string,
  codeFor: (target: string) => string
): string =>
  body.replace(linkPattern, (match) => {
    const tail = trailing.exec(match)?.[0] ?? ""
    const link = tail.length > 0 ? match.slice(0, -tail.length) : match
    if (link.toLowerCase().startsWith(trackedPrefix.toLowerCase())) return match
    let target: string
    try {
      target = withUtm(link, platform)
    } catch {
      return match
    }
    return `${trackedPrefix}${codeFor(target)}${tail}`
  })

/** The distinct links `rewriteLinks` would replace, with their tagged targets. */
export const linksToTrack = (body: string, platform: string, trackedPrefix: string): ReadonlyArray<string> => {
  const out = new Set<string>()
  rewriteLinks(body, platform, trackedPrefix, (target) => {
    out.add(target)
    return ""
  })
  return [...out]
}

const botPattern =
  /bot\b|bot\/|crawler|spider|slurp|facebookexternalhit|facebot|embedly|preview|headless|curl\/|wget\/|python-requests|httpclient|go-http-client|okhttp|node-fetch|axios\/|scrapy|bingpreview|whatsapp|telegrambot|discordbot|slackbot|linkedinbot|twitterbot|pinterest|applebot|yandex|baiduspider|duckduckbot|semrush|ahrefs|mj12bot|petalbot/i

/** Known bots and link-preview fetchers, by user agent (an empty one counts as a bot). */
export const isBotUserAgent = (userAgent: string | undefined): boolean =>
  userAgent === undefined || userAgent.trim().length === 0 || botPattern.test(userAgent)
