import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as Billing from "../src/domain/Billing.ts"
import * as Chat from "../src/domain/Chat.ts"
import * as Content from "../src/domain/Content.ts"
import * as Health from "../src/domain/Health.ts"
import * as Identity from "../src/domain/Identity.ts"
import * as Onboarding from "../src/domain/Onboarding.ts"
import * as Scan from "../src/domain/Scan.ts"
import * as Settings from "../src/domain/Settings.ts"
import * as Social from "../src/domain/Social.ts"
import * as Text from "../src/domain/Text.ts"
import * as WebhookEvents from "../src/domain/WebhookEvents.ts"
import * as WebhookPayloads from "../src/domain/WebhookPayloads.ts"
import * as Webhooks from "../src/domain/Webhooks.ts"
import * as Workflows from "../src/domain/Workflows.ts"

/**
 * The JSON Schema every wire schema of src/domain publishes (the OpenAPI
 * components and inline schemas clients are generated from): component
 * names, formats (uuid, email, uri, date-time), bounds, enums, required
 * properties and descriptions. Written out in full so that any change to the
 * published interface shows up here (docs/api-rules.md states the bounds;
 * ids are uuids, timestamps date-time, review notes at most 1000
 * characters, chat messages 1 to 10000, scan and webhook URLs at most 2048).
 */
