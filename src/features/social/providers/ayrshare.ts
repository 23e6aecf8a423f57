import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../../Config.ts"
import type { ContentId, CustomerId } from "../../../domain/Ids.ts"
import { isSocialPlatform, type SocialPlatform } from "../../../domain/Social.ts"
import { safeFetch } from "../../../platform/OutboundGuard.ts"
import { type ConnectedAccount, type OutgoingPost, ProviderError, publishEach, SocialProvider } from "./Provider.ts"

/** Ayrshare names X `twitter`; the other five match ours. */
const toAyrshare = (platform: SocialPlatform) => (platform === "x" ? "twitter" : platform)
const fromAyrshare = (name: string): SocialPlatform | undefined => {
  const ours = name === "twitter" ? "x" : name
  return isSocialPlatform(ours) ? ours : undefined
}

/** The reference each post carries in Ayrshare's `notes`, found again in the history. */
/** Posts in one publisher batch: sent at once, each bounded by the 20 s request timeout (the lease is 60 s by default). */
const batchSize = 16

export const noteFor = (contentId: ContentId) => `herald:${contentId}`

/** Ayrshare's default history page; larger pages are served from a one-minute cache. */
const historyFreshLimit = 25
/** How long one request may take: a post made by a try exists at the provider by the try's start plus this. */
const requestTimeoutMs = 20_000

/**
 * Whether a long (cached) history page can show every post of a try that began
 * at `triedAt`: its snapshot (`lastUpdated`) must be later than the try could
 * have lasted. Otherwise the seconds until the cache (`cacheSeconds` long,
 * AYRSHARE_HISTORY_CACHE_SECONDS) turns over. A page without `lastUpdated` is
 * taken as cached for the cache's whole length.
 */
export const stalePageWait = (
  lastUpdated: string | undefined,
  triedAt: Date | undefined,
  now: number,
  cacheSeconds: number
): number | undefined => {
  if (triedAt === undefined) return undefined
  const settled = triedAt.getTime() + requestTimeoutMs
  const snapshot = lastUpdated === undefined ? Number.NaN : Date.parse(lastUpdated)
  if (!Number.isNaN(snapshot) && snapshot >= settled) return undefined
  const turnover = Number.isNaN(snapshot)
    ? settled + cacheSeconds * 1000
    : Math.max(snapshot + cacheSeconds * 1000, settled)
  return Math.max(1, Math.ceil((turnover - now) / 1000))
}

interface AyrshareError {
  readonly code?: number
  readonly message?: string
}

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

const firstError = (body: Record<string, unknown>): string => {
  const errors = Array.isArray(body.errors) ? (body.errors as ReadonlyArray<AyrshareError>) : []
  const first = errors[0] ?? (body as AyrshareError)
  return [first.code === undefined ? undefined : `code ${first.code}`, first.message].filter(Boolean).join(": ")
}

/**
 * Ayrshare's REST API (https://www.ayrshare.com/docs): `Authorization: Bearer
 * API_KEY` for the primary profile, `Profile-Key` for a customer's user
 * profile, one user profile per customer (POST /api/profiles), the linking
 * page from POST /api/profiles/generateJWT, posts through /api/post (with
 * `notes` naming our piece, so GET /api/history can find a post whose answer
 * was lost), accounts from GET /api/user, figures from POST /api/analytics/post.
 */
