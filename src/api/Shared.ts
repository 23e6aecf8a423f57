import { Schema } from "effect"
import { HttpApi } from "effect/http-api"
import { NotFound } from "../domain/Errors.ts"

/**
 * The path's customer id is compared with the caller's in the security
 * middleware (403 on mismatch) before any decoding, so it needs no format here.
 */
export const CustomerIdParam = { customerId: Schema.String }

export const NotFoundError = NotFound

/** An integer query parameter within `[min, max]`. */
export const intQuery = (min: number, max: number) =>
  Schema.NumberFromString.check(
    Schema.isInt({ message: "must be an integer" }),
    Schema.isBetween({ minimum: min, maximum: max }, { message: `must be between ${min} and ${max}` })
  )

const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

export const DateTime = Schema.String.check(
  Schema.makeFilter((s: string) => isoDateTime.test(s) && !Number.isNaN(Date.parse(s)), {
    message: "must be an ISO 8601 date-time",
    format: "date-time"
  } as Schema.Annotations.Filter)
).annotate({ format: "date-time" })

/** A date-time query parameter (ISO 8601 with a zone). */
export const DateTimeQuery = DateTime

/** Reject properties the schema does not name (the spec's "no other properties"). */
export const StrictPayload = HttpApi.PayloadParseOptions
export const strictParse = { onExcessProperty: "error", errors: "all" } as const

/**
 * An empty JSON object, nothing else (a struct with no fields would let any
 * property through). Used with `Schema.Null` so a missing body counts as empty.
 */
export const EmptyObject = [
  Schema.Record(Schema.String, Schema.Never.annotate({ message: "unexpected property" }))
    .annotate({ identifier: "EmptyObject", description: "An empty object: no properties are allowed" }),
  Schema.Null
] as const
