import { Context, Effect, Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { type InvalidCursor, NotFound } from "../../domain/Errors.ts"
import {
  type Report,
  type ReportFigure,
  type ReportKind,
  ReportKind as ReportKinds,
  reportKindNames,
  type ReportQuestion,
  type ReportSummary
} from "../../domain/Reports.ts"
import { Cursors } from "../../platform/Cursor.ts"
import type { ToolLink } from "../../platform/tools/Handler.ts"
import { ReportsRepo } from "./Repo.ts"
import type { CustomerId, RunId } from "../../domain/Ids.ts"

/** What a run (or any writer of reports) records. */
export interface RecordReport {
  readonly customerId: CustomerId
  readonly kind: ReportKind
  /** Titled as a report: "SEO audit of https://brewline.example", "Performance report, 1-7 May". */
  readonly title: string
  /** The report in Markdown. */
  readonly body: string
  /** The run that wrote it; its output should name the returned `reportId`. */
  readonly runId?: RunId | undefined
  /** The workflow of that run (e.g. `monthly-seo-audit`). */
  readonly workflow?: string | undefined
  /** Counts and money; money always carries its ISO 4217 currency. */
  readonly figures?: ReadonlyArray<ReportFigure> | undefined
}

/** Where a report is read again through the API (a path on this server). */
export const reportUrl = (customerId: string, reportId: string): string => `/api/reports/${customerId}/${reportId}`

export type LinkedSummary = ReportSummary & { readonly url: string }
export type LinkedReport = Report & { readonly url: string }

/** A report as a tool result points at it: its absolute url on this server (read with the same key). */
export const reportLink = (baseUrl: string, report: LinkedSummary): ToolLink => ({
  uri: new URL(report.url, baseUrl).toString(),
  name: report.reportId,
  title: report.title,
  description: `${reportKindNames[report.kind]} of ${report.createdAt.slice(0, 10)}`,
  mimeType: "application/json"
})

/** The stored reports a question is about. */
export interface AskedReports {
  readonly question: ReportQuestion
  /** Newest first: the list asked for, or the reports read whole. */
  readonly reports: ReadonlyArray<LinkedSummary>
  /** The reports read whole (none for a list): the newest of each kind named, or the newest of all. */
  readonly whole: ReadonlyArray<LinkedReport>
}

/** How many reports a question for a list answers. */
export const reportsListed = 10

const Position = Schema.Struct({ at: Schema.String, id: Schema.String })

/**
 * Reports for the marketer: kept apart from content (never published, never
 * counted as waiting for approval), listed newest first with signed cursors.
 */
export class Reports extends Context.Service<Reports, {
  /** Stores a report and answers it, with its `reportId` (`rep_…`). */
  readonly record: (report: RecordReport) => Effect.Effect<Report>
  readonly list: (customerId: CustomerId, query: { readonly limit: number; readonly cursor?: string | undefined }) => Effect.Effect<
    { readonly reports: ReadonlyArray<ReportSummary>; readonly nextCursor: string | null },
    InvalidCursor
  >
  readonly get: (customerId: CustomerId, reportId: string) => Effect.Effect<Report, NotFound>
  /** The customer's newest report of a kind, with its url. */
  readonly latest: (customerId: CustomerId, kind: ReportKind) => Effect.Effect<LinkedSummary | undefined>
  /** The customer's reports a question asks about (see `reportQuestionOf`), each with its url. */
  readonly asked: (customerId: CustomerId, question: ReportQuestion) => Effect.Effect<AskedReports>
}>()("herald/features/reports/Reports") {
  static readonly layerWithoutRepo = Layer.effect(Reports, Effect.gen(function*() {
    const repo = yield* ReportsRepo
    const cursors = yield* Cursors
    return Reports.of({
      record: (report) =>
        repo.insert({
          id: `rep_${randomUUID().replaceAll("-", "")}`,
          customerId: report.customerId,
          runId: report.runId ?? null,
          workflow: report.workflow ?? null,
          kind: report.kind,
          title: report.title,
          body: report.body,
          figures: report.figures ?? []
        }),
      list: Effect.fnUntraced(function*(customerId, query) {
        const after = query.cursor === undefined ? undefined : yield* cursors.decode("reports", customerId, Position, query.cursor)
        // One row past the page tells whether another page exists.
        const rows = yield* repo.list(customerId, query.limit + 1, after)
        const page = rows.slice(0, query.limit)
        const last = page.at(-1)
        return {
          reports: page.map((row) => row.report),
          nextCursor: rows.length > query.limit && last !== undefined ? cursors.encode("reports", customerId, last.position) : null
        }
      }),
      get: (customerId, reportId) =>
        Effect.flatMap(repo.find(customerId, reportId), (found) =>
          found === undefined ? Effect.fail(new NotFound({ error: "Report not found" })) : Effect.succeed(found)),
      latest: (customerId, kind) =>
        Effect.map(repo.newest(customerId, [kind], 1), (rows) =>
          rows[0] === undefined ? undefined : { ...rows[0], url: reportUrl(customerId, rows[0].reportId) }),
      asked: Effect.fnUntraced(function*(customerId, question) {
        const link = <A extends ReportSummary>(report: A) => ({ ...report, url: reportUrl(customerId, report.reportId) })
        if (question.list) {
          const listed = yield* repo.newest(customerId, question.kinds, reportsListed)
          return { question, reports: listed.map(link), whole: [] }
        }
        // Kinds named are read each (the newest of each); a question naming none reads the newest report.
        const named = question.kinds.length < ReportKinds.literals.length
        const newest = named
          ? (yield* Effect.forEach(question.kinds, (kind) => repo.newest(customerId, [kind], 1))).flat()
          : yield* repo.newest(customerId, question.kinds, 1)
        const whole = yield* Effect.forEach(newest, (summary) => repo.find(customerId, summary.reportId))
        const read = whole.filter((report): report is Report => report !== undefined).map(link)
          .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        return { question, reports: read.map(({ body: _body, figures: _figures, ...summary }) => summary), whole: read }
      })
    })
  }))

  static readonly layer = Reports.layerWithoutRepo.pipe(Layer.provide(ReportsRepo.layer))
}
