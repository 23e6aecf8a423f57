/**
 * Every `type` the event log can hold (the events each capability
 * records). The OpenAPI document shows `Event.type` as this
 * enum; test/openapi-clients.test.ts fails when the code records a type that
 * is missing here, so a capability adding an event adds its type here.
 */
export const eventTypes = [
  "customer.status_changed",
  "key.rotated",
  "content.created",
  "content.updated",
  "content.submitted",
  "content.approved",
  "content.rejected",
  "content.scheduled",
  "content.published",
  "content.deleted",
  "workflow.started",
  "workflow.suspended",
  "workflow.resumed",
  "workflow.completed",
  "workflow.failed",
  "workflow.updated",
  "settings.autonomy_updated",
  "settings.budget_updated",
  "webhook.created",
  "webhook.deleted",
  "webhook.disabled",
  "webhook.enabled",
  "webhook.recovered",
  "webhook.secret_rotated",
  "webhook.test",
  "team.invited",
  "team.removed",
  "scan.completed",
  "onboarding.started",
  "onboarding.completed",
  "platform.connected",
  "platform.disconnected",
  "publish.failed",
  "revenue.tracked"
] as const

export type EventType = typeof eventTypes[number]
