import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ContentPiece } from "../domain/Content.ts"
import {
  BudgetExceeded,
  InvalidState,
  InvalidTransition,
  PlatformNotConnected,
  Unavailable,
  ValidationError
} from "../domain/Errors.ts"
import { ContentIdPath } from "../domain/Ids.ts"
import {
  AnalyticsPeriod,
  AnalyticsReport,
  Connections,
  ConnectLinks,
  ConnectRequest,
  MediaUri,
  PublishAttempt,
  SocialPlatform,
  withinPlatformRules
} from "../domain/Social.ts"
import { isMaxChars, storableText } from "../domain/Text.ts"
import { Authentication, RequiredRole } from "./Security.ts"
import { CustomerIdParam, DateTime, EmptyObject, NotFoundError, strictParse, StrictPayload } from "./Shared.ts"

export const PublishRequest = Schema.Struct({
  platform: SocialPlatform,
  body: Schema.String.check(Schema.isMinLength(1), isMaxChars(63206), storableText),
  media: Schema.optionalKey(Schema.Array(MediaUri).check(Schema.isMaxLength(20))),
  scheduledAt: Schema.optionalKey(DateTime.annotate({
    description:
      "An instant with its offset (`Z` or `±hh:mm`), honoured as given; stored in UTC. A past instant is 400."
  })),
  spend: Schema.optionalKey(
    Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
      description:
        "Ad spend of this post: it becomes an `ad` piece and is charged to the `ads` budget channel now (403 `E_BUDGET_EXCEEDED` past a cap)"
    })
  )
}).check(withinPlatformRules).annotate({
  identifier: "PublishRequest",
  description:
    "Body limits: x 280, linkedin 3000, instagram 2200 (media required), facebook 63206, tiktok 2200 (media required), pinterest 500 (media required)."
})
export type PublishRequest = typeof PublishRequest.Type

const PostParams = { ...CustomerIdParam, contentId: ContentIdPath }

export const PublishPieceRequest = Schema.Struct({
  platform: Schema.optionalKey(SocialPlatform.annotate({
    description:
      "Where to publish; the piece's own platform when omitted (required when it has none). The piece's platform becomes it."
  })),
  scheduledAt: Schema.optionalKey(DateTime.annotate({
    description:
      "An instant with its offset (`Z` or `±hh:mm`), honoured as given; stored in UTC. Omitted: now. A past instant is 400."
  }))
}).annotate({ identifier: "PublishPieceRequest" })

const publisher =
  "The publisher claims due posts from a PostgreSQL queue (FOR UPDATE SKIP LOCKED, with a lease), so several instances never post one piece twice. Every try is recorded as an attempt. Transient failures are retried after 1, 4, 10 and 15 minutes (5 tries); before each retry the provider is asked whether the post already exists, so an answer lost in a crash never leads to a second post. A final failure leaves the piece `approved` and writes `publish.failed` `{contentId, platform, cause}`. Success: `published`, `publishedUrl`, `publishedAt`, `content.published` event and webhook."

