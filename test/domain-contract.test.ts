import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import {
  allowedMoves,
  bodyLimitViolation,
  ContentPiece,
  describeForbiddenMove,
  platformBodyLimits,
  transition
} from "../src/domain/Content.ts"
import * as Errors from "../src/domain/Errors.ts"
import { Health, HealthReady, NotReady, PublicStatus } from "../src/domain/Health.ts"
import { TeamMember } from "../src/domain/Identity.ts"
import { webhookEventTypes } from "../src/domain/WebhookEvents.ts"
import { webhookEventMeaning, webhookPayloadData } from "../src/domain/WebhookPayloads.ts"

/** The error table of docs/api-rules.md: class → status, code, and the text where the table gives one. */
const expected: Record<string, readonly [number, string, string?]> = {
  ValidationError: [400, "E_VALIDATION"],
  MalformedJson: [400, "E_MALFORMED_JSON"],
  InvalidCursor: [400, "E_INVALID_CURSOR"],
  AuthRequired: [401, "E_AUTH_REQUIRED", "Authorization header required"],
  InvalidApiKey: [401, "E_INVALID_API_KEY", "Invalid API key"],
  AccountInactive: [401, "E_ACCOUNT_INACTIVE", "Customer account is not active"],
  AdminAuthRequired: [401, "E_ADMIN_AUTH"],
  Forbidden: [403, "E_FORBIDDEN"],
  NotFound: [404, "E_NOT_FOUND"],
  InvalidTransition: [409, "E_INVALID_TRANSITION"],
  Conflict: [409, "E_CONFLICT"],
  LimitReached: [409, "E_LIMIT_REACHED"],
  RateLimited: [429, "E_RATE_LIMITED", "Rate limit exceeded"],
  Unavailable: [503, "E_UNAVAILABLE"],
  BudgetExceeded: [403, "E_BUDGET_EXCEEDED"],
  PlatformNotConnected: [403, "E_PLATFORM_NOT_CONNECTED"],
  InvalidState: [400, "E_INVALID_STATE"],
  FetchFailed: [422, "E_FETCH_FAILED"],
  KeyAlreadyRetrieved: [410, "E_KEY_ALREADY_RETRIEVED"],
  CheckoutIncomplete: [409, "E_CHECKOUT_INCOMPLETE"],
  SignatureInvalid: [401, "E_SIGNATURE_INVALID"],
  PaymentSignatureInvalid: [400, "E_SIGNATURE_INVALID"],
  SessionNotFound: [400, "E_SESSION_NOT_FOUND", "Session not found — reconnect to /mcp/sse"],
  McpTokenRequired: [401, "E_MCP_TOKEN_REQUIRED", "MCP token required. Include ?token=<API_KEY>"]
}

describe("error classes", () => {
  it("carry the contract's status, code and text, and a readable default message", () => {
    for (const [name, [status, code, text]] of Object.entries(expected)) {
      const Class = (Errors as Record<string, unknown>)[name] as new(
        fields: object
      ) => { code: string; error: string; _tag: string }
      assert.isDefined(Class, name)
      const error = new Class({})
      assert.strictEqual(error.code, code, name)
      assert.strictEqual(error._tag, name)
      if (text !== undefined) assert.strictEqual(error.error, text, name)
      assert.match(error.error, /^[A-Z][^\n]{3,}$/, `${name}: ${error.error}`)
      const annotations = (Class as unknown as { ast: { annotations?: Record<string, unknown> } }).ast?.annotations
      assert.strictEqual(annotations?.httpApiStatus, status, name)
    }
    for (const [status, [code, text]] of Object.entries(Errors.statusCodes)) {
      assert.match(code, /^E_[A-Z_]+$/, status)
      assert.isAbove(text.length, 3)
    }
    assert.deepStrictEqual(Errors.statusCodes[429], ["E_RATE_LIMITED", "Rate limit exceeded"])
    assert.deepStrictEqual(Errors.statusCodes[405][0], "E_METHOD_NOT_ALLOWED")
    assert.deepStrictEqual(Errors.statusCodes[413][0], "E_PAYLOAD_TOO_LARGE")
    assert.deepStrictEqual(Errors.statusCodes[415][0], "E_UNSUPPORTED_MEDIA_TYPE")
    assert.deepStrictEqual(Errors.statusCodes[500][0], "E_INTERNAL")
    const withText = new Errors.Forbidden({ error: "This action needs the admin role" })
    assert.strictEqual(withText.error, "This action needs the admin role")
    assert.strictEqual(
      new Errors.ValidationError({ details: [{ path: "body.a", message: "is required" }] }).details?.[0].path,
      "body.a"
    )
  })
})

