import { Context, Effect, Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { type InvalidCursor, NotFound } from "../../domain/Errors.ts"
import type { Report, ReportFigure, ReportKind, ReportSummary } from "../../domain/Reports.ts"
import { Cursors } from "../../platform/Cursor.ts"
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
          found === undefined ? Effect.fail(new NotFound({ error: "Report not found" })) : Effect.succeed(found))
    })
  }))

  static readonly layer = Reports.layerWithoutRepo.pipe(Layer.provide(ReportsRepo.layer))
}
