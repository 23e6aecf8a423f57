import { assert, describe, it } from "@effect/vitest"
import { createRequire } from "node:module"
import { trialDays } from "../src/domain/Billing.ts"
import { errorStatuses } from "../src/domain/ErrorCatalog.ts"
import * as Errors from "../src/domain/Errors.ts"
import { eventTypes } from "../src/domain/EventTypes.ts"
import { roleAllows, scopesByRole } from "../src/domain/Identity.ts"
import { isValidLanguage } from "../src/domain/LanguageCodes.ts"
import { signatureTolerance } from "../src/domain/OrchestratorSignature.ts"
import { geoCapWhenBlocked, lighthouseSeoWeights } from "../src/domain/Scan.ts"
import { budgetChannels, defaultSettings, skillNames } from "../src/domain/Settings.ts"
import {
  analyticsChannels,
  isSocialPlatform,
  metricNames,
  periodDays,
  platformNames,
  platformRules,
  socialPlatforms,
  zeroMetrics
} from "../src/domain/Social.ts"
import { isWebhookEventType, webhookEventTypes } from "../src/domain/WebhookEvents.ts"
import { webhookEventMeaning, webhookTestMeaning, webhookTestType } from "../src/domain/WebhookPayloads.ts"
import { maxWebhooksPerCustomer } from "../src/domain/Webhooks.ts"
import { catalogIds, isCatalogId } from "../src/domain/Workflows.ts"
import { specToolNames } from "./support/specTools.ts"

describe("roles and scopes", () => {
  const read = ["read:content", "read:analytics", "read:workflows", "read:settings", "read:events"]
  const edit = ["write:content", "review:content", "publish:social"]
  const administer = ["write:settings", "write:workflows", "write:webhooks", "write:team", "run:scans", "use:chat"]

  it("viewer reads; editor adds content edit, review and publish; admin adds settings, workflows, webhooks, team, scans, chat; owner adds key rotation", () => {
    assert.deepStrictEqual(scopesByRole.viewer, read)
    assert.deepStrictEqual(scopesByRole.editor, [...read, ...edit])
    assert.deepStrictEqual(scopesByRole.admin, [...read, ...edit, ...administer])
    assert.deepStrictEqual(scopesByRole.owner, [...read, ...edit, ...administer, "rotate:key"])
    assert.deepStrictEqual(Object.keys(scopesByRole).sort(), ["admin", "editor", "owner", "viewer"])
  })

  it("a role holds every scope of the roles it outranks, and only those it is allowed", () => {
    const roles = ["viewer", "editor", "admin", "owner"] as const
    for (const role of roles) {
      for (const lower of roles) {
        const includes = scopesByRole[lower].every((scope) => scopesByRole[role].includes(scope))
        assert.strictEqual(includes, roleAllows(role, lower), `${role} ⊇ ${lower}`)
      }
      assert.strictEqual(new Set(scopesByRole[role]).size, scopesByRole[role].length, `${role}: no repeats`)
      for (const scope of scopesByRole[role]) assert.match(scope, /^[a-z]+:[a-z]+$/, scope)
    }
    // Scopes every client may rely on being published.
    for (const scope of ["read:content", "write:content", "publish:social", "read:analytics"]) {
      assert.include(scopesByRole.owner, scope)
    }
  })
})

