import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { LimitReached, ValidationError } from "../domain/Errors.ts"
import { CreatedWebhook, DeliveryAttempt, Webhook, WebhookCreate } from "../domain/Webhooks.ts"
import { Authentication } from "./Security.ts"
import { CustomerIdParam, EmptyObject, intQuery, NotFoundError, StrictPayload, strictParse } from "./Shared.ts"
import { PathId } from "../domain/Text.ts"

const WebhookParams = { ...CustomerIdParam, webhookId: PathId }

const signing =
  "Every delivery is a POST of `{id, type, createdAt, customerId, data}` signed twice: the signature header " +
  "(`X-Service-Signature` by default) carries the hex HMAC-SHA256 of the raw body keyed with the secret string's " +
  "UTF-8 bytes; `webhook-id`, `webhook-timestamp` and `webhook-signature` follow Standard Webhooks (`v1,` + base64 " +
  "HMAC-SHA256 of `id.timestamp.body` keyed with the base64-decoded part after `whsec_`). Delivery is at least once: " +
  "any 2xx within 15 s succeeds; otherwise retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h " +
  "(never sooner than a 429/503 `Retry-After`), with the same `webhook-id`; 410 disables the subscription."

/** Webhook subscriptions. Every endpoint needs the admin role. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/api/hooks/:customerId", {
      params: CustomerIdParam,
      success: Schema.Struct({ hooks: Schema.Array(Webhook) })
    }).annotateMerge(OpenApi.annotations({ summary: "List webhook subscriptions" })),
    HttpApiEndpoint.post("create", "/api/hooks/:customerId", {
      params: CustomerIdParam,
      payload: WebhookCreate,
      success: CreatedWebhook,
      error: [LimitReached, ValidationError]
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
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
    }).annotateMerge(OpenApi.annotations({
      summary: "Rotate the signing secret",
      description: "Returns the new secret once. For 24 hours the old secret also signs, as a second " +
        "`webhook-signature` entry, so receivers can switch without missing a delivery."
    })),
    HttpApiEndpoint.get("deliveries", "/api/hooks/:customerId/:webhookId/deliveries", {
      params: WebhookParams,
      query: { limit: Schema.optional(intQuery(1, 100, 50)) },
      success: Schema.Struct({ deliveries: Schema.Array(DeliveryAttempt) }),
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "List delivery attempts",
      description: "Newest first, `limit` 1-100 (default 50). `eventId` is the delivered body's `id` and " +
        "`webhook-id`; `statusCode` is null when no response came (timeout, refused address, network error)."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Webhooks", description: "Signed event deliveries to your endpoints" }))
{}