describe("content state machine", () => {
  it("allows exactly the contract's moves", () => {
    const ok = (from: any, action: any) =>
      Result.isSuccess(transition(from, action)) ? (transition(from, action) as any).success : "refused"
    assert.strictEqual(ok("draft", "approve"), "approved")
    assert.strictEqual(ok("draft", "reject"), "rejected")
    assert.strictEqual(ok("draft", "edit"), "draft")
    assert.strictEqual(ok("draft", "publish"), "refused")
    assert.strictEqual(ok("pending_approval", "approve"), "approved")
    assert.strictEqual(ok("pending_approval", "reject"), "rejected")
    assert.strictEqual(ok("pending_approval", "edit"), "pending_approval")
    assert.strictEqual(ok("rejected", "edit"), "draft")
    assert.strictEqual(ok("rejected", "approve"), "refused")
    assert.strictEqual(ok("approved", "publish"), "published")
    assert.strictEqual(ok("approved", "edit"), "refused")
    assert.strictEqual(ok("approved", "reject"), "refused")
    assert.strictEqual(ok("published", "publish"), "refused")
    assert.strictEqual(ok("published", "edit"), "refused")
    assert.deepStrictEqual(allowedMoves.published, [])
    const refused = transition("approved", "reject")
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) {
      assert.deepStrictEqual(refused.failure, { from: "approved", to: "rejected", action: "reject" })
      assert.strictEqual(
        describeForbiddenMove(refused.failure),
        "Cannot reject content: the move from approved to rejected is not allowed"
      )
    }
  })

  it("platform body limits", () => {
    assert.deepStrictEqual(platformBodyLimits, {
      x: 280,
      linkedin: 3000,
      instagram: 2200,
      facebook: 63206,
      tiktok: 2200,
      pinterest: 500
    })
    for (const [platform, limit] of Object.entries(platformBodyLimits)) {
      assert.isUndefined(bodyLimitViolation(platform, "a".repeat(limit)), platform)
      assert.strictEqual(
        bodyLimitViolation(platform, "a".repeat(limit + 1)),
        `must be at most ${limit} characters for ${platform}`
      )
    }
    assert.isUndefined(bodyLimitViolation("newsletter", "a".repeat(100_000)))
    assert.isUndefined(bodyLimitViolation(null, "a".repeat(1000)))
    assert.isUndefined(bodyLimitViolation("x", null))
    assert.isUndefined(bodyLimitViolation("x", "😀".repeat(280)), "characters, not UTF-16 units")
  })
})

describe("health bodies", () => {
  const accepts = (schema: Schema.Top, value: unknown) =>
    Schema.decodeUnknownResult(schema as any)(value)._tag === "Success"
  it("take the documented shapes only", () => {
    const now = "2026-11-23T12:00:00.000Z"
    assert.isTrue(accepts(Health, { service: "herald", status: "ok", timestamp: now }))
    assert.isFalse(accepts(Health, { service: "other", status: "ok", timestamp: now }))
    assert.isFalse(accepts(Health, { service: "herald", status: "degraded", timestamp: now }))
    assert.isTrue(
      accepts(HealthReady, {
        service: "herald",
        status: "degraded",
        timestamp: now,
        components: [{ name: "database", status: "down", latencyMs: null }]
      })
    )
    assert.isFalse(accepts(HealthReady, { service: "herald", status: "down", timestamp: now }))
    assert.isFalse(
      accepts(HealthReady, {
        service: "herald",
        status: "ok",
        timestamp: now,
        components: [{ name: "db", status: "ok", latencyMs: -1 }]
      })
    )
    assert.isFalse(
      accepts(HealthReady, {
        service: "herald",
        status: "ok",
        timestamp: now,
        components: [{ name: "db", status: "fine", latencyMs: 1 }]
      })
    )
    const status = {
      status: "ok",
      timestamp: now,
      uptime24h: 1,
      uptime7d: null,
      incidents: [],
      components: [{ name: "api", status: "ok" }]
    }
    assert.isTrue(accepts(PublicStatus, status))
    assert.isFalse(accepts(PublicStatus, { ...status, uptime24h: 1.5 }))
    assert.isFalse(accepts(PublicStatus, { ...status, uptime24h: -0.1 }))
    assert.isTrue(
      accepts(PublicStatus, {
        ...status,
        incidents: [{ id: "i", component: "database", startedAt: now, resolvedAt: null, summary: "down" }]
      })
    )
    assert.isTrue(
      accepts(HealthReady, {
        service: "herald",
        status: "ok",
        timestamp: now,
        components: [{ name: "redis", status: "degraded", latencyMs: 3, error: "slow" }]
      })
    )
    // Their documentation: named components, described, with date-time timestamps.
    for (
      const [schema, name] of [[Health, "Health"], [HealthReady, "HealthReady"], [
        PublicStatus,
        "PublicStatus"
      ]] as const
    ) {
      const document = Schema.toJsonSchemaDocument(schema)
      const definition: any = document.definitions[name]
      assert.isDefined(definition, name)
      assert.isAbove(String(definition.description ?? "").length, 10, name)
      assert.strictEqual(definition.properties.timestamp.format, "date-time", name)
    }
    const notReady = new NotReady({ service: "herald", status: "degraded", timestamp: now })
    assert.strictEqual(notReady.code, "E_UNAVAILABLE")
    assert.strictEqual(notReady.error, "Database unreachable")
  })
})

describe("webhook payloads", () => {
  it("content events carry the piece, the invite carries the member; every kind is explained", () => {
    for (const type of ["content.created", "content.approved", "content.rejected", "content.published"] as const) {
      assert.strictEqual(webhookPayloadData[type], ContentPiece, type)
    }
    assert.strictEqual(webhookPayloadData["team.invited"], TeamMember)
    assert.isUndefined(webhookPayloadData["workflow.completed"])
    for (const type of webhookEventTypes) assert.match(webhookEventMeaning[type] ?? "", /^A [ a-z][a-z]* .+\.$/, type)
  })
})