describe("error texts and codes", () => {
  const texts: Record<string, readonly [code: string, text: string, status: number]> = {
    ValidationError: ["E_VALIDATION", "Invalid request", 400],
    MalformedJson: ["E_MALFORMED_JSON", "Request body is not valid JSON", 400],
    InvalidCursor: ["E_INVALID_CURSOR", "Invalid cursor", 400],
    AuthRequired: ["E_AUTH_REQUIRED", "Authorization header required", 401],
    InvalidApiKey: ["E_INVALID_API_KEY", "Invalid API key", 401],
    AccountInactive: ["E_ACCOUNT_INACTIVE", "Customer account is not active", 401],
    AdminAuthRequired: ["E_ADMIN_AUTH", "Admin secret missing or invalid", 401],
    Forbidden: ["E_FORBIDDEN", "Not allowed", 403],
    NotFound: ["E_NOT_FOUND", "Not found", 404],
    InvalidTransition: ["E_INVALID_TRANSITION", "Invalid state transition", 409],
    Conflict: ["E_CONFLICT", "Conflict", 409],
    LimitReached: ["E_LIMIT_REACHED", "Limit reached", 409],
    RateLimited: ["E_RATE_LIMITED", "Rate limit exceeded", 429],
    Unavailable: ["E_UNAVAILABLE", "Service unavailable", 503],
    BudgetExceeded: ["E_BUDGET_EXCEEDED", "Budget cap exceeded", 403],
    PlatformNotConnected: ["E_PLATFORM_NOT_CONNECTED", "Platform not connected", 403],
    InvalidState: ["E_INVALID_STATE", "Invalid or expired state", 400],
    FetchFailed: ["E_FETCH_FAILED", "The page could not be fetched", 422],
    KeyAlreadyRetrieved: ["E_KEY_ALREADY_RETRIEVED", "The key of this session was already retrieved", 410],
    CheckoutIncomplete: ["E_CHECKOUT_INCOMPLETE", "Checkout not completed yet", 409],
    SignatureInvalid: ["E_SIGNATURE_INVALID", "Signature missing, invalid or too old", 401],
    PaymentSignatureInvalid: ["E_SIGNATURE_INVALID", "Signature missing, invalid or too old", 400],
    SessionNotFound: ["E_SESSION_NOT_FOUND", "Session not found — reconnect to /mcp/sse", 400],
    McpTokenRequired: ["E_MCP_TOKEN_REQUIRED", "MCP token required. Include ?token=<API_KEY>", 401]
  }

  it("each class answers its default text, code and tag", () => {
    const classes = Object.entries(Errors).filter(([, value]) =>
      typeof value === "function" && value.prototype instanceof Error
    )
    assert.deepStrictEqual(classes.map(([name]) => name).sort(), Object.keys(texts).sort())
    for (const [name, Class] of classes) {
      const error = new (Class as new(fields: object) => { code: string; error: string; _tag: string })({})
      assert.deepStrictEqual([error.code, error.error, error._tag], [texts[name][0], texts[name][1], name], name)
    }
  })

  it("the catalog maps every code to its status; a shared code keeps the first class's", () => {
    const expected = new Map<string, number>()
    for (const [code, , status] of Object.values(texts)) if (!expected.has(code)) expected.set(code, status)
    assert.deepStrictEqual([...errorStatuses()].sort(), [...expected].sort())
    assert.strictEqual(errorStatuses().get("E_SIGNATURE_INVALID"), 401)
  })

  it("the HTTP layer's defaults for failures no handler raised", () => {
    assert.deepStrictEqual(Errors.statusCodes, {
      400: ["E_VALIDATION", "Invalid request"],
      401: ["E_AUTH_REQUIRED", "Authorization header required"],
      403: ["E_FORBIDDEN", "Not allowed"],
      404: ["E_NOT_FOUND", "Not found"],
      405: ["E_METHOD_NOT_ALLOWED", "Method not allowed"],
      406: ["E_NOT_ACCEPTABLE", "Not acceptable"],
      409: ["E_CONFLICT", "Conflict"],
      413: ["E_PAYLOAD_TOO_LARGE", "Request body exceeds 1 MiB"],
      415: ["E_UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json"],
      429: ["E_RATE_LIMITED", "Rate limit exceeded"],
      500: ["E_INTERNAL", "Internal server error"],
      503: ["E_UNAVAILABLE", "Service unavailable"]
    })
  })
})

