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

/** Each kind as a marketer names it. */
export const reportKindNames: Record<ReportKind, string> = {
  "seo-audit": "SEO audit",
  "competitor-brief": "Competitor brief",
  "performance-report": "Performance report"
}

/** What a question about stored reports asks: which kinds (all when it names none), one or a list, and about what. */
export interface ReportQuestion {
  readonly kinds: ReadonlyArray<ReportKind>
  /** A list of reports ("list our reports", "which audits do we have") rather than the latest one read. */
  readonly list: boolean
  /** What the reader wants from it ("what did the competitor brief say about pricing?"). */
  readonly about?: string | undefined
}

/** A report named as a thing kept: "the SEO audit", "our last brief", "reports"; not "audit our site". */
const reportNoun =
  /\b(?:reports?|briefs?|audits|(?:the|our|my|that|this|last|latest|recent|previous|newest|seo|site|website) (?:seo |site |website )?audit)\b/
/** Words of reading what is stored, not of making something new. */
const readingCue =
  /\b(?:last|latest|recent|most recent|previous|newest|stored|past|did|found|say|said|says|show|list|read|see|open|reports|which|any)\b/
const makingCue = /\b(?:run|start|make|write|create|draft|generate|new|another|fresh|redo|schedule|publish)\b/

/** The words after "about" or "on" to the end of the question, when it asks for one subject of the report. */
const aboutOf = (lower: string): string | undefined => {
  const found = /\b(?:about|regarding|on the subject of)\s+([^?!.\n]{1,80})/.exec(lower)
  const subject = found?.[1]?.trim().replace(/^(?:the|our|their)\s+/, "")
  return subject === undefined || subject.length === 0 ? undefined : subject
}

/**
 * A question about the reports already stored ("what did our last SEO audit
 * find?", "show me the latest performance report", "list our reports"), or
 * undefined for anything else: asking for a new audit or brief, or a page to
 * audit, is not reading a report.
 */
export const reportQuestionOf = (text: string): ReportQuestion | undefined => {
  // "Which audits have we run?" asks about what exists; "run an audit" asks for a new one.
  const lower = text.toLowerCase().replace(/\s+/g, " ").replace(/\b(?:have|has|had|did) (?:we |you |i )?run\b/g, "did")
  if (!reportNoun.test(lower) || !readingCue.test(lower) || makingCue.test(lower)) return undefined
  if (/\bhttps?:\/\//.test(lower) && !/\b(?:last|latest|previous|recent)\b/.test(lower)) return undefined
  const kinds: Array<ReportKind> = []
  if (/\b(?:seo|audits?|geo|citability)\b/.test(lower)) kinds.push("seo-audit")
  if (/\b(?:competitors?|competition|rivals?|briefs?|positioning)\b/.test(lower)) kinds.push("competitor-brief")
  if (/\b(?:performance|analytics|revenue|results)\b/.test(lower)) kinds.push("performance-report")
  const list = /\b(?:list|which|any|all|every)\b/.test(lower) || /\b(?:reports|audits|briefs)\b/.test(lower)
  const about = aboutOf(lower)
  return {
    kinds: kinds.length === 0 ? ReportKind.literals : kinds,
    list: list && about === undefined,
    ...(about === undefined ? {} : { about })
  }
}
