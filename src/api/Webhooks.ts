import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict, InvalidCursor, LimitReached, ValidationError } from "../domain/Errors.ts"
import { WebhookIdPath } from "../domain/Ids.ts"
import { PathId } from "../domain/Text.ts"
import {
  CreatedWebhook,
  Delivery,
  DeliveryAttempt,
  recoveryWindowDays,
  Webhook,
  WebhookCreate
} from "../domain/Webhooks.ts"
import { Authentication, RequiredRole } from "./Security.ts"
import {
  CustomerIdParam,
  DateTime,
  EmptyObject,
  intQuery,
  NoStore,
  NotFoundError,
  strictParse,
  StrictPayload
} from "./Shared.ts"

const WebhookParams = { ...CustomerIdParam, webhookId: WebhookIdPath }
const DeliveryParams = { ...WebhookParams, deliveryId: PathId }

const signing =
  "Every delivery is a POST of `{id, type, createdAt, customerId, data}` signed twice: the signature header " +
  "(`X-Service-Signature` by default) carries the hex HMAC-SHA256 of the raw body keyed with the secret string's " +
  "UTF-8 bytes; `webhook-id`, `webhook-timestamp` and `webhook-signature` follow Standard Webhooks (`v1,` + base64 " +
  "HMAC-SHA256 of `id.timestamp.body` keyed with the base64-decoded part after `whsec_`). Delivery is at least once: " +
  "any 2xx within 15 s succeeds; otherwise retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h " +
  "(never sooner than a 429/503 `Retry-After`), with the same `webhook-id`; 410 disables the subscription."

const WebhookRecover = Schema.Struct({
  since: DateTime.annotate({
    description: `ISO 8601 date-time with a zone: events from this instant on (inclusive) are sent again. ` +
      `Not in the future, at most ${recoveryWindowDays} days ago.`
  })
}).annotate({ identifier: "WebhookRecover" })

/** Webhook subscriptions. Every endpoint needs the admin role, reads included: webhook URLs often carry credentials. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/api/hooks/:customerId", {
      params: CustomerIdParam,
      success: Schema.Struct({ hooks: Schema.Array(Webhook) })
    }).annotate(RequiredRole, "admin").annotateMerge(OpenApi.annotations({
      summary: "List webhook subscriptions",
      description: "Admin role: webhook URLs often carry credentials. Secrets are never listed."
    })),
    HttpApiEndpoint.post("create", "/api/hooks/:customerId", {
      params: CustomerIdParam,
      payload: WebhookCreate,
      success: CreatedWebhook,
      error: [LimitReached, ValidationError]
    }).annotate(StrictPayload, strictParse).annotate(NoStore, true).annotateMerge(OpenApi.annotations({
      summary: "Subscribe a URL to events",
      description: "The response carries the signing `secret`, shown only here. The url must be http(s) and reach a " +
        "public address (checked now and at every delivery). At most 25 subscriptions per customer " +
        "(409 E_LIMIT_REACHED). Emits `webhook.created`. " + signing
    })),
    HttpApiEndpoint.delete("remove", "/api/hooks/:customerId/:webhookId", {
      params: WebhookParams,
      success: Schema.Struct({ deleted: Schema.Boolean }),
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Delete a webhook subscription",
      description: "Pending deliveries are cancelled. Emits `webhook.deleted`."
    })),
    HttpApiEndpoint.post("rotateSecret", "/api/hooks/:customerId/:webhookId/rotate-secret", {
      params: WebhookParams,
      payload: EmptyObject,
      success: Schema.Struct({ secret: Schema.String }),
      error: NotFoundError
    }).annotate(NoStore, true).annotateMerge(OpenApi.annotations({
      summary: "Rotate the signing secret",
      description: "Returns the new secret once. For 24 hours the old secret also signs, as a second " +
        "`webhook-signature` entry, so receivers can switch without missing a delivery."
    })),
    HttpApiEndpoint.get("deliveries", "/api/hooks/:customerId/:webhookId/deliveries", {
      params: WebhookParams,
      query: {
        limit: Schema.optional(intQuery(1, 100, 50)),
        cursor: Schema.optional(Schema.String.check(Schema.isMaxLength(1000)))
      },
      success: Schema.Struct({ deliveries: Schema.Array(DeliveryAttempt), nextCursor: Schema.NullOr(Schema.String) }),
      error: [NotFoundError, InvalidCursor]
    }).annotate(RequiredRole, "admin").annotateMerge(OpenApi.annotations({
      summary: "List delivery attempts",
      description: "Newest first, `limit` 1-100 (default 50); pass `nextCursor` as `cursor` for the next page (null " +
        "on the last). `eventId` is the delivered body's `id` and `webhook-id`; `statusCode` is null when no response " +
        "came (timeout, refused address, network error). `deliveryId`, `deliveryStatus` and `nextAttemptAt` describe " +
        "the delivery the attempt belongs to: `nextAttemptAt` says when it is tried next (null once it has ended)."
    })),
    HttpApiEndpoint.post("enable", "/api/hooks/:customerId/:webhookId/enable", {
      params: WebhookParams,
      payload: EmptyObject,
      success: Webhook,
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Re-enable a disabled subscription",
      description: "Clears `disabledAt` after a 410 Gone or a delivery that spent its retries; later events are " +
        "delivered again. Events that came while it was disabled stay `skipped`: `recover` enables it and sends " +
        "them. Enabling an enabled " +
        "subscription changes nothing. Writes `webhook.enabled` to the event log."
    })),
    HttpApiEndpoint.post("test", "/api/hooks/:customerId/:webhookId/test", {
      params: WebhookParams,
      payload: EmptyObject,
      success: Delivery,
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Send a test event",
      description: "Sends a signed `webhook.test` event (`data: {webhookId, message}`) to this subscription only, " +
        "at once (within the dispatcher's poll interval), even when it is disabled; it is retried like any delivery. " +
        "Answers the delivery; its attempts appear under `deliveries`."
    })),
    HttpApiEndpoint.post("recover", "/api/hooks/:customerId/:webhookId/recover", {
      params: WebhookParams,
      payload: WebhookRecover,
      success: Schema.Struct({
        queued: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Deliveries queued again" })
      }),
      error: [NotFoundError, ValidationError]
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Recover a disabled subscription",
      description: "Re-enables the subscription and queues, oldest first, every event since `since` that it has not " +
        "delivered: those that came while it was disabled (deliveries `skipped`), those cancelled when it was " +
        "disabled, and those that spent their retries. Each is sent once more, with its first `webhook-id` and " +
        "a fresh retry schedule; delivered events are not sent again. Answers `{queued}`. `since` in the future " +
        `or more than ${recoveryWindowDays} days ago is 400 E_VALIDATION. Writes \`webhook.recovered\` (and ` +
        "`webhook.enabled` when it was disabled) to the event log. Works on an enabled subscription too."
    })),
    HttpApiEndpoint.post("redeliver", "/api/hooks/:customerId/:webhookId/deliveries/:deliveryId/redeliver", {
      params: DeliveryParams,
      payload: EmptyObject,
      success: Delivery,
      error: [NotFoundError, Conflict]
    }).annotateMerge(OpenApi.annotations({
      summary: "Deliver an event again",
      description: "Sends the delivery's event again at once, with the same body and `webhook-id`, and a fresh retry " +
        "schedule; works on succeeded, failed, cancelled and waiting deliveries. An attempt in flight, or a disabled " +
        "subscription, is 409 `E_CONFLICT` (enable it first)."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Webhooks", description: "Signed event deliveries to your endpoints" }))
{}
