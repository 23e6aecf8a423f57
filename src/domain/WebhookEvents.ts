import { Schema } from "effect"

/** The event kinds a webhook subscription may ask for. */
export const webhookEventTypes = [
  "content.created",
  "content.approved",
  "content.published",
  "content.rejected",
  "workflow.completed",
  "team.invited"
] as const

export const WebhookEventType = Schema.Literals(webhookEventTypes)
export type WebhookEventType = typeof WebhookEventType.Type

const kinds: ReadonlySet<string> = new Set(webhookEventTypes)

/** True for the event kinds a subscription may ask for. */
export const isWebhookEventType = (type: string): type is WebhookEventType => kinds.has(type)