export class SocialApi extends HttpApiGroup.make("social")
  .add(
    HttpApiEndpoint.get("connections", "/api/social/connections/:customerId", {
      params: CustomerIdParam,
      success: Schema.Struct({ connections: Connections })
    }).annotateMerge(OpenApi.annotations({
      summary: "Social connections",
      description:
        "One SocialConnection per platform (x, linkedin, instagram, facebook, tiktok, pinterest): `connected`, `accountName`, `connectedAt`."
    })),
    HttpApiEndpoint.post("publish", "/api/social/publish/:customerId", {
      params: CustomerIdParam,
      payload: PublishRequest,
      success: ContentPiece,
      error: [ValidationError, PlatformNotConnected, BudgetExceeded]
    }).annotate(RequiredRole, "editor").annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Publish or schedule a social post",
      description:
        `Answers the piece \`approved\` (queued) with \`scheduledAt\` (null for now). Checks in order: per-platform rules and a past \`scheduledAt\` (400 \`E_VALIDATION\`), the platform connected (403 \`E_PLATFORM_NOT_CONNECTED\`), the budget for \`spend\` (403 \`E_BUDGET_EXCEEDED\`). A future \`scheduledAt\` writes \`content.scheduled\`. ${publisher} Editor role.`
    })),
    HttpApiEndpoint.get("attempts", "/api/social/posts/:customerId/:contentId/attempts", {
      params: PostParams,
      success: Schema.Struct({ attempts: Schema.Array(PublishAttempt) }),
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Publish attempts of a piece",
      description:
        `Oldest first. \`status\`: \`sent\` (the provider took it), \`failed\` (with \`error\`), \`reconciled\` (found already posted before a retry). ${publisher}`
    })),
    HttpApiEndpoint.post("publishPiece", "/api/social/posts/:customerId/:contentId/publish", {
      params: PostParams,
      payload: [PublishPieceRequest, Schema.Null],
      success: ContentPiece,
      error: [NotFoundError, InvalidTransition, ValidationError, PlatformNotConnected, BudgetExceeded]
    }).annotate(RequiredRole, "editor").annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Publish or schedule an approved piece",
      description:
        `Answers the piece \`approved\` (queued) with \`scheduledAt\` (null for now); it becomes \`published\` when the network accepts it. Checks in order: a past \`scheduledAt\` (400 \`E_VALIDATION\`), the piece (404 unknown), its status (409 \`E_INVALID_TRANSITION\` unless \`approved\`), a social platform (400 naming \`body.platform\`), the platform's rules for its body and \`metadata.media\` (400 \`E_VALIDATION\`, e.g. \`body.media\`: instagram posts need at least one media item), the platform connected (403 \`E_PLATFORM_NOT_CONNECTED\`), the budget for an \`ad\` piece's \`metadata.spend\` (403 \`E_BUDGET_EXCEEDED\`, charged once per piece whichever path queues it). A future \`scheduledAt\` writes \`content.scheduled\`. Every publishing path (this, \`POST /api/social/publish/{customerId}\`, retry, workflows, MCP tools, the dashboard) applies the same rules. ${publisher} Editor role.`
    })),
    HttpApiEndpoint.post("retry", "/api/social/posts/:customerId/:contentId/retry", {
      params: PostParams,
      payload: EmptyObject,
      success: ContentPiece,
      error: [NotFoundError, InvalidTransition, ValidationError, PlatformNotConnected, BudgetExceeded]
    }).annotate(RequiredRole, "editor").annotateMerge(OpenApi.annotations({
      summary: "Queue a piece again",
      description:
        "Queues an approved, unpublished social piece for publication now (after a final failure, a cancel, or for an approved piece never queued), with a fresh set of 5 tries. 409 when published or not approved. The platform's rules apply as on every publishing path (400 `E_VALIDATION`, e.g. `body.media` for an instagram piece without media). An `ad` piece's `metadata.spend` is charged to the `ads` budget channel the first time the piece is queued, by whichever path (403 `E_BUDGET_EXCEEDED` past a cap, nothing queued); queueing it again charges nothing. Editor role."
    })),
    HttpApiEndpoint.post("cancel", "/api/social/posts/:customerId/:contentId/cancel", {
      params: PostParams,
      payload: EmptyObject,
      success: ContentPiece,
      error: [NotFoundError, InvalidTransition]
    }).annotate(RequiredRole, "editor").annotateMerge(OpenApi.annotations({
      summary: "Take a piece off the queue",
      description:
        "The piece stays `approved` with `scheduledAt` null and is not published until queued again. 409 when published. Editor role."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({ title: "Social", description: "Platform connections, publishing and scheduling" })
  )
{}

export class ConnectionsApi extends HttpApiGroup.make("connections")
  .add(
    HttpApiEndpoint.get("list", "/api/connections/:customerId", {
      params: CustomerIdParam,
      success: Schema.Struct({ customerId: Schema.String, connections: Connections })
    }).annotateMerge(OpenApi.annotations({
      summary: "Platform connections",
      description: "`connections` maps each of the six platforms to `{connected, accountName, connectedAt}`."
    })),
    HttpApiEndpoint.post("connect", "/api/connect/:customerId", {
      params: CustomerIdParam,
      payload: [ConnectRequest, Schema.Null],
      success: ConnectLinks,
      error: [ValidationError, Unavailable]
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Links to connect platforms",
      description:
        "`platforms` (optional; default all six) names x, linkedin, instagram, facebook, tiktok or pinterest; another name or a non-array is 400. Each link is valid for 15 minutes and once: it leads through the provider's consent (the sandbox's own page by default) to `/api/integration/callback`, which connects the platform, writes `platform.connected` and returns the person to `/dashboard`. Admin role."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Connections", description: "Onboarding: connecting social platforms" }))
{}

export class IntegrationApi extends HttpApiGroup.make("integration")
  .add(
    HttpApiEndpoint.get("callback", "/api/integration/callback", {
      query: {
        // No length bound: an overlong state is forged like any other (400 E_INVALID_STATE, not E_VALIDATION).
        state: Schema.optional(Schema.String),
        // The sandbox consent page's proof that the person pressed Allow (any value that is not it is refused).
        consent: Schema.optional(Schema.String),
        account: Schema.optional(Schema.String.check(isMaxChars(100), storableText))
      },
      success: HttpApiSchema.Empty(302),
      error: [InvalidState, Unavailable]
    }).annotateMerge(OpenApi.annotations({
      summary: "Integration callback",
      description:
        "Where a connect flow returns. `state` is the signed, single-use, 15-minute token of the connect link: when it is missing, forged, reused or expired the answer is 400 `E_INVALID_STATE` and nothing is connected. With the sandbox provider the callback also needs `consent`, the token its consent page's Allow adds: without it, or with a wrong one, the answer is 400 `E_INVALID_STATE`, nothing is connected and the link stays usable. Otherwise the platform is connected, `platform.connected` is written, and the answer is a 302 to `/dashboard`. No authentication: the state is the credential."
    }))
  )
  .annotateMerge(OpenApi.annotations({ title: "Integration", description: "Third-party integration callbacks" }))
{}

export class AnalyticsApi extends HttpApiGroup.make("analytics")
  .add(
    HttpApiEndpoint.get("report", "/api/analytics/:customerId", {
      params: CustomerIdParam,
      query: { period: Schema.optional(AnalyticsPeriod.annotate({ default: "last_7_days" })) },
      success: AnalyticsReport
    }).annotateMerge(OpenApi.annotations({
      summary: "Analytics overview",
      description:
        "Over the period (default `last_7_days`): per channel (x, linkedin, instagram, facebook, tiktok, pinterest, `web`, `email`) `{posts, clicks, impressions, engagements, revenue}`, and `totals` of the same five. Posts are pieces published in the period; clicks are human clicks on tracked links (known bots excluded), counted under the platform of the post the link was in, else under `web`; impressions and engagements are what the provider reports (the sandbox reports none: 0, never estimated); revenue is what `track_revenue` recorded."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Analytics", description: "Performance across channels" }))
{}
