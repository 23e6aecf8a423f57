import { Schema } from "effect"
import { ContentType, Platform } from "../../domain/Content.ts"
import { PageUrl } from "../../domain/Scan.ts"
import { AnalyticsPeriod, SocialPlatform, withinPlatformRules } from "../../domain/Social.ts"
import { isMaxChars, storableText } from "../../domain/Text.ts"
import { DateTime } from "../Shared.ts"
import { PublishRequest } from "../Social.ts"

/**
 * Argument schemas of the tools. Where the REST API has the same field its
 * schema is used as it is (content type and platform, social platform and the
 * publish request's body, media, scheduledAt and spend with the platform
 * rules, the page url of scans and auto-extract, the analytics period), so
 * MCP and REST accept and refuse the same values; the tools only add
 * descriptions a model can act on.
 */

// Annotations go before the checks: one after a check without a JSON Schema form is dropped from the generated schema.
export const CustomerId = Schema.String.annotate({
  format: "uuid",
  description: "The customer's id (the same id as in the REST paths). It must be the id of the API key's own customer."
}).check(Schema.isMinLength(1), isMaxChars(100), storableText).pipe(Schema.brand("CustomerId"))

/** Free text of at most `max` characters, none empty, all storable. */
export const text = (max: number, description: string) =>
  Schema.String.annotate({ description }).check(Schema.isMinLength(1), isMaxChars(max), storableText)

/**
 * A check that accepts everything and carries `description` into the JSON
 * Schema: describes a shared schema whose last check has no JSON Schema form
 * (where `annotate` would be dropped), without changing what it accepts.
 */
const describedAs = (description: string) => Schema.makeFilter(() => true, { description, toJsonSchema: () => ({}) })

/** The scan and auto-extract url (absolute http(s), at most 2048 characters), described for the tool. */
const pageUrl = (description: string) => PageUrl.annotate({ description })

export const RunContentCreationInput = Schema.Struct({
  customerId: CustomerId,
  type: ContentType.annotate({ description: "Kind of piece: blog, social, email, ad or outreach" }),
  topic: text(300, "What the piece is about; becomes its title"),
  platform: Schema.optionalKey(Platform),
  brief: Schema.optionalKey(text(5000, "Points the piece must make, one per sentence or line")),
  keywords: Schema.optionalKey(
    Schema.Array(text(60, "A keyword or phrase to cover")).check(Schema.isMaxLength(10))
      .annotate({ description: "Up to 10 keywords or phrases to cover" })
  ),
  callToAction: Schema.optionalKey(text(300, "The action the reader should take, e.g. 'Book a demo'")),
  url: Schema.optionalKey(pageUrl("Link the piece points to (absolute http(s) URL)"))
})

export const RunResearchInput = Schema.Struct({
  customerId: CustomerId,
  topic: text(500, "The market, audience or question to research"),
  competitors: Schema.optionalKey(
    Schema.Array(text(300, "A competitor's name or URL")).check(Schema.isMaxLength(10))
      .annotate({ description: "Up to 10 competitors (names or URLs) to compare against" })
  )
})

export const AskCmoInput = Schema.Struct({
  customerId: CustomerId,
  question: text(10_000, "The marketing question, in plain language")
})

const publish = PublishRequest.fields

/** The publish request's fields (REST POST /api/social/publish), described for a model. */
const PostFields = {
  customerId: CustomerId,
  platform: SocialPlatform.annotate({
    description: "The social network: x, linkedin, instagram, facebook, tiktok or pinterest (it must be connected)"
  }),
  body: publish.body.check(describedAs(
    "The post's text; it must fit the platform: x 280, linkedin 3000, instagram 2200, facebook 63206, tiktok 2200, pinterest 500 characters"
  )),
  media: publish.media.annotate({
    description: "Up to 20 image or video URLs (http(s)); instagram, tiktok and pinterest posts need at least one"
  }),
  spend: publish.spend.annotate({
    description:
      "Ad spend of this post, in the account currency: it becomes an ad piece and is charged to the ads budget now (E_BUDGET_EXCEEDED past a cap)"
  }),
  contentId: Schema.optionalKey(
    text(
      100,
      "An existing social piece of the content queue to post instead of a new one (its id, as run_content_creation answered it): a draft or pending_approval piece is approved, with body as its text, then queued; no second piece is made"
    ).pipe(Schema.brand("ContentId"))
  )
}

/** A piece already in the queue has its own spend (an ad's): spend goes with a new post only. */
const spendWithNewPostOnly = Schema.makeFilter(
  (input: { readonly spend?: number | undefined; readonly contentId?: string | undefined }) =>
    input.spend === undefined || input.contentId === undefined
      ? undefined
      : { path: ["spend"], issue: "goes with a new post only: leave it out with contentId" }
)

