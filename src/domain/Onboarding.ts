import { Schema } from "effect"
import { PageUrl } from "./Scan.ts"
import { charLength, nestedAtMost, storableJson } from "./Text.ts"

export const AutoExtractRequest = Schema.Struct({
  url: PageUrl.annotate({ description: "The brand's site: an absolute http(s) URL, at most 2048 characters" })
}).annotate({ identifier: "AutoExtractRequest", description: "Only `url`; no other properties" })

export const BrandProfile = Schema.Struct({
  brandName: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  logoUrl: Schema.NullOr(Schema.String.annotate({ format: "uri" })),
  colors: Schema.Array(Schema.String).annotate({ description: "Brand colours as #rrggbb, most used first" }),
  voice: Schema.Array(Schema.String).annotate({ description: "Tone words read from the copy" }),
  audience: Schema.Array(Schema.String).annotate({ description: "Who the page says it is for" }),
  products: Schema.Array(Schema.String),
  socials: Schema.Record(Schema.String, Schema.String).annotate({ description: "Platform name to profile URL, as linked from the page" }),
  sourceUrl: Schema.String.annotate({ format: "uri", description: "The page read, after redirects" })
}).annotate({
  identifier: "BrandProfile",
  description: "What the page says about the brand; null or empty where it says nothing (never invented)"
})
export type BrandProfile = typeof BrandProfile.Type

const brandNameRule = (profile: Record<string, unknown>) => {
  const name = profile.brandName
  return name === undefined || name === null ||
    (typeof name === "string" && name.trim().length > 0 && charLength(name) <= 200) ||
    "brandName must be a non-empty string of at most 200 characters"
}

/** The profile a person confirmed: the extracted fields, edited or not, and any others they keep. */
export const ConfirmedProfile = Schema.Record(Schema.String, Schema.Unknown).check(
  Schema.isMaxProperties(100, { message: "must have at most 100 keys" }),
  nestedAtMost(16),
  storableJson,
  Schema.makeFilter(brandNameRule)
).annotate({
  identifier: "ConfirmedProfile",
  description: "Free-form brand profile (at most 100 keys, 16 levels); `brandName`, when given, a non-empty " +
    "string of at most 200 characters, becomes the customer's brand name"
})

export const OnboardingStarted = Schema.Struct({
  status: Schema.Literal("onboarding_started"),
  connectLinks: Schema.optionalKey(Schema.Record(Schema.String, Schema.String.annotate({ format: "uri" }))).annotate({
    description: "Where to connect each social platform, once publishing is configured"
  })
}).annotate({ identifier: "OnboardingStarted" })

export const ProfileConfirmed = Schema.Struct({
  customerId: Schema.String,
  status: Schema.Literals(["onboarding", "active", "suspended", "cancelled"]),
  brandName: Schema.NullOr(Schema.String),
  profile: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "ProfileConfirmed" })
