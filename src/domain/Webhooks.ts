import { Schema } from "effect"
import { WebhookId } from "./Ids.ts"
import { HttpUrl } from "./Text.ts"
import { WebhookEventType } from "./WebhookEvents.ts"

/** At most this many live (not deleted) subscriptions per customer. */
export const maxWebhooksPerCustomer = 25

/** An absolute http(s) URL of at most 2048 characters. */
export const WebhookUrl = HttpUrl

export const WebhookCreate = Schema.Struct({
  url: WebhookUrl,
  // 1 to 20 items; a kind named twice is kept once.
  events: Schema.Array(WebhookEventType).check(Schema.isMinLength(1), Schema.isMaxLength(20))
    .annotate({ description: "1 to 20 event kinds; repeats are kept once" })
}).annotate({ identifier: "WebhookCreate" })
export type WebhookCreate = typeof WebhookCreate.Type

export const WebhookDisabledReason = Schema.Literals(["gone", "failing"])
export type WebhookDisabledReason = typeof WebhookDisabledReason.Type

export const Webhook = Schema.Struct({
  id: WebhookId,
  url: Schema.String.annotate({ format: "uri" }),
  events: Schema.Array(Schema.String),
  createdAt: Schema.String.annotate({ format: "date-time" }),
  disabledAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" })).annotate({
    description: "Set when the endpoint answered 410 Gone or a delivery spent all its retries; a disabled " +
      "subscription receives nothing (its events are kept as `skipped` deliveries for `recover`) until it is enabled again"
  }),
  disabledReason: Schema.NullOr(WebhookDisabledReason).annotate({
    description: "`gone`: the endpoint answered 410; `failing`: a delivery failed after its last retry"
  })
}).annotate({ identifier: "Webhook" })
export type Webhook = typeof Webhook.Type

export const CreatedWebhook = Schema.Struct({
  ...Webhook.fields,
  secret: Schema.String.annotate({ description: "Signing secret (`whsec_` + base64), shown only here" })
}).annotate({ identifier: "CreatedWebhook" })

/** `skipped`: the event came while the subscription was disabled; a recovery can still send it. */
export const DeliveryStatus = Schema.Literals(["pending", "succeeded", "failed", "cancelled", "skipped"])

const nullableDateTime = Schema.NullOr(Schema.String.annotate({ format: "date-time" }))

export const DeliveryAttempt = Schema.Struct({
  id: Schema.String,
  deliveryId: Schema.String.annotate({ description: "The delivery this attempt belongs to (for `redeliver`)" }),
  deliveryStatus: DeliveryStatus,
  nextAttemptAt: nullableDateTime.annotate({
    description: "When the delivery is tried next; null once it succeeded, failed, was cancelled or skipped"
  }),
  eventId: Schema.String,
  eventType: Schema.String,
  attempt: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  statusCode: Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 999 }))),
  durationMs: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  error: Schema.NullOr(Schema.String),
  attemptedAt: Schema.String.annotate({ format: "date-time" })
}).annotate({ identifier: "DeliveryAttempt" })
export type DeliveryAttempt = typeof DeliveryAttempt.Type

/** One event on its way to one subscription: its attempts are listed under `deliveries`. */
export const Delivery = Schema.Struct({
  id: Schema.String,
  webhookId: WebhookId,
  eventId: Schema.String,
  eventType: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  nextAttemptAt: nullableDateTime
}).annotate({ identifier: "WebhookDelivery" })
export type Delivery = typeof Delivery.Type

/**
 * A URL as the event log shows it: no user name, password, query or
 * fragment, since those often carry credentials.
 */
export const redactedUrl = (value: string): string => {
  if (!URL.canParse(value)) return ""
  const url = new URL(value)
  url.username = ""
  url.password = ""
  url.search = ""
  url.hash = ""
  return url.href
}

export type Outcome = "succeeded" | "gone" | "retry"

/** 2xx succeeds, 410 disables the endpoint, anything else (3xx included) is retried. */
export const classifyStatus = (status: number): Outcome =>
  status >= 200 && status < 300 ? "succeeded" : status === 410 ? "gone" : "retry"

const maxRetryAfterSeconds = 86_400

/** `Retry-After` as delay-seconds or an HTTP-date, in seconds from `nowMs`; capped at a day. */
export const parseRetryAfter = (header: string | null | undefined, nowMs: number): number | undefined => {
  if (header === null || header === undefined) return undefined
  const text = header.trim()
  const seconds = /^\d+$/.test(text) ? Number(text) : (Date.parse(text) - nowMs) / 1000
  return Number.isFinite(seconds) ? Math.min(Math.max(Math.ceil(seconds), 0), maxRetryAfterSeconds) : undefined
}

/**
 * Seconds until the attempt after failed attempt number `attempt` (1-based),
 * or undefined when the schedule is spent. A `Retry-After` (honoured on 429
 * and 503) pushes it later, never sooner than the schedule says.
 */
export const retryDelaySeconds = (
  attempt: number,
  schedule: ReadonlyArray<number>,
  retryAfterSeconds?: number
): number | undefined => {
  const scheduled = schedule[attempt - 1]
  if (scheduled === undefined) return undefined
  return Math.max(scheduled, retryAfterSeconds ?? 0)
}

/** How far back a recovery reaches: events older than this are not sent again. */
export const recoveryWindowDays = 14

/**
 * Why `since` cannot start a recovery at `now`, or undefined when it can: it
 * must not be in the future, nor further back than the recovery window.
 */
export const recoverySinceProblem = (since: Date, now: Date): string | undefined =>
  since.getTime() > now.getTime()
    ? "must not be in the future"
    : now.getTime() - since.getTime() > recoveryWindowDays * 86_400_000
    ? `must be within the last ${recoveryWindowDays} days`
    : undefined
