import { Context, Schema, SchemaTransformation } from "effect"
import { HttpApi } from "effect/http-api"
import { NotFound } from "../domain/Errors.ts"

/**
 * The path's customer id is compared with the caller's in the security
 * middleware (403 on mismatch) before any decoding, so it is documented as the
 * uuid it always is but not checked here: any other shape is someone else's id.
 * UUIDs are case-insensitive: handlers get the lower-case form ids are stored in.
 */
export const CustomerIdParam = {
  customerId: Schema.String.annotate({ format: "uuid" }).pipe(
    Schema.decodeTo(
      Schema.String,
      SchemaTransformation.transform({ decode: (id) => id.toLowerCase(), encode: (id) => id })
    )
  ).pipe(Schema.brand("CustomerId"))
}

export const NotFoundError = NotFound

/** Plain decimal digits, a minus sign at most: no plus, exponent, hex prefix, fraction or spaces. */
const DecimalDigits = Schema.String.check(Schema.isPattern(/^-?[0-9]+$/, { message: "must be an integer" }))

/**
 * An integer query parameter within `[min, max]`; `defaultValue` is what the
 * handler uses when it is absent (documented, not applied here). The OpenAPI
 * document shows the decoded integer (see OpenApiDocument.ts).
 */
export const intQuery = (min: number, max: number, defaultValue?: number) => {
  const value = Schema.Int.check(
    Schema.isBetween({ minimum: min, maximum: max }, { message: `must be between ${min} and ${max}` })
  )
  return DecimalDigits.pipe(Schema.decodeTo(
    defaultValue === undefined ? value : value.annotate({ default: defaultValue }),
    SchemaTransformation.numberFromString
  ))
}

const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
    : [4, 6, 9, 11].includes(month)
    ? 30
    : 31

/**
 * RFC 3339 date-time (seconds and zone required) whose every field is in range:
 * `Date.parse` would roll `2020-02-31` over to March instead of refusing it.
 */
export const isDateTime = (text: string): boolean => {
  const match = isoDateTime.exec(text)
  if (match === null) return false
  const [year, month, day, hour, minute, second = 0, offsetHours = 0, offsetMinutes = 0] = match.slice(1)
    .map((field) => (field === undefined ? undefined : Number(field)))
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth(year!, month!) &&
    hour! <= 23 && minute! <= 59 && second <= 59 && offsetHours <= 23 && offsetMinutes <= 59 &&
    !Number.isNaN(Date.parse(text))
}

export const DateTime = Schema.String.check(
  Schema.makeFilter((text: string) => isDateTime(text), {
    message: "must be an ISO 8601 date-time with a zone",
    toJsonSchema: () => ({ format: "date-time" })
  })
)

/** A date-time query parameter (ISO 8601 with a zone). */
export const DateTimeQuery = DateTime

/**
 * The optional `Idempotency-Key` header every POST honours (src/platform/Idempotency.ts
 * checks the same bounds); the OpenAPI document declares it on each POST.
 */
export const IdempotencyKey = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))

export const idempotencyKeyDescription =
  "Makes a POST safe to retry: the same key with the same body within 24 hours replays the first successful " +
  "response (with `Idempotent-Replayed: true`) instead of acting again; the same key with another body, or " +
  "while the first request is still in progress, is 409 `E_CONFLICT`. 1 to 255 characters."

/** Reject properties the schema does not name: a silently dropped typo is worse than an error. */
export const StrictPayload = HttpApi.PayloadParseOptions
export const strictParse = { onExcessProperty: "error", errors: "all" } as const

/**
 * An empty JSON object, nothing else (a struct with no fields would let any
 * property through). Used with `Schema.Null` so a missing body counts as empty.
 */
export const EmptyObject = [
  Schema.Record(Schema.String, Schema.Never.annotate({ message: "is not an allowed property" }))
    .annotate({ identifier: "EmptyObject", description: "An empty object: no properties are allowed" }),
  Schema.Null
] as const

/**
 * Marks an endpoint whose answers carry a key or secret: every response of it
 * (error, success and idempotent replay) gets `Cache-Control: no-store`
 * (the HTTP core reads this annotation; see src/platform/http/Routes.ts).
 * `HttpApiEndpoint.post(...).annotate(NoStore, true)`.
 */
export const NoStore = Context.Reference<boolean>("herald/api/NoStore", { defaultValue: () => false })