export const ScheduleContentInput = Schema.Struct({
  ...PostFields,
  scheduledAt: DateTime.annotate({
    description: "When to publish: an ISO 8601 date-time with its zone (Z or ±hh:mm), in the future"
  })
}).check(withinPlatformRules, spendWithNewPostOnly)

export const PublishToSocialInput = Schema.Struct({
  ...PostFields,
  scheduledAt: Schema.optionalKey(DateTime.annotate({
    description: "Publish later at this ISO 8601 date-time with its zone instead of now; it must be in the future"
  }))
}).check(withinPlatformRules, spendWithNewPostOnly)

export const GenerateLeadMagnetInput = Schema.Struct({
  customerId: CustomerId,
  topic: text(300, "What the lead magnet teaches or solves"),
  format: Schema.optionalKey(
    Schema.Literals(["checklist", "guide", "template", "ebook"]).annotate({ description: "Format (default checklist)" })
  ),
  audience: Schema.optionalKey(text(300, "Who it is for"))
})

export const UrlAuditInput = Schema.Struct({
  customerId: CustomerId,
  url: pageUrl("The page to audit: an absolute http(s) URL, at most 2048 characters")
})

export const QueryGa4Input = Schema.Struct({
  customerId: CustomerId,
  period: Schema.optionalKey(
    AnalyticsPeriod.annotate({ description: "Reporting window: last_7_days (default), last_30_days or last_90_days" })
  ),
  metrics: Schema.optionalKey(
    Schema.Array(
      Schema.String.check(Schema.isPattern(/^[A-Za-z][A-Za-z0-9_:]{0,99}$/, { message: "must be a GA4 metric name" }))
    )
      .check(Schema.isMinLength(1), Schema.isMaxLength(10))
      .annotate({
        description: "GA4 metric names (default sessions, totalUsers, screenPageViews, conversions); at most 10"
      })
  ),
  dimensions: Schema.optionalKey(
    Schema.Array(
      Schema.String.check(
        Schema.isPattern(/^[A-Za-z][A-Za-z0-9_:]{0,99}$/, { message: "must be a GA4 dimension name" })
      )
    )
      .check(Schema.isMaxLength(9))
      .annotate({
        description: "GA4 dimension names to break the figures down by, e.g. date, sessionSource; at most 9"
      })
  ),
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })).annotate({
      description: "Rows at most (default 100)"
    })
  )
})

/** Whole or fractional, at most 6 decimal places (what the revenue table keeps). */
const atMostSixDecimals = Schema.makeFilter((n: number) =>
  Number(n.toFixed(6)) === n || "must have at most 6 decimal places"
)

/** The ISO 4217 codes this runtime knows (ICU's list). */
const currencyCodes = new Set(Intl.supportedValuesOf("currency"))

export const RevenueAmount = Schema.Finite.annotate({
  description:
    "Amount earned, in the currency's major unit (49.90 is forty-nine ninety), more than 0 and at most 1000000000, at most 6 decimals"
}).check(
  Schema.isGreaterThan(0),
  Schema.isLessThanOrEqualTo(1_000_000_000),
  atMostSixDecimals
)

export const CurrencyCode = Schema.String.annotate({
  description: "ISO 4217 currency code, e.g. USD, EUR, GBP (stored in capitals)"
}).check(
  Schema.isPattern(/^[A-Za-z]{3}$/, { message: "must be a three-letter ISO 4217 code such as USD" }),
  Schema.makeFilter((code: string) =>
    currencyCodes.has(code.toUpperCase()) || "must be an ISO 4217 currency code such as USD"
  )
)

/** Links.trackRevenue's input (amount, currency, contentId, link, campaign), plus the customer. */
export const TrackRevenueInput = Schema.Struct({
  customerId: CustomerId,
  amount: RevenueAmount,
  currency: CurrencyCode,
  contentId: Schema.optionalKey(
    text(100, "The content piece that earned it (its id); the revenue counts under its platform, email or web")
      .pipe(Schema.brand("ContentId"))
  ),
  link: Schema.optionalKey(
    text(
      2048,
      "The tracked link that earned it: its code or its full /r/{code} address; the revenue counts under the link's platform"
    )
  ),
  campaign: Schema.optionalKey(text(200, "A campaign name to group revenue by"))
})

export const CheckAiVisibilityInput = Schema.Struct({
  customerId: CustomerId,
  url: pageUrl(
    "The brand's site to check for AI-answer readiness (llms.txt, structured data, citability): an absolute http(s) URL"
  )
})

export const AnalyzeBrandUrlInput = Schema.Struct({
  customerId: CustomerId,
  url: pageUrl("The brand's home page to read the profile from: an absolute http(s) URL")
})
