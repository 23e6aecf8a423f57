import { Schema } from "effect"
import { RunId } from "./Ids.ts"
import { isMaxChars, storableText } from "./Text.ts"

const DateTime = Schema.String.annotate({ format: "date-time" })

export const ReportKind = Schema.Literals(["seo-audit", "competitor-brief", "performance-report"]).annotate({
  description: "seo-audit, competitor-brief or performance-report"
})
export type ReportKind = typeof ReportKind.Type

/** ISO 4217 code, three capitals. */
const Currency = Schema.String.check(
  Schema.isPattern(/^[A-Z]{3}$/, { message: "must be a three-letter ISO 4217 code such as USD" })
)

/** One figure of a report: a count, or money in its currency (never a bare amount of money). */
export const ReportFigure = Schema.Struct({
  label: Schema.String.check(Schema.isMinLength(1), isMaxChars(200), storableText),
  value: Schema.Finite,
  currency: Schema.optionalKey(
    Currency.annotate({ description: "Set for money: the amount is in this currency's major unit" })
  )
}).annotate({ identifier: "ReportFigure" })
export type ReportFigure = typeof ReportFigure.Type

export const ReportSummary = Schema.Struct({
  reportId: Schema.String,
  runId: Schema.NullOr(RunId),
  workflow: Schema.NullOr(Schema.String),
  kind: ReportKind,
  title: Schema.String,
  createdAt: DateTime
}).annotate({ identifier: "ReportSummary" })
export type ReportSummary = typeof ReportSummary.Type

export const Report = Schema.Struct({
  ...ReportSummary.fields,
  body: Schema.String.annotate({ description: "The report in Markdown" }),
  figures: Schema.Array(ReportFigure)
}).annotate({ identifier: "Report" })
export type Report = typeof Report.Type

export const ReportList = Schema.Struct({
  reports: Schema.Array(ReportSummary),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ReportList" })

/** A figure as a person reads it: money with its currency ("$1,250.00", "€36.00"), counts as numbers. */
export const formatFigure = (figure: ReportFigure): string =>
  figure.currency === undefined
    ? figure.value.toLocaleString("en-US", { maximumFractionDigits: 2 })
    : new Intl.NumberFormat("en-US", { style: "currency", currency: figure.currency }).format(figure.value)