export const AyrshareProviderLive = Layer.effect(
  SocialProvider,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const apiKey = Option.map(config.ayrshareApiKey, Redacted.value)

    const request = (
      method: string,
      path: string,
      options: { readonly body?: unknown; readonly profileKey?: string | undefined } = {}
    ) =>
      Effect.gen(function*() {
        if (Option.isNone(apiKey)) {
          return yield* new ProviderError({
            transient: false,
            cause: "provider_not_configured",
            message: "AYRSHARE_API_KEY is not set"
          })
        }
        const headers: Record<string, string> = { authorization: `Bearer ${apiKey.value}`, accept: "application/json" }
        if (options.body !== undefined) headers["content-type"] = "application/json"
        if (options.profileKey !== undefined) headers["profile-key"] = options.profileKey
        const response = yield* safeFetch(`${config.ayrshareBaseUrl}${path}`, {
          method,
          headers,
          ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
          allowPrivateTargets: config.allowPrivateTargets,
          maxRedirects: 0,
          timeoutMs: requestTimeoutMs
        }).pipe(Effect.mapError((error) =>
          new ProviderError({
            transient: true,
            cause: "provider_unavailable",
            message: `Ayrshare unreachable (${error.reason})`
          })
        ))
        let body: unknown
        try {
          body = JSON.parse(response.body.toString("utf8"))
        } catch {
          body = undefined
        }
        if (response.status === 429 || response.status >= 500) {
          return yield* new ProviderError({
            transient: true,
            cause: "provider_unavailable",
            message: `Ayrshare answered HTTP ${response.status}`
          })
        }
        if (response.status >= 400 || asRecord(body).status === "error") {
          return yield* new ProviderError({
            transient: false,
            cause: "provider_rejected",
            message: `Ayrshare refused (HTTP ${response.status}): ${firstError(asRecord(body)) || "no reason given"}`
          })
        }
        return body
      })

    /** The customer's user profile key, made on first use. */
    const profileKey = (customerId: CustomerId) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ profileKey: string }>`
        SELECT profile_key FROM social_profiles WHERE customer_id = ${customerId} AND provider = 'ayrshare'`.pipe(
          Effect.orDie
        )
        if (rows.length > 0) return rows[0].profileKey
        const created = asRecord(yield* request("POST", "/api/profiles", { body: { title: `herald-${customerId}` } }))
        if (typeof created.profileKey !== "string") {
          return yield* new ProviderError({
            transient: true,
            cause: "provider_unavailable",
            message: "Ayrshare gave no profileKey"
          })
        }
        const kept = yield* sql<{ profileKey: string }>`
        INSERT INTO social_profiles (customer_id, provider, profile_key, ref_id)
        VALUES (${customerId}, 'ayrshare', ${created.profileKey}, ${
          typeof created.refId === "string" ? created.refId : null
        })
        ON CONFLICT (customer_id, provider) DO UPDATE SET provider = EXCLUDED.provider
        RETURNING profile_key`.pipe(Effect.orDie)
        return kept[0].profileKey
      })

    const connectLink = (customerId: CustomerId, _platform: SocialPlatform, callbackUrl: string) =>
      Effect.gen(function*() {
        const key = yield* profileKey(customerId)
        const answer = asRecord(
          yield* request("POST", "/api/profiles/generateJWT", {
            body: {
              domain: config.ayrshareDomain,
              privateKey: Option.match(config.ayrsharePrivateKey, { onNone: () => "", onSome: Redacted.value }),
              profileKey: key,
              redirect: callbackUrl
            }
          })
        )
        if (typeof answer.url !== "string") {
          return yield* new ProviderError({
            transient: true,
            cause: "provider_unavailable",
            message: "Ayrshare gave no linking url"
          })
        }
        return answer.url
      })

    const accounts = (customerId: CustomerId) =>
      Effect.gen(function*() {
        const key = yield* profileKey(customerId)
        const user = asRecord(yield* request("GET", "/api/user", { profileKey: key }))
        const active = Array.isArray(user.activeSocialAccounts)
          ? (user.activeSocialAccounts as ReadonlyArray<unknown>)
          : []
        const names = Array.isArray(user.displayNames)
          ? (user.displayNames as ReadonlyArray<unknown>).map(asRecord)
          : []
        const out: Array<ConnectedAccount> = []
        for (const name of active) {
          if (typeof name !== "string") continue
          const platform = fromAyrshare(name)
          if (platform === undefined) continue
          const display = names.find((n) => n.platform === name)
          const accountName = typeof display?.displayName === "string"
            ? display.displayName
            : typeof display?.username === "string"
            ? display.username
            : null
          out.push({ platform, accountName })
        }
        return out
      })

    const completeConnect = (
      customerId: CustomerId,
      _platform: SocialPlatform,
      _query: Readonly<Record<string, string>>
    ) => accounts(customerId)

    const publish = (post: OutgoingPost) =>
      Effect.gen(function*() {
        const key = yield* profileKey(post.customerId)
        const answer = asRecord(
          yield* request("POST", "/api/post", {
            profileKey: key,
            body: {
              post: post.body,
              platforms: [toAyrshare(post.platform)],
              ...(post.media.length > 0 ? { mediaUrls: post.media } : {}),
              ...(post.scheduleAt === undefined ? {} : { scheduleDate: post.scheduleAt }),
              notes: noteFor(post.contentId)
            }
          })
        )
        const ids = Array.isArray(answer.postIds) ? (answer.postIds as ReadonlyArray<unknown>).map(asRecord) : []
        const mine = ids.find((p) => p.platform === toAyrshare(post.platform)) ?? ids[0]
        if (typeof answer.id !== "string") {
          return yield* new ProviderError({
            transient: false,
            cause: "provider_rejected",
            message: "Ayrshare gave no post id"
          })
        }
        return {
          providerPostId: answer.id,
          url: typeof mine?.postUrl === "string" ? mine.postUrl : `${config.ayrshareBaseUrl}/api/post/${answer.id}`
        }
      })

    const findPost = (customerId: CustomerId, contentId: ContentId, platform: SocialPlatform, triedAt?: Date) =>
      Effect.gen(function*() {
        const key = yield* profileKey(customerId)
        const page = (limit: number) =>
          Effect.map(request("GET", `/api/history?lastDays=0&limit=${limit}`, { profileKey: key }), (answer) => {
            const history = Array.isArray(answer) ? answer : asRecord(answer).history
            const lastUpdated = asRecord(answer).lastUpdated
            return {
              posts: Array.isArray(history) ? (history as ReadonlyArray<unknown>).map(asRecord) : [],
              lastUpdated: typeof lastUpdated === "string" ? lastUpdated : undefined
            }
          })
        // A post that failed at the network was not published: it is not found, so the publisher tries again.
        const isOurs = (p: Record<string, unknown>) =>
          p.notes === noteFor(contentId) && p.status !== "deleted" && p.status !== "error"
        // Ayrshare caches history (for a minute) when `limit` is over 25, so a long page can predate our post:
        // the fresh default page first, the long one only when the fresh page is full, and its "not there"
        // believed only when its snapshot is younger than the earlier try.
        const fresh = yield* page(historyFreshLimit)
        let found = fresh.posts.find(isOurs)
        if (found === undefined && fresh.posts.length >= historyFreshLimit) {
          const long = yield* page(1000)
          found = long.posts.find(isOurs)
          const wait = found === undefined
            ? stalePageWait(long.lastUpdated, triedAt, Date.now(), config.ayrshareHistoryCacheSeconds)
            : undefined
          if (wait !== undefined) {
            return yield* new ProviderError({
              transient: true,
              cause: "history_stale",
              message:
                `Ayrshare's history is cached and older than the last try: asking again in ${wait} s instead of posting twice`,
              retryAfterSeconds: wait
            })
          }
        }
        if (found === undefined || typeof found.id !== "string") return Option.none()
        const ids = Array.isArray(found.postIds) ? (found.postIds as ReadonlyArray<unknown>).map(asRecord) : []
        const mine = ids.find((p) => p.platform === toAyrshare(platform)) ?? ids[0]
        if (mine?.status === "error") return Option.none()
        return Option.some({
          providerPostId: found.id,
          url: typeof mine?.postUrl === "string" ? mine.postUrl : `${config.ayrshareBaseUrl}/api/post/${found.id}`
        })
      })

    const remove = (customerId: CustomerId, providerPostId: string) =>
      Effect.gen(function*() {
        const key = yield* profileKey(customerId)
        yield* request("DELETE", "/api/post", { profileKey: key, body: { id: providerPostId } })
      })

    const numberOf = (record: Record<string, unknown>, names: ReadonlyArray<string>) =>
      names.reduce((sum, name) => sum + (typeof record[name] === "number" ? (record[name] as number) : 0), 0)

    const metrics = (customerId: CustomerId, providerPostId: string, platform: SocialPlatform) =>
      Effect.gen(function*() {
        const key = yield* profileKey(customerId)
        const answer = asRecord(
          yield* request("POST", "/api/analytics/post", {
            profileKey: key,
            body: { id: providerPostId, platforms: [toAyrshare(platform)] }
          })
        )
        const entry = asRecord(answer[toAyrshare(platform)])
        if (!("analytics" in entry)) return Option.none()
        const figures = asRecord(entry.analytics)
        return Option.some({
          impressions: numberOf(figures, ["impressionCount", "impressions", "views", "viewCount"]),
          engagements: numberOf(figures, [
            "likeCount",
            "likes",
            "commentCount",
            "comments",
            "shareCount",
            "shares",
            "retweetCount",
            "replyCount",
            "saved"
          ])
        })
      })

    return SocialProvider.of({
      name: "ayrshare",
      batchSize,
      trySeconds: requestTimeoutMs / 1000,
      connectLink,
      completeConnect,
      accounts,
      publish,
      // Each post is its own request (Ayrshare's bulk call is a different product), a batch's all at once:
      // one wave of requests, each bounded by the provider timeout, ends well within the claim's lease.
      publishMany: publishEach(publish, batchSize),
      findPost,
      remove,
      metrics
    })
  })
)
