import { Schema } from "effect"
import { ContentPiece } from "./Content.ts"
import { TeamMember } from "./Identity.ts"
import type { WebhookEventType } from "./WebhookEvents.ts"

/**
 * The resource each delivered event carries as `data` (a ContentPiece, a
 * WorkflowRun, a team member). A kind without an entry is
 * documented as a free-form object; a capability emitting a new kind adds its
 * resource here so the OpenAPI `webhooks` section shows it.
 */
export const webhookPayloadData: Partial<Record<WebhookEventType, Schema.Top>> = {
  "content.created": ContentPiece,
  "content.approved": ContentPiece,
  "content.rejected": ContentPiece,
  "content.published": ContentPiece,
  "team.invited": TeamMember
}

/** What each kind means, for the documentation. */
export const webhookEventMeaning: Partial<Record<WebhookEventType, string>> = {
  "content.created": "A content piece was created (by a person, an agent or a workflow).",
  "content.approved": "A content piece was approved.",
  "content.rejected": "A content piece was rejected.",
  "content.published": "A content piece was published.",
  "workflow.completed": "A workflow run completed; `data` is the run.",
  "team.invited": "A team member was invited; `data` is the member (never its key)."
}

/** `webhook.test`: sent only on request, to one subscription, so a receiver can check its signature verification. */
export const webhookTestType = "webhook.test"
export const WebhookTestData = Schema.Struct({
  webhookId: Schema.String.annotate({ description: "The subscription the test was sent to" }),
  message: Schema.String
}).annotate({ identifier: "WebhookTestData" })
export const webhookTestMeaning =
  "A test event, sent only by `POST /api/hooks/{customerId}/{webhookId}/test` and only to that subscription, " +
  "whatever kinds it asked for: check a receiver's signature verification with it."