const definitions: Record<string, unknown> = {
  EventActor: {
    type: "object",
    properties: {
      type: { type: "string", enum: ["owner", "member", "admin", "agent", "workflow", "system"] },
      id: { anyOf: [{ type: "string" }, { type: "null" }] }
    },
    required: ["type", "id"],
    additionalProperties: true
  },
  Customer: {
    type: "object",
    properties: {
      id: { type: "string", format: "uuid" },
      email: { type: "string", format: "email" },
      plan: { type: "string", enum: ["pro"] },
      status: { type: "string", enum: ["onboarding", "active", "suspended", "cancelled"] },
      brandName: { anyOf: [{ type: "string" }, { type: "null" }] },
      mcpEndpoint: { type: "string", format: "uri" },
      createdAt: { type: "string", format: "date-time" },
      trialEndsAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] }
    },
    required: ["id", "email", "plan", "status", "brandName", "mcpEndpoint", "createdAt", "trialEndsAt"],
    additionalProperties: true
  },
  Event: {
    type: "object",
    properties: {
      id: { type: "string" },
      type: { type: "string" },
      timestamp: { type: "string", format: "date-time" },
      actor: { $ref: "#/$defs/EventActor" },
      data: { type: "object" }
    },
    required: ["id", "type", "timestamp", "actor", "data"],
    additionalProperties: true
  },
  InvitedMember: {
    type: "object",
    properties: {
      memberId: { type: "string" },
      email: { type: "string", format: "email" },
      role: { type: "string", enum: ["admin", "editor", "viewer"] },
      createdAt: { type: "string", format: "date-time" },
      apiKey: { type: "string" }
    },
    required: ["memberId", "email", "role", "createdAt", "apiKey"],
    additionalProperties: true
  },
  IssuedKey: {
    type: "object",
    properties: {
      apiKey: { type: "string" },
      mcpEndpoint: { type: "string", format: "uri" }
    },
    required: ["apiKey", "mcpEndpoint"],
    additionalProperties: true
  },
  ProvisionRequest: {
    type: "object",
    properties: {
      email: { type: "string", maxLength: 254, allOf: [{ format: "email" }] },
      brandName: { type: "string", minLength: 1, maxLength: 200 },
      status: { type: "string", enum: ["onboarding", "active", "suspended", "cancelled"] }
    },
    required: ["email"],
    additionalProperties: true
  },
  ProvisionResult: {
    type: "object",
    properties: {
      customerId: { type: "string", format: "uuid" },
      email: { type: "string", format: "email" },
      apiKey: { type: "string" },
      mcpEndpoint: { type: "string", format: "uri" }
    },
    required: ["customerId", "email", "apiKey", "mcpEndpoint"],
    additionalProperties: true
  },
  TeamInvite: {
    type: "object",
    properties: {
      email: { type: "string", maxLength: 254, allOf: [{ format: "email" }] },
      role: { type: "string", enum: ["admin", "editor", "viewer"] }
    },
    required: ["email", "role"],
    additionalProperties: true
  },
  TeamMember: {
    type: "object",
    properties: {
      memberId: { type: "string" },
      email: { type: "string", format: "email" },
      role: { type: "string", enum: ["admin", "editor", "viewer"] },
      createdAt: { type: "string", format: "date-time" }
    },
    required: ["memberId", "email", "role", "createdAt"],
    additionalProperties: true
  },
  CheckoutCreated: {
    type: "object",
    properties: {
      url: { type: "string", format: "uri" }
    },
    required: ["url"],
    additionalProperties: true
  },
  CheckoutRequest: {
    type: "object",
    properties: {
      email: { type: "string", maxLength: 254, allOf: [{ format: "email" }] }
    },
    required: ["email"],
    additionalProperties: true
  },
  CheckoutSessionResult: {
    type: "object",
    properties: {
      customerId: { type: "string", format: "uuid" },
      email: { type: "string", format: "email" },
      apiKey: { type: "string" },
      mcpEndpoint: { type: "string", format: "uri" }
    },
    required: ["customerId", "email", "apiKey", "mcpEndpoint"],
    additionalProperties: true
  },
  PaymentEvent: {
    type: "object",
    properties: {
      id: { type: "string", minLength: 1, maxLength: 255 },
      type: { type: "string", minLength: 1, maxLength: 255 },
      created: { type: "integer", minimum: 0, maximum: 100000000000 },
      data: {
        type: "object",
        properties: { object: { type: "object" } },
        required: ["object"],
        additionalProperties: true
      }
    },
    required: ["id", "type", "data"],
    additionalProperties: true
  },
  PaymentEventReceived: {
    type: "object",
    properties: {
      received: { type: "boolean", enum: [true] }
    },
    required: ["received"],
    additionalProperties: true
  },
  ContentPiece: {
    type: "object",
    properties: {
      id: { type: "string" },
      type: { type: "string", enum: ["blog", "social", "email", "ad", "outreach"] },
      status: { type: "string", enum: ["draft", "pending_approval", "approved", "published", "rejected"] },
      platform: { anyOf: [{ type: "string" }, { type: "null" }] },
      title: { anyOf: [{ type: "string" }, { type: "null" }] },
      body: { anyOf: [{ type: "string" }, { type: "null" }] },
      metadata: { type: "object" },
      publishedUrl: { anyOf: [{ type: "string", format: "uri" }, { type: "null" }] },
      publishedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      scheduledAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      reviewNote: { anyOf: [{ type: "string" }, { type: "null" }] },
      agentId: { anyOf: [{ type: "string" }, { type: "null" }] },
      runId: { anyOf: [{ type: "string" }, { type: "null" }] },
      createdAt: { type: "string", format: "date-time" }
    },
    required: [
      "id",
      "type",
      "status",
      "platform",
      "title",
      "body",
      "metadata",
      "publishedUrl",
      "publishedAt",
      "scheduledAt",
      "reviewNote",
      "agentId",
      "runId",
      "createdAt"
    ],
    additionalProperties: true
  },
  ContentUpdate: {
    type: "object",
    properties: {
      title: { type: "string", minLength: 1, maxLength: 300 },
      body: { type: "string", minLength: 1, maxLength: 100000 },
      metadata: { type: "object", maxProperties: 50, propertyNames: { type: "string", maxLength: 40 } }
    },
    additionalProperties: true,
    description: "Only `title`, `body` and `metadata`; no other properties"
  },
  NewContent: {
    type: "object",
    properties: {
      type: { type: "string", enum: ["blog", "social", "email", "ad", "outreach"] },
      platform: {
        type: "string",
        description:
          "Where the piece goes: x, linkedin, instagram, facebook, tiktok, pinterest, or another channel name"
      },
      title: { type: "string", minLength: 1, maxLength: 300 },
      body: { type: "string", minLength: 1, maxLength: 100000 },
      metadata: { type: "object", maxProperties: 50, propertyNames: { type: "string", maxLength: 40 } },
      submit: { type: "boolean" }
    },
    required: ["type", "body"],
    additionalProperties: true
  },
  ContentReview: {
    type: "object",
    properties: {
      action: { type: "string", enum: ["approve", "reject"] },
      note: { type: "string", maxLength: 1000 }
    },
    required: ["action"],
    additionalProperties: true
  },
  Health: {
    type: "object",
    properties: {
      service: { type: "string", enum: ["herald"] },
      status: { type: "string", enum: ["ok"] },
      timestamp: { type: "string", format: "date-time" }
    },
    required: ["service", "status", "timestamp"],
    additionalProperties: true,
    description: "The service is alive"
  },
  HealthReady: {
    type: "object",
    properties: {
      service: { type: "string", enum: ["herald"] },
      status: { type: "string", enum: ["ok", "degraded"] },
      timestamp: { type: "string", format: "date-time" },
      components: {
        anyOf: [{
          type: "array",
          items: {
            type: "object",
            properties: {
              name: { type: "string" },
              status: { type: "string", enum: ["ok", "degraded", "down"] },
              latencyMs: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
              error: { anyOf: [{ type: "string" }, { type: "null" }] }
            },
            required: ["name", "status", "latencyMs"],
            additionalProperties: true
          }
        }, { type: "null" }]
      }
    },
    required: ["service", "status", "timestamp"],
    additionalProperties: true,
    description: "Readiness: the service and its database answer"
  },
  Incident: {
    type: "object",
    properties: {
      id: { type: "string" },
      component: { type: "string" },
      startedAt: { type: "string", format: "date-time" },
      resolvedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      summary: { type: "string" }
    },
    required: ["id", "component", "startedAt", "resolvedAt", "summary"],
    additionalProperties: true
  },
  NotReadyEncoded: {
    type: "object",
    properties: {
      _tag: { type: "string", enum: ["NotReady"] },
      service: { type: "string", enum: ["herald"] },
      status: { type: "string", enum: ["degraded"] },
      timestamp: { type: "string", format: "date-time" },
      components: {
        anyOf: [{
          type: "array",
          items: {
            type: "object",
            properties: {
              name: { type: "string" },
              status: { type: "string", enum: ["ok", "degraded", "down"] },
              latencyMs: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
              error: { anyOf: [{ type: "string" }, { type: "null" }] }
            },
            required: ["name", "status", "latencyMs"],
            additionalProperties: true
          }
        }, { type: "null" }]
      },
      error: { type: "string" },
      code: { type: "string", enum: ["E_UNAVAILABLE"] }
    },
    required: ["_tag", "service", "status", "timestamp", "error", "code"],
    additionalProperties: true
  },
  PublicStatus: {
    type: "object",
    properties: {
      status: { type: "string", enum: ["ok", "degraded", "down"] },
      timestamp: { type: "string", format: "date-time" },
      uptime24h: { type: "number", minimum: 0, maximum: 1 },
      uptime7d: { anyOf: [{ type: "number", minimum: 0, maximum: 1 }, { type: "null" }] },
      incidents: { type: "array", items: { $ref: "#/$defs/Incident" } },
      components: {
        type: "array",
        items: {
          type: "object",
          properties: { name: { type: "string" }, status: { type: "string", enum: ["ok", "degraded", "down"] } },
          required: ["name", "status"],
          additionalProperties: true
        }
      }
    },
    required: ["status", "timestamp", "uptime24h", "uptime7d", "incidents", "components"],
    additionalProperties: true,
    description: "The public status page: overall status, uptime, components and incidents"
  },
  AutoExtractRequest: {
    type: "object",
    properties: {
      url: {
        type: "string",
        maxLength: 2048,
        format: "uri",
        description: "The brand's site: an absolute http(s) URL, at most 2048 characters"
      }
    },
    required: ["url"],
    additionalProperties: true,
    description: "Only `url`; no other properties"
  },
  BrandProfile: {
    type: "object",
    properties: {
      brandName: { anyOf: [{ type: "string" }, { type: "null" }] },
      description: { anyOf: [{ type: "string" }, { type: "null" }] },
      logoUrl: { anyOf: [{ type: "string", format: "uri" }, { type: "null" }] },
      ogImage: {
        anyOf: [{
          type: "string",
          format: "uri",
          description:
            "The image the page gives social networks (og:image): attached to posts on platforms that need media when the profile has no logo"
        }, { type: "null" }]
      },
      colors: { type: "array", items: { type: "string" }, description: "Brand colours as #rrggbb, most used first" },
      voice: { type: "array", items: { type: "string" }, description: "Tone words read from the copy" },
      audience: { type: "array", items: { type: "string" }, description: "Who the page says it is for" },
      products: { type: "array", items: { type: "string" } },
      socials: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Platform name to profile URL, as linked from the page"
      },
      sourceUrl: { type: "string", description: "The page read, after redirects", format: "uri" }
    },
    required: [
      "brandName",
      "description",
      "logoUrl",
      "ogImage",
      "colors",
      "voice",
      "audience",
      "products",
      "socials",
      "sourceUrl"
    ],
    additionalProperties: true,
    description: "What the page says about the brand; null or empty where it says nothing (never invented)"
  },
  ConfirmedProfile: {
    type: "object",
    properties: {
      brandName: { type: "string", minLength: 1, maxLength: 200 },
      description: { anyOf: [{ type: "string", minLength: 1, maxLength: 2000 }, { type: "null" }] },
      logoUrl: {
        anyOf: [{ type: "string", maxLength: 2048, format: "uri", description: "The logo: an absolute http(s) URL" }, {
          type: "null"
        }]
      },
      ogImage: {
        anyOf: [{
          type: "string",
          maxLength: 2048,
          format: "uri",
          description:
            "The site's social sharing image (og:image): an absolute http(s) URL; posts that need media carry it when there is no logo"
        }, { type: "null" }]
      },
      colors: {
        type: "array",
        items: { type: "string", pattern: "^#[0-9a-fA-F]{6}$", description: "A colour as #rrggbb" },
        maxItems: 20,
        description: "Brand colours as #rrggbb, most used first; at most 20"
      },
      voice: {
        type: "array",
        items: { type: "string", minLength: 1, maxLength: 200 },
        maxItems: 50,
        description: "Tone words the brand writes in; at most 50, each 1 to 200 characters"
      },
      audience: {
        type: "array",
        items: { type: "string", minLength: 1, maxLength: 200 },
        maxItems: 50,
        description: "Who the brand is for; at most 50, each 1 to 200 characters"
      },
      products: {
        type: "array",
        items: { type: "string", minLength: 1, maxLength: 200 },
        maxItems: 50,
        description: "What the brand sells; at most 50, each 1 to 200 characters"
      },
      socials: {
        type: "object",
        additionalProperties: { type: "string", maxLength: 2048, format: "uri" },
        maxProperties: 20
      },
      sourceUrl: {
        anyOf: [{ type: "string", maxLength: 2048, format: "uri", description: "The page the profile was read from" }, {
          type: "null"
        }]
      }
    },
    required: ["brandName"],
    additionalProperties: true,
    description:
      "The brand profile as confirmed: `brandName` required, the other fields of the extracted profile optional, each typed; any other property is refused"
  },
  OnboardingStarted: {
    type: "object",
    properties: {
      status: { type: "string", enum: ["onboarding_started"] },
      connectLinks: {
        type: "object",
        additionalProperties: { type: "string", format: "uri" },
        description: "Where to connect each social platform, once publishing is configured"
      }
    },
    required: ["status"],
    additionalProperties: true
  },
  ProfileConfirmed: {
    type: "object",
    properties: {
      customerId: { type: "string" },
      status: { type: "string", enum: ["onboarding", "active", "suspended", "cancelled"] },
      brandName: { anyOf: [{ type: "string" }, { type: "null" }] },
      profile: { $ref: "#/$defs/ConfirmedProfile" }
    },
    required: ["customerId", "status", "brandName", "profile"],
    additionalProperties: true
  },

  ChecklistItem: {
    type: "object",
    properties: {
      id: {
        type: "string",
        description:
          "Lighthouse's audit id for the checks that reproduce its SEO audits (`is-crawlable`, `document-title`, ...), else `seo.*`, `geo.*` or `cro.*`"
      },
      category: { type: "string", enum: ["seo", "geo", "cro"] },
      title: { type: "string" },
      status: { type: "string", enum: ["pass", "warn", "fail"] },
      weight: { type: "number", minimum: 0, maximum: 10, description: "Weight in its category's score" },
      detail: { type: "string", description: "What was found" },
      recommendation: { type: "string", description: "What to change (empty when it passes)" }
    },
    required: ["id", "category", "title", "status", "weight", "detail", "recommendation"],
    additionalProperties: true
  },
  ScanRequest: {
    type: "object",
    properties: {
      url: {
        type: "string",
        maxLength: 2048,
        format: "uri",
        description: "The page to scan: an absolute http(s) URL, at most 2048 characters"
      }
    },
    required: ["url"],
    additionalProperties: true,
    description: "Only `url`; no other properties"
  },
  ScanResult: {
    type: "object",
    properties: {
      scanId: { type: "string" },
      status: { type: "string", enum: ["running", "done", "failed"] },
      url: { type: "string", format: "uri" },
      seoScore: { anyOf: [{ type: "integer", minimum: 0, maximum: 100 }, { type: "null" }] },
      geoScore: { anyOf: [{ type: "integer", minimum: 0, maximum: 100 }, { type: "null" }] },
      croScore: { anyOf: [{ type: "integer", minimum: 0, maximum: 100 }, { type: "null" }] },
      lighthouseSeoScore: {
        anyOf: [{ type: "integer", minimum: 0, maximum: 100 }, { type: "null" }],
        description: "Lighthouse's SEO category score (0-100) as reproduced from the ten Lighthouse checks"
      },
      citabilityGrade: { anyOf: [{ type: "string", enum: ["A", "B", "C", "D", "F"] }, { type: "null" }] },
      checklist: { type: "array", items: { $ref: "#/$defs/ChecklistItem" } },
      llmsTxt: { anyOf: [{ type: "string" }, { type: "null" }], description: "A proposed llms.txt for the site" },
      screenshotUrl: { anyOf: [{ type: "string", format: "uri" }, { type: "null" }] },
      error: { anyOf: [{ type: "string" }, { type: "null" }], description: "Why a `failed` scan failed" },
      createdAt: { type: "string", format: "date-time" },
      completedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] }
    },
    required: [
      "scanId",
      "status",
      "url",
      "seoScore",
      "geoScore",
      "croScore",
      "lighthouseSeoScore",
      "citabilityGrade",
      "checklist",
      "llmsTxt",
      "screenshotUrl",
      "error",
      "createdAt",
      "completedAt"
    ],
    additionalProperties: true
  },
  ScanSummary: {
    type: "object",
    properties: {
      scanId: { type: "string" },
      url: { type: "string", format: "uri" },
      status: { type: "string", enum: ["running", "done", "failed"] },
      seoScore: { anyOf: [{ type: "integer", minimum: 0, maximum: 100 }, { type: "null" }] },
      geoScore: { anyOf: [{ type: "integer", minimum: 0, maximum: 100 }, { type: "null" }] },
      croScore: { anyOf: [{ type: "integer", minimum: 0, maximum: 100 }, { type: "null" }] },
      citabilityGrade: { anyOf: [{ type: "string", enum: ["A", "B", "C", "D", "F"] }, { type: "null" }] },
      counts: {
        type: "object",
        properties: {
          pass: { type: "integer", minimum: 0, maximum: 9007199254740991 },
          warn: { type: "integer", minimum: 0, maximum: 9007199254740991 },
          fail: { type: "integer", minimum: 0, maximum: 9007199254740991 }
        },
        required: ["pass", "warn", "fail"],
        additionalProperties: true,
        description: "Checklist items by status (all 0 until the scan is done)"
      },
      error: { anyOf: [{ type: "string" }, { type: "null" }], description: "Why a `failed` scan failed" },
      createdAt: { type: "string", format: "date-time" },
      completedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] }
    },
    required: [
      "scanId",
      "url",
      "status",
      "seoScore",
      "geoScore",
      "croScore",
      "citabilityGrade",
      "counts",
      "error",
      "createdAt",
      "completedAt"
    ],
    additionalProperties: true
  },
  ScanList: {
    type: "object",
    properties: {
      scans: { type: "array", items: { $ref: "#/$defs/ScanSummary" } },
      nextCursor: {
        anyOf: [{ type: "string" }, { type: "null" }],
        description: "Pass as `cursor` for the next page; null on the last page"
      }
    },
    required: ["scans", "nextCursor"],
    additionalProperties: true
  },

  Autonomy: {
    type: "object",
    properties: {
      globalDefault: {
        type: "integer",
        minimum: 1,
        maximum: 5,
        description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
      },
      categories: {
        type: "object",
        properties: {
          blog: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          social: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          email: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          ad: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          outreach: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          }
        },
        additionalProperties: true
      },
      skills: {
        type: "object",
        properties: {
          run_research: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          run_content_creation: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          ask_cmo: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          schedule_content: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          publish_to_social: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          generate_lead_magnet: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          ai_seo_audit: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          cro_audit: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          query_ga4: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          track_revenue: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          check_ai_visibility: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          analyze_brand_url: {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          "weekly-content-plan": {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          "daily-social-posts": {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          "monthly-seo-audit": {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          "competitor-research": {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          "lead-magnet": {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          },
          "performance-report": {
            type: "integer",
            minimum: 1,
            maximum: 5,
            description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
          }
        },
        additionalProperties: true
      }
    },
    required: ["globalDefault", "categories", "skills"],
    additionalProperties: true
  },
  AutonomyUpdate: {
    type: "object",
    properties: {
      globalDefault: {
        type: "integer",
        minimum: 1,
        maximum: 5,
        description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
      },
      categories: {
        type: "object",
        properties: {
          blog: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          social: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          email: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          ad: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          outreach: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          }
        },
        additionalProperties: true
      },
      skills: {
        type: "object",
        properties: {
          run_research: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          run_content_creation: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          ask_cmo: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          schedule_content: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          publish_to_social: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          generate_lead_magnet: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          ai_seo_audit: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          cro_audit: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          query_ga4: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          track_revenue: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          check_ai_visibility: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          analyze_brand_url: {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          "weekly-content-plan": {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          "daily-social-posts": {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          "monthly-seo-audit": {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          "competitor-research": {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          "lead-magnet": {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          },
          "performance-report": {
            anyOf: [{
              type: "integer",
              minimum: 1,
              maximum: 5,
              description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
            }, { type: "null" }]
          }
        },
        additionalProperties: true
      }
    },
    additionalProperties: true,
    description:
      "Merged into the current autonomy; a `null` category or skill removes that override. Unknown keys are rejected."
  },
  Budget: {
    type: "object",
    properties: {
      daily: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
      weekly: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
      monthly: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
      channels: {
        type: "object",
        properties: {
          x: { type: "number", minimum: 0 },
          linkedin: { type: "number", minimum: 0 },
          instagram: { type: "number", minimum: 0 },
          facebook: { type: "number", minimum: 0 },
          tiktok: { type: "number", minimum: 0 },
          pinterest: { type: "number", minimum: 0 },
          ads: { type: "number", minimum: 0 },
          model: { type: "number", minimum: 0 }
        },
        additionalProperties: true
      }
    },
    required: ["daily", "weekly", "monthly", "channels"],
    additionalProperties: true,
    description: "Caps in the account currency; null means no cap. Channel caps apply per calendar month (UTC)."
  },
  BudgetUpdate: {
    type: "object",
    properties: {
      daily: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
      weekly: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
      monthly: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
      channels: {
        type: "object",
        properties: {
          x: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
          linkedin: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
          instagram: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
          facebook: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
          tiktok: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
          pinterest: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
          ads: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
          model: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] }
        },
        additionalProperties: true
      }
    },
    additionalProperties: true,
    description: "Merged into the current budget; `null` removes a cap. Unknown channels are rejected."
  },
  Tracking: {
    type: "object",
    properties: {
      links: {
        type: "boolean",
        description: "Rewrite http(s) links of published posts to tracked `/r/{code}` links with UTM parameters"
      }
    },
    required: ["links"],
    additionalProperties: true
  },
  Settings: {
    type: "object",
    properties: {
      autonomy: { $ref: "#/$defs/Autonomy" },
      budget: { $ref: "#/$defs/Budget" },
      tracking: { $ref: "#/$defs/Tracking" }
    },
    required: ["autonomy", "budget", "tracking"],
    additionalProperties: true
  },
  TrackingUpdate: {
    type: "object",
    properties: {
      links: { type: "boolean" }
    },
    additionalProperties: true,
    description: "Merged into the current tracking settings. Unknown keys are rejected."
  },
  ChannelMetrics: {
    type: "object",
    properties: {
      posts: { type: "integer", minimum: 0, maximum: 9007199254740991 },
      clicks: { type: "integer", minimum: 0, maximum: 9007199254740991 },
      impressions: { type: "integer", minimum: 0, maximum: 9007199254740991 },
      engagements: { type: "integer", minimum: 0, maximum: 9007199254740991 },
      revenue: {
        type: "number",
        description: "Sum of tracked revenue amounts (mixed currencies are summed as recorded)"
      }
    },
    required: ["posts", "clicks", "impressions", "engagements", "revenue"],
    additionalProperties: true
  },
  AnalyticsReport: {
    type: "object",
    properties: {
      period: { type: "string", enum: ["last_7_days", "last_30_days", "last_90_days"] },
      channels: {
        type: "object",
        properties: {
          x: { $ref: "#/$defs/ChannelMetrics" },
          linkedin: { $ref: "#/$defs/ChannelMetrics" },
          instagram: { $ref: "#/$defs/ChannelMetrics" },
          facebook: { $ref: "#/$defs/ChannelMetrics" },
          tiktok: { $ref: "#/$defs/ChannelMetrics" },
          pinterest: { $ref: "#/$defs/ChannelMetrics" },
          web: { $ref: "#/$defs/ChannelMetrics" },
          email: { $ref: "#/$defs/ChannelMetrics" }
        },
        required: ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest", "web", "email"],
        additionalProperties: true
      },
      totals: { $ref: "#/$defs/ChannelMetrics" }
    },
    required: ["period", "channels", "totals"],
    additionalProperties: true
  },
  ConnectLinks: {
    type: "object",
    properties: {
      connectLinks: { type: "object", additionalProperties: { type: "string", format: "uri" } }
    },
    required: ["connectLinks"],
    additionalProperties: true
  },
  ConnectRequest: {
    type: "object",
    properties: {
      platforms: {
        type: "array",
        items: { type: "string", enum: ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"] },
        maxItems: 6
      }
    },
    additionalProperties: true
  },
  SocialConnection: {
    type: "object",
    properties: {
      connected: { type: "boolean" },
      accountName: { anyOf: [{ type: "string" }, { type: "null" }] },
      connectedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] }
    },
    required: ["connected", "accountName", "connectedAt"],
    additionalProperties: true
  },
  SocialConnections: {
    type: "object",
    properties: {
      x: { $ref: "#/$defs/SocialConnection" },
      linkedin: { $ref: "#/$defs/SocialConnection" },
      instagram: { $ref: "#/$defs/SocialConnection" },
      facebook: { $ref: "#/$defs/SocialConnection" },
      tiktok: { $ref: "#/$defs/SocialConnection" },
      pinterest: { $ref: "#/$defs/SocialConnection" }
    },
    required: ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"],
    additionalProperties: true
  },
  PublishAttempt: {
    type: "object",
    properties: {
      id: { type: "string" },
      attempt: { type: "integer", minimum: 1, maximum: 9007199254740991 },
      provider: { type: "string" },
      status: { type: "string", enum: ["sent", "failed", "reconciled"] },
      providerPostId: { anyOf: [{ type: "string" }, { type: "null" }] },
      error: { anyOf: [{ type: "string" }, { type: "null" }] },
      attemptedAt: { type: "string", format: "date-time" }
    },
    required: ["id", "attempt", "provider", "status", "providerPostId", "error", "attemptedAt"],
    additionalProperties: true
  },
  WebhookTestData: {
    type: "object",
    properties: {
      webhookId: { type: "string", description: "The subscription the test was sent to" },
      message: { type: "string" }
    },
    required: ["webhookId", "message"],
    additionalProperties: true
  },
  CreatedWebhook: {
    type: "object",
    properties: {
      id: { type: "string" },
      url: { type: "string", format: "uri" },
      events: { type: "array", items: { type: "string" } },
      createdAt: { type: "string", format: "date-time" },
      disabledAt: {
        anyOf: [{ type: "string", format: "date-time" }, { type: "null" }],
        description:
          "Set when the endpoint answered 410 Gone or a delivery spent all its retries; a disabled subscription receives nothing (its events are kept as `skipped` deliveries for `recover`) until it is enabled again"
      },
      disabledReason: {
        anyOf: [{ type: "string", enum: ["gone", "failing"] }, { type: "null" }],
        description: "`gone`: the endpoint answered 410; `failing`: a delivery failed after its last retry"
      },
      secret: { type: "string", description: "Signing secret (`whsec_` + base64), shown only here" }
    },
    required: ["id", "url", "events", "createdAt", "disabledAt", "disabledReason", "secret"],
    additionalProperties: true
  },
  WebhookDelivery: {
    type: "object",
    properties: {
      id: { type: "string" },
      webhookId: { type: "string" },
      eventId: { type: "string" },
      eventType: { type: "string" },
      status: { type: "string", enum: ["pending", "succeeded", "failed", "cancelled", "skipped"] },
      attempts: { type: "integer", minimum: 0, maximum: 9007199254740991 },
      nextAttemptAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] }
    },
    required: ["id", "webhookId", "eventId", "eventType", "status", "attempts", "nextAttemptAt"],
    additionalProperties: true
  },
  DeliveryAttempt: {
    type: "object",
    properties: {
      id: { type: "string" },
      deliveryId: { type: "string", description: "The delivery this attempt belongs to (for `redeliver`)" },
      deliveryStatus: { type: "string", enum: ["pending", "succeeded", "failed", "cancelled", "skipped"] },
      nextAttemptAt: {
        anyOf: [{ type: "string", format: "date-time" }, { type: "null" }],
        description: "When the delivery is tried next; null once it succeeded, failed, was cancelled or skipped"
      },
      eventId: { type: "string" },
      eventType: { type: "string" },
      attempt: { type: "integer", minimum: 1, maximum: 9007199254740991 },
      statusCode: { anyOf: [{ type: "integer", minimum: 0, maximum: 999 }, { type: "null" }] },
      durationMs: { type: "integer", minimum: 0, maximum: 9007199254740991 },
      error: { anyOf: [{ type: "string" }, { type: "null" }] },
      attemptedAt: { type: "string", format: "date-time" }
    },
    required: [
      "id",
      "deliveryId",
      "deliveryStatus",
      "nextAttemptAt",
      "eventId",
      "eventType",
      "attempt",
      "statusCode",
      "durationMs",
      "error",
      "attemptedAt"
    ],
    additionalProperties: true
  },
  Webhook: {
    type: "object",
    properties: {
      id: { type: "string" },
      url: { type: "string", format: "uri" },
      events: { type: "array", items: { type: "string" } },
      createdAt: { type: "string", format: "date-time" },
      disabledAt: {
        anyOf: [{ type: "string", format: "date-time" }, { type: "null" }],
        description:
          "Set when the endpoint answered 410 Gone or a delivery spent all its retries; a disabled subscription receives nothing (its events are kept as `skipped` deliveries for `recover`) until it is enabled again"
      },
      disabledReason: {
        anyOf: [{ type: "string", enum: ["gone", "failing"] }, { type: "null" }],
        description: "`gone`: the endpoint answered 410; `failing`: a delivery failed after its last retry"
      }
    },
    required: ["id", "url", "events", "createdAt", "disabledAt", "disabledReason"],
    additionalProperties: true
  },
  WebhookCreate: {
    type: "object",
    properties: {
      url: { type: "string", maxLength: 2048, format: "uri" },
      events: {
        type: "array",
        items: {
          type: "string",
          enum: [
            "content.created",
            "content.approved",
            "content.published",
            "content.rejected",
            "workflow.completed",
            "team.invited"
          ]
        },
        minItems: 1,
        maxItems: 20,
        description: "1 to 20 event kinds; repeats are kept once"
      }
    },
    required: ["url", "events"],
    additionalProperties: true
  },
  WeeklyContentPlanOptions: {
    "type": "object",
    "properties": {
      "platforms": {
        "type": "array",
        "items": { "type": "string", "enum": ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"] },
        "maxItems": 6,
        "description": "Platforms to write for, in turn (default linkedin and x)"
      },
      "topics": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 500 },
        "maxItems": 20,
        "description": "Topics to write about, in turn (default: topics from the brand)"
      },
      "keywords": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 100 },
        "maxItems": 20,
        "description": "Keywords to work into the copy"
      },
      "postsPerWeek": {
        "type": "integer",
        "minimum": 1,
        "maximum": 21,
        "description": "Social posts per run (default 3)"
      },
      "scheduledAt": {
        "type": "string",
        "format": "date-time",
        "description": "When approved posts go out (a future instant; default at once)"
      },
      "brandName": { "type": "string", "minLength": 1, "maxLength": 200 },
      "description": { "type": "string", "minLength": 1, "maxLength": 2000 },
      "voice": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "The brand's voice"
        }]
      },
      "audience": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "Who the brand writes for"
        }]
      },
      "products": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 200 },
        "maxItems": 50,
        "description": "The brand's products"
      }
    },
    "additionalProperties": true,
    "description": "The options (`config`, and a run's `input`) of `weekly-content-plan`"
  },
  DailySocialPostsOptions: {
    "type": "object",
    "properties": {
      "platforms": {
        "type": "array",
        "items": { "type": "string", "enum": ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"] },
        "maxItems": 6,
        "description": "Platforms to write for, in turn (default linkedin and x)"
      },
      "topics": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 500 },
        "maxItems": 20,
        "description": "Topics to write about, in turn (default: topics from the brand)"
      },
      "keywords": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 100 },
        "maxItems": 20,
        "description": "Keywords to work into the copy"
      },
      "postsPerDay": {
        "type": "integer",
        "minimum": 1,
        "maximum": 12,
        "description": "Social posts per run (default one per platform)"
      },
      "scheduledAt": {
        "type": "string",
        "format": "date-time",
        "description": "When approved posts go out (a future instant; default at once)"
      },
      "brandName": { "type": "string", "minLength": 1, "maxLength": 200 },
      "description": { "type": "string", "minLength": 1, "maxLength": 2000 },
      "voice": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "The brand's voice"
        }]
      },
      "audience": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "Who the brand writes for"
        }]
      },
      "products": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 200 },
        "maxItems": 50,
        "description": "The brand's products"
      }
    },
    "additionalProperties": true,
    "description": "The options (`config`, and a run's `input`) of `daily-social-posts`"
  },
  MonthlySeoAuditOptions: {
    "type": "object",
    "properties": {
      "url": {
        "anyOf": [{ "type": "string", "maxLength": 2048, "format": "uri" }, { "type": "null" }],
        "description": "The site to audit (default: the brand profile's sourceUrl)"
      },
      "keywords": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 100 },
        "maxItems": 20,
        "description": "Keywords to work into the copy"
      },
      "brandName": { "type": "string", "minLength": 1, "maxLength": 200 },
      "description": { "type": "string", "minLength": 1, "maxLength": 2000 },
      "voice": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "The brand's voice"
        }]
      },
      "audience": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "Who the brand writes for"
        }]
      },
      "products": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 200 },
        "maxItems": 50,
        "description": "The brand's products"
      }
    },
    "additionalProperties": true,
    "description": "The options (`config`, and a run's `input`) of `monthly-seo-audit`"
  },
  CompetitorResearchOptions: {
    "type": "object",
    "properties": {
      "competitors": {
        "type": "array",
        "items": { "type": "string", "maxLength": 2048, "format": "uri" },
        "maxItems": 5,
        "description": "Competitors' sites (http(s) URLs) to scan and compare with"
      },
      "competitorNames": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 300 },
        "maxItems": 10,
        "description": "Competitors without a site to scan, named in the brief"
      },
      "topics": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 500 },
        "maxItems": 20,
        "description": "Topics to write about, in turn (default: topics from the brand)"
      },
      "topic": { "type": "string", "minLength": 1, "maxLength": 500 },
      "keywords": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 100 },
        "maxItems": 20,
        "description": "Keywords to work into the copy"
      },
      "brandName": { "type": "string", "minLength": 1, "maxLength": 200 },
      "description": { "type": "string", "minLength": 1, "maxLength": 2000 },
      "voice": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "The brand's voice"
        }]
      },
      "audience": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "Who the brand writes for"
        }]
      },
      "products": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 200 },
        "maxItems": 50,
        "description": "The brand's products"
      }
    },
    "additionalProperties": true,
    "description": "The options (`config`, and a run's `input`) of `competitor-research`"
  },
  LeadMagnetOptions: {
    "type": "object",
    "properties": {
      "topics": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 500 },
        "maxItems": 20,
        "description": "Topics to write about, in turn (default: topics from the brand)"
      },
      "topic": { "type": "string", "minLength": 1, "maxLength": 500 },
      "format": {
        "type": "string",
        "enum": ["checklist", "guide", "template", "ebook"],
        "description": "The lead magnet's format"
      },
      "keywords": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 100 },
        "maxItems": 20,
        "description": "Keywords to work into the copy"
      },
      "brandName": { "type": "string", "minLength": 1, "maxLength": 200 },
      "description": { "type": "string", "minLength": 1, "maxLength": 2000 },
      "voice": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "The brand's voice"
        }]
      },
      "audience": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "Who the brand writes for"
        }]
      },
      "products": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 200 },
        "maxItems": 50,
        "description": "The brand's products"
      }
    },
    "additionalProperties": true,
    "description": "The options (`config`, and a run's `input`) of `lead-magnet`"
  },
  PerformanceReportOptions: {
    "type": "object",
    "properties": {
      "period": {
        "type": "string",
        "enum": ["7d", "30d", "90d", "last_7_days", "last_30_days", "last_90_days"],
        "description": "The period reported on (default 7d)"
      },
      "keywords": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 100 },
        "maxItems": 20,
        "description": "Keywords to work into the copy"
      },
      "brandName": { "type": "string", "minLength": 1, "maxLength": 200 },
      "description": { "type": "string", "minLength": 1, "maxLength": 2000 },
      "voice": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "The brand's voice"
        }]
      },
      "audience": {
        "anyOf": [{ "type": "string", "minLength": 1, "maxLength": 300 }, {
          "type": "array",
          "items": { "type": "string", "minLength": 1, "maxLength": 300 },
          "maxItems": 20,
          "description": "Who the brand writes for"
        }]
      },
      "products": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 200 },
        "maxItems": 50,
        "description": "The brand's products"
      }
    },
    "additionalProperties": true,
    "description": "The options (`config`, and a run's `input`) of `performance-report`"
  },
  WorkflowRunRequest: {
    "type": "object",
    "properties": {
      "input": {
        "type": "object",
        "maxProperties": 50,
        "allOf": [{
          "anyOf": [
            { "$ref": "#/$defs/WeeklyContentPlanOptions" },
            { "$ref": "#/$defs/DailySocialPostsOptions" },
            { "$ref": "#/$defs/MonthlySeoAuditOptions" },
            { "$ref": "#/$defs/CompetitorResearchOptions" },
            { "$ref": "#/$defs/LeadMagnetOptions" },
            { "$ref": "#/$defs/PerformanceReportOptions" }
          ],
          "description":
            "The workflow's options: each workflow takes its own (see its schema among these); an unknown option or a wrong value is 400 naming it"
        }]
      }
    },
    "additionalProperties": true,
    "description": "`input` overrides the workflow's config for this run"
  },
  WorkflowRunStep: {
    type: "object",
    properties: {
      name: { type: "string" },
      status: { type: "string", enum: ["running", "succeeded", "failed", "skipped"] },
      startedAt: { type: "string", format: "date-time" },
      completedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      error: { anyOf: [{ type: "string" }, { type: "null" }] },
      detail: { anyOf: [{ type: "object" }, { type: "null" }] }
    },
    required: ["name", "status", "startedAt", "completedAt", "error", "detail"],
    additionalProperties: true
  },
  WorkflowToggle: {
    type: "object",
    properties: {
      enabled: { type: "boolean" }
    },
    required: ["enabled"],
    additionalProperties: true
  },
  Workflow: {
    type: "object",
    properties: {
      id: { type: "string" },
      name: { type: "string" },
      description: { type: "string" },
      enabled: { type: "boolean" },
      schedule: { anyOf: [{ type: "string" }, { type: "null" }] },
      timezone: { type: "string" },
      config: { type: "object" },
      nextRunAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] }
    },
    required: ["id", "name", "description", "enabled", "schedule", "timezone", "config", "nextRunAt"],
    additionalProperties: true
  },
  WorkflowRun: {
    type: "object",
    properties: {
      runId: { type: "string" },
      workflow: { type: "string" },
      status: { type: "string", enum: ["pending", "running", "suspended", "succeeded", "failed"] },
      startedAt: { type: "string", format: "date-time" },
      completedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      error: { anyOf: [{ type: "string" }, { type: "null" }] }
    },
    required: ["runId", "workflow", "status", "startedAt", "completedAt", "error"],
    additionalProperties: true
  },
  WorkflowRunDetail: {
    type: "object",
    properties: {
      runId: { type: "string" },
      workflow: { type: "string" },
      status: { type: "string", enum: ["pending", "running", "suspended", "succeeded", "failed"] },
      startedAt: { type: "string", format: "date-time" },
      completedAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      error: { anyOf: [{ type: "string" }, { type: "null" }] },
      steps: { type: "array", items: { $ref: "#/$defs/WorkflowRunStep" } },
      output: { anyOf: [{ type: "object" }, { type: "null" }] }
    },
    required: ["runId", "workflow", "status", "startedAt", "completedAt", "error", "steps", "output"],
    additionalProperties: true
  },
  WorkflowUpdate: {
    "type": "object",
    "properties": {
      "schedule": { "anyOf": [{ "type": "string" }, { "type": "null" }] },
      "timezone": { "type": "string" },
      "name": { "type": "string", "minLength": 1, "maxLength": 100 },
      "description": { "type": "string", "maxLength": 1000 },
      "config": {
        "type": "object",
        "maxProperties": 50,
        "allOf": [{
          "anyOf": [
            { "$ref": "#/$defs/WeeklyContentPlanOptions" },
            { "$ref": "#/$defs/DailySocialPostsOptions" },
            { "$ref": "#/$defs/MonthlySeoAuditOptions" },
            { "$ref": "#/$defs/CompetitorResearchOptions" },
            { "$ref": "#/$defs/LeadMagnetOptions" },
            { "$ref": "#/$defs/PerformanceReportOptions" }
          ],
          "description":
            "The workflow's options: each workflow takes its own (see its schema among these); an unknown option or a wrong value is 400 naming it"
        }]
      }
    },
    "additionalProperties": true,
    "description": "Only `schedule`, `timezone`, `name`, `description` and `config`; any other property is 400"
  }
}
const topLevel: Record<string, unknown> = {
  "Identity.Actor": { $ref: "#/$defs/EventActor" },
  "Identity.ActorType": { type: "string", enum: ["owner", "member", "admin", "agent", "workflow", "system"] },
  "Identity.Customer": { $ref: "#/$defs/Customer" },
  "Identity.CustomerStatus": { type: "string", enum: ["onboarding", "active", "suspended", "cancelled"] },
  "Identity.Email": { type: "string", maxLength: 254, allOf: [{ format: "email" }] },
  "Identity.Event": { $ref: "#/$defs/Event" },
  "Identity.InvitedMember": { $ref: "#/$defs/InvitedMember" },
  "Identity.IssuedKey": { $ref: "#/$defs/IssuedKey" },
  "Identity.MemberRole": { type: "string", enum: ["admin", "editor", "viewer"] },
  "Identity.ProvisionRequest": { $ref: "#/$defs/ProvisionRequest" },
  "Identity.ProvisionResult": { $ref: "#/$defs/ProvisionResult" },
  "Identity.Role": { type: "string", enum: ["owner", "admin", "editor", "viewer"] },
  "Identity.TeamInvite": { $ref: "#/$defs/TeamInvite" },
  "Identity.TeamMember": { $ref: "#/$defs/TeamMember" },
  "Billing.CheckoutCreated": { $ref: "#/$defs/CheckoutCreated" },
  "Billing.CheckoutRequest": { $ref: "#/$defs/CheckoutRequest" },
  "Billing.CheckoutSessionResult": { $ref: "#/$defs/CheckoutSessionResult" },
  "Billing.PaymentEvent": { $ref: "#/$defs/PaymentEvent" },
  "Billing.PaymentEventReceived": { $ref: "#/$defs/PaymentEventReceived" },
  "Chat.ChatMessage": {
    type: "object",
    properties: {
      messageId: { type: "string" },
      role: { type: "string", enum: ["user", "assistant", "tool"] },
      content: { type: "string", description: "The text; for a tool message, JSON `{name, arguments, result}`" },
      createdAt: { type: "string", format: "date-time" }
    },
    required: ["messageId", "role", "content", "createdAt"],
    additionalProperties: true
  },
  "Chat.ChatRequest": {
    type: "object",
    properties: {
      message: { type: "string", minLength: 1, maxLength: 10000 },
      threadId: { anyOf: [{ type: "string", maxLength: 200 }, { type: "null" }] }
    },
    required: ["message"],
    additionalProperties: true
  },
  "Chat.ChatRole": { type: "string", enum: ["user", "assistant", "tool"] },
  "Chat.ChatThread": {
    type: "object",
    properties: {
      threadId: { type: "string" },
      messages: {
        type: "array",
        items: {
          type: "object",
          properties: {
            messageId: { type: "string" },
            role: { type: "string", enum: ["user", "assistant", "tool"] },
            content: { type: "string", description: "The text; for a tool message, JSON `{name, arguments, result}`" },
            createdAt: { type: "string", format: "date-time" }
          },
          required: ["messageId", "role", "content", "createdAt"],
          additionalProperties: true
        }
      }
    },
    required: ["threadId", "messages"],
    additionalProperties: true
  },
  "Chat.ChatThreadSummary": {
    type: "object",
    properties: {
      threadId: { type: "string" },
      title: { type: "string" },
      createdAt: { type: "string", format: "date-time" },
      updatedAt: { type: "string", format: "date-time" },
      messageCount: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 }
    },
    required: ["threadId", "title", "createdAt", "updatedAt", "messageCount"],
    additionalProperties: true
  },
  "Content.Body": { type: "string", minLength: 1, maxLength: 100000 },
  "Content.ContentPiece": { $ref: "#/$defs/ContentPiece" },
  "Content.ContentStatus": { type: "string", enum: ["draft", "pending_approval", "approved", "published", "rejected"] },
  "Content.ContentType": { type: "string", enum: ["blog", "social", "email", "ad", "outreach"] },
  "Content.ContentUpdate": { $ref: "#/$defs/ContentUpdate" },
  "Content.Metadata": { type: "object", maxProperties: 50, propertyNames: { type: "string", maxLength: 40 } },
  "Content.NewContent": { $ref: "#/$defs/NewContent" },
  "Content.Platform": {
    type: "string",
    description: "Where the piece goes: x, linkedin, instagram, facebook, tiktok, pinterest, or another channel name"
  },
  "Content.Review": { $ref: "#/$defs/ContentReview" },
  "Content.ReviewAction": { type: "string", enum: ["approve", "reject"] },
  "Content.ReviewNote": { type: "string", maxLength: 1000 },
  "Content.Title": { type: "string", minLength: 1, maxLength: 300 },
  "Health.ComponentDetail": {
    type: "object",
    properties: {
      name: { type: "string" },
      status: { type: "string", enum: ["ok", "degraded", "down"] },
      latencyMs: { anyOf: [{ type: "number", minimum: 0 }, { type: "null" }] },
      error: { anyOf: [{ type: "string" }, { type: "null" }] }
    },
    required: ["name", "status", "latencyMs"],
    additionalProperties: true
  },
  "Health.ComponentStatus": { type: "string", enum: ["ok", "degraded", "down"] },
  "Health.Health": { $ref: "#/$defs/Health" },
  "Health.HealthReady": { $ref: "#/$defs/HealthReady" },
  "Health.Incident": { $ref: "#/$defs/Incident" },
  "Health.NotReady": { $ref: "#/$defs/NotReadyEncoded" },
  "Health.PublicStatus": { $ref: "#/$defs/PublicStatus" },
  "Health.ServiceName": { type: "string", enum: ["herald"] },
  "Onboarding.AutoExtractRequest": { $ref: "#/$defs/AutoExtractRequest" },
  "Onboarding.BrandProfile": { $ref: "#/$defs/BrandProfile" },
  "Onboarding.ConfirmedProfile": { $ref: "#/$defs/ConfirmedProfile" },
  "Onboarding.OnboardingStarted": { $ref: "#/$defs/OnboardingStarted" },
  "Onboarding.ProfileConfirmed": { $ref: "#/$defs/ProfileConfirmed" },
  "Scan.ChecklistItemSchema": { $ref: "#/$defs/ChecklistItem" },
  "Scan.PageUrl": { type: "string", maxLength: 2048, format: "uri" },
  "Scan.ScanRequest": { $ref: "#/$defs/ScanRequest" },
  "Scan.ScanResult": { $ref: "#/$defs/ScanResult" },
  "Scan.ScanSummary": { $ref: "#/$defs/ScanSummary" },
  "Scan.ScanList": { $ref: "#/$defs/ScanList" },
  "Settings.Amount": { type: "number", minimum: 0 },
  "Settings.Autonomy": { $ref: "#/$defs/Autonomy" },
  "Settings.AutonomyLevel": {
    type: "integer",
    minimum: 1,
    maximum: 5,
    description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once"
  },
  "Settings.AutonomyUpdate": { $ref: "#/$defs/AutonomyUpdate" },
  "Settings.Budget": { $ref: "#/$defs/Budget" },
  "Settings.BudgetChannel": {
    type: "string",
    enum: ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest", "ads", "model"]
  },
  "Settings.BudgetUpdate": { $ref: "#/$defs/BudgetUpdate" },
  "Settings.Settings": { $ref: "#/$defs/Settings" },
  "Settings.Tracking": { $ref: "#/$defs/Tracking" },
  "Settings.TrackingUpdate": { $ref: "#/$defs/TrackingUpdate" },
  "Social.AnalyticsPeriod": { type: "string", enum: ["last_7_days", "last_30_days", "last_90_days"] },
  "Social.AnalyticsReport": { $ref: "#/$defs/AnalyticsReport" },
  "Social.ChannelMetrics": { $ref: "#/$defs/ChannelMetrics" },
  "Social.ConnectLinks": { $ref: "#/$defs/ConnectLinks" },
  "Social.ConnectRequest": { $ref: "#/$defs/ConnectRequest" },
  "Social.Connections": { $ref: "#/$defs/SocialConnections" },
  "Social.MediaUri": { type: "string", maxLength: 2048, format: "uri" },
  "Social.PublishAttempt": { $ref: "#/$defs/PublishAttempt" },
  "Social.SocialConnection": { $ref: "#/$defs/SocialConnection" },
  "Social.SocialPlatform": { type: "string", enum: ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"] },
  "WebhookEvents.WebhookEventType": {
    type: "string",
    enum: [
      "content.created",
      "content.approved",
      "content.published",
      "content.rejected",
      "workflow.completed",
      "team.invited"
    ]
  },
  "WebhookPayloads.WebhookTestData": { $ref: "#/$defs/WebhookTestData" },
  "Webhooks.CreatedWebhook": { $ref: "#/$defs/CreatedWebhook" },
  "Webhooks.Delivery": { $ref: "#/$defs/WebhookDelivery" },
  "Webhooks.DeliveryAttempt": { $ref: "#/$defs/DeliveryAttempt" },
  "Webhooks.DeliveryStatus": { type: "string", enum: ["pending", "succeeded", "failed", "cancelled", "skipped"] },
  "Webhooks.Webhook": { $ref: "#/$defs/Webhook" },
  "Webhooks.WebhookCreate": { $ref: "#/$defs/WebhookCreate" },
  "Webhooks.WebhookDisabledReason": { type: "string", enum: ["gone", "failing"] },
  "Webhooks.WebhookUrl": { type: "string", maxLength: 2048, format: "uri" },
  "Workflows.RunRequest": { $ref: "#/$defs/WorkflowRunRequest" },
  "Workflows.RunStatus": { type: "string", enum: ["pending", "running", "suspended", "succeeded", "failed"] },
  "Workflows.RunStep": { $ref: "#/$defs/WorkflowRunStep" },
  "Workflows.StepStatus": { type: "string", enum: ["running", "succeeded", "failed", "skipped"] },
  "Workflows.TimeZone": { type: "string" },
  "Workflows.Toggle": { $ref: "#/$defs/WorkflowToggle" },
  "Workflows.Workflow": { $ref: "#/$defs/Workflow" },
  "Workflows.WorkflowConfig": {
    "type": "object",
    "maxProperties": 50,
    "allOf": [{
      "anyOf": [
        { "$ref": "#/$defs/WeeklyContentPlanOptions" },
        { "$ref": "#/$defs/DailySocialPostsOptions" },
        { "$ref": "#/$defs/MonthlySeoAuditOptions" },
        { "$ref": "#/$defs/CompetitorResearchOptions" },
        { "$ref": "#/$defs/LeadMagnetOptions" },
        { "$ref": "#/$defs/PerformanceReportOptions" }
      ],
      "description":
        "The workflow's options: each workflow takes its own (see its schema among these); an unknown option or a wrong value is 400 naming it"
    }]
  },
  "Workflows.WorkflowRun": { $ref: "#/$defs/WorkflowRun" },
  "Workflows.WorkflowRunDetail": { $ref: "#/$defs/WorkflowRunDetail" },
  "Workflows.WorkflowUpdate": { $ref: "#/$defs/WorkflowUpdate" },
  "Text.HttpUrl": { type: "string", maxLength: 2048, format: "uri" },
  "Text.PathId": { type: "string" }
}