describe("catalogs and constants", () => {
  it("event types of the log", () => {
    assert.deepStrictEqual([...eventTypes], [
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
    ])
  })

  it("webhook kinds, their meanings and the test event", () => {
    assert.deepStrictEqual([...webhookEventTypes], [
      "content.created",
      "content.approved",
      "content.published",
      "content.rejected",
      "workflow.completed",
      "team.invited"
    ])
    for (const type of webhookEventTypes) assert.isTrue(isWebhookEventType(type), type)
    for (const type of ["content.deleted", "webhook.test", "", "Content.created"]) {
      assert.isFalse(isWebhookEventType(type), type)
    }
    assert.deepStrictEqual(webhookEventMeaning, {
      "content.created": "A content piece was created (by a person, an agent or a workflow).",
      "content.approved": "A content piece was approved.",
      "content.rejected": "A content piece was rejected.",
      "content.published": "A content piece was published.",
      "workflow.completed": "A workflow run completed; `data` is the run.",
      "team.invited": "A team member was invited; `data` is the member (never its key)."
    })
    assert.strictEqual(webhookTestType, "webhook.test")
    assert.strictEqual(
      webhookTestMeaning,
      "A test event, sent only by `POST /api/hooks/{customerId}/{webhookId}/test` and only to that subscription, " +
        "whatever kinds it asked for: check a receiver's signature verification with it."
    )
    assert.strictEqual(maxWebhooksPerCustomer, 25)
  })

  it("autonomy skills, budget channels and default settings (global default 2)", () => {
    assert.deepStrictEqual([...skillNames], [
      ...specToolNames,
      "weekly-content-plan",
      "daily-social-posts",
      "monthly-seo-audit",
      "competitor-research",
      "lead-magnet",
      "performance-report"
    ])
    assert.deepStrictEqual([...budgetChannels], [
      "x",
      "linkedin",
      "instagram",
      "facebook",
      "tiktok",
      "pinterest",
      "ads",
      "model"
    ])
    assert.deepStrictEqual(defaultSettings, {
      autonomy: { globalDefault: 2, categories: {}, skills: {} },
      budget: { daily: null, weekly: null, monthly: null, channels: {} },
      tracking: { links: true }
    })
  })

  it("workflow catalog in its documented order", () => {
    assert.deepStrictEqual([...catalogIds], [
      "weekly-content-plan",
      "daily-social-posts",
      "monthly-seo-audit",
      "competitor-research",
      "lead-magnet",
      "performance-report"
    ])
    for (const id of catalogIds) assert.isTrue(isCatalogId(id), id)
    for (const id of ["", "weekly", "ask_cmo", "Lead-magnet"]) assert.isFalse(isCatalogId(id), id)
  })

  it("social platforms: names, rules, analytics channels", () => {
    assert.deepStrictEqual([...socialPlatforms], ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"])
    assert.deepStrictEqual(platformNames, {
      x: "X",
      linkedin: "LinkedIn",
      instagram: "Instagram",
      facebook: "Facebook",
      tiktok: "TikTok",
      pinterest: "Pinterest"
    })
    assert.deepStrictEqual(platformRules, {
      x: { maxLength: 280, mediaRequired: false },
      linkedin: { maxLength: 3000, mediaRequired: false },
      instagram: { maxLength: 2200, mediaRequired: true },
      facebook: { maxLength: 63206, mediaRequired: false },
      tiktok: { maxLength: 2200, mediaRequired: true },
      pinterest: { maxLength: 500, mediaRequired: true }
    })
    for (const platform of socialPlatforms) assert.isTrue(isSocialPlatform(platform), platform)
    for (const name of [null, undefined, "", "X", "mastodon", "ads"]) {
      assert.isFalse(isSocialPlatform(name), String(name))
    }
    assert.deepStrictEqual([...analyticsChannels], [
      "x",
      "linkedin",
      "instagram",
      "facebook",
      "tiktok",
      "pinterest",
      "web",
      "email"
    ])
    assert.deepStrictEqual([...metricNames], ["posts", "clicks", "impressions", "engagements", "revenue"])
    assert.deepStrictEqual(periodDays, { last_7_days: 7, last_30_days: 30, last_90_days: 90 })
    assert.deepStrictEqual(zeroMetrics, { posts: 0, clicks: 0, impressions: 0, engagements: 0, revenue: 0 })
  })

  it("scan weights: Lighthouse's SEO category, and the GEO cap when bots are blocked", () => {
    assert.deepStrictEqual(lighthouseSeoWeights, {
      "is-crawlable": 93 / 23,
      "document-title": 1,
      "meta-description": 1,
      "http-status-code": 1,
      "link-text": 1,
      "crawlable-anchors": 1,
      "robots-txt": 1,
      "image-alt": 1,
      "hreflang": 1,
      "canonical": 1
    })
    assert.strictEqual(geoCapWhenBlocked, 40)
    assert.strictEqual(trialDays, 30)
    assert.strictEqual(signatureTolerance, 300)
  })
})

describe("hreflang language codes", () => {
  it("are exactly axe-core's valid languages (the list Lighthouse checks against)", () => {
    // axe-core comes with Lighthouse; its `validLangs` is the list LanguageCodes.ts was decoded from.
    const require = createRequire(import.meta.url)
    const lighthouse = require.resolve("lighthouse/package.json")
    const axe = createRequire(lighthouse)("axe-core") as { utils: { validLangs: () => Array<string> } }
    const valid = axe.utils.validLangs().filter((code) => /^[a-z]{2,3}$/.test(code))
    assert.isAbove(valid.length, 8000)
    for (const code of valid) if (!isValidLanguage(code)) assert.fail(`${code} should be valid`)
    const known = new Set(valid)
    const letters = "abcdefghijklmnopqrstuvwxyz"
    for (const a of letters) {
      for (const b of letters) {
        if (isValidLanguage(a + b) !== known.has(a + b)) assert.fail(a + b)
        for (const c of letters) if (isValidLanguage(a + b + c) !== known.has(a + b + c)) assert.fail(a + b + c)
      }
    }
    for (const bad of ["", "e", "EN", "en-us", "engl", "a1"]) assert.isFalse(isValidLanguage(bad), bad)
  })
})
