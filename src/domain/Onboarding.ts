import { Schema } from "effect"
import { PageUrl } from "./Scan.ts"
import { charLength, HttpUrl, isMaxChars, storableText } from "./Text.ts"

export const AutoExtractRequest = Schema.Struct({
  url: PageUrl.annotate({ description: "The brand's site: an absolute http(s) URL, at most 2048 characters" })
}).annotate({ identifier: "AutoExtractRequest", description: "Only `url`; no other properties" })

export const BrandProfile = Schema.Struct({
  brandName: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  logoUrl: Schema.NullOr(Schema.String.annotate({ format: "uri" })),
  ogImage: Schema.NullOr(Schema.String.annotate({
    format: "uri",
    description:
      "The image the page gives social networks (og:image): attached to posts on platforms that need media when the profile has no logo"
  })),
  colors: Schema.Array(Schema.String).annotate({ description: "Brand colours as #rrggbb, most used first" }),
  voice: Schema.Array(Schema.String).annotate({ description: "Tone words read from the copy" }),
  audience: Schema.Array(Schema.String).annotate({ description: "Who the page says it is for" }),
  products: Schema.Array(Schema.String),
  socials: Schema.Record(Schema.String, Schema.String).annotate({
    description: "Platform name to profile URL, as linked from the page"
  }),
  sourceUrl: Schema.String.annotate({ format: "uri", description: "The page read, after redirects" })
}).annotate({
  identifier: "BrandProfile",
  description: "What the page says about the brand; null or empty where it says nothing (never invented)"
})
export type BrandProfile = typeof BrandProfile.Type

/** A short piece of profile text: 1 to `max` characters, not only spaces. */
const profileText = (max: number) =>
  Schema.String.check(
    Schema.makeFilter((text: string) => text.trim().length > 0, {
      message: "must not be empty",
      toJsonSchema: () => ({ minLength: 1 })
    }),
    isMaxChars(max),
    storableText
  )

/** A list of at most `max` items. */
const listOf = <S extends Schema.Top>(item: S, max: number) =>
  Schema.Array(item).check(Schema.isMaxLength(max, { message: `must have at most ${max} items` }))

const words = (description: string) =>
  listOf(profileText(200), 50).annotate({ description: `${description}; at most 50, each 1 to 200 characters` })

const colourPattern = /^#[0-9a-fA-F]{6}$/

const Colour = Schema.String.check(
  Schema.makeFilter((text: string) => colourPattern.test(text), {
    message: "must be a colour as #rrggbb",
    toJsonSchema: () => ({ pattern: colourPattern.source })
  })
).annotate({ description: "A colour as #rrggbb" })

/**
 * The brand profile a person confirmed: the extracted profile's fields, edited
 * or not, each typed; no other field. `brandName` is required (so an empty
 * body never replaces a stored profile with nothing); the rest may be left
 * out or null (lists empty).
 */
export const ConfirmedProfile = Schema.Struct({
  brandName: profileText(200).annotate({
    description: "The brand's name, 1 to 200 characters; becomes the customer's brand name"
  }),
  description: Schema.optionalKey(
    Schema.NullOr(profileText(2000).annotate({ description: "What the brand does, at most 2000 characters" }))
  ),
  logoUrl: Schema.optionalKey(Schema.NullOr(HttpUrl.annotate({ description: "The logo: an absolute http(s) URL" }))),
  ogImage: Schema.optionalKey(Schema.NullOr(HttpUrl.annotate({
    description:
      "The site's social sharing image (og:image): an absolute http(s) URL; posts that need media carry it when there is no logo"
  }))),
  colors: Schema.optionalKey(
    listOf(Colour, 20).annotate({ description: "Brand colours as #rrggbb, most used first; at most 20" })
  ),
  voice: Schema.optionalKey(words("Tone words the brand writes in")),
  audience: Schema.optionalKey(words("Who the brand is for")),
  products: Schema.optionalKey(words("What the brand sells")),
  socials: Schema.optionalKey(
    Schema.Record(Schema.String, HttpUrl).check(
      Schema.isMaxProperties(20, { message: "must have at most 20 keys" }),
      Schema.makeFilter((socials: Record<string, string>) =>
        Object.keys(socials).every((name) => name.trim().length > 0 && charLength(name) <= 40) ||
        "platform names must be 1 to 40 characters"
      )
    ).annotate({
      description: "Platform name (1 to 40 characters) to profile URL (absolute http(s)); at most 20"
    })
  ),
  sourceUrl: Schema.optionalKey(Schema.NullOr(HttpUrl.annotate({ description: "The page the profile was read from" })))
}).annotate({
  identifier: "ConfirmedProfile",
  description: "The brand profile as confirmed: `brandName` required, the other fields of the extracted profile " +
    "optional, each typed; any other property is refused"
})
export type ConfirmedProfile = typeof ConfirmedProfile.Type

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
  profile: ConfirmedProfile
}).annotate({ identifier: "ProfileConfirmed" })