const modules: Record<string, Record<string, unknown>> = {
  Identity,
  Billing,
  Chat,
  Content,
  Health,
  Onboarding,
  Scan,
  Settings,
  Social,
  WebhookEvents,
  WebhookPayloads,
  Webhooks,
  Workflows,
  Text
}

describe("published JSON Schema of the domain's wire schemas", () => {
  it("every exported schema is listed, and documents exactly as written here", () => {
    const seen: Array<string> = []
    for (const [moduleName, module] of Object.entries(modules)) {
      for (const [name, value] of Object.entries(module)) {
        if (!Schema.isSchema(value)) continue
        const key = `${moduleName}.${name}`
        seen.push(key)
        const document = Schema.toJsonSchemaDocument(value as Schema.Top)
        assert.deepStrictEqual(document.schema, topLevel[key], key)
        for (const [definition, schema] of Object.entries(document.definitions)) {
          assert.deepStrictEqual(schema, definitions[definition], `${key}: ${definition}`)
        }
      }
    }
    assert.deepStrictEqual(seen.sort(), Object.keys(topLevel).sort())
  })

  it("descriptions are real sentences, never empty", () => {
    const descriptions: Array<string> = []
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(walk)
      if (typeof value !== "object" || value === null) return
      for (const [key, inner] of Object.entries(value)) {
        if (key === "description" && typeof inner === "string") descriptions.push(inner)
        else walk(inner)
      }
    }
    walk(definitions)
    walk(topLevel)
    assert.isAbove(descriptions.length, 30)
    for (const text of descriptions) assert.match(text, /^\S.{9,}$/s, text)
  })
})
