import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Report, ReportFigure, ReportKind, ReportSummary } from "../../domain/Reports.ts"
import type { CustomerId, RunId } from "../../domain/Ids.ts"

interface Row {
  readonly id: string
  readonly runId: RunId | null
  readonly workflow: string | null
  readonly kind: ReportKind
  readonly title: string
  readonly createdAt: Date
  readonly body?: string
  readonly figures?: unknown
}

/** Where a page ends: the last row's time (microseconds, as stored) and id. */
export interface Position {
  readonly at: string
  readonly id: string
}

const summary = (row: Row): ReportSummary => ({
  reportId: row.id,
  runId: row.runId,
  workflow: row.workflow,
  kind: row.kind,
  title: row.title,
  createdAt: new Date(row.createdAt).toISOString()
})

const figuresOf = (value: unknown): ReadonlyArray<ReportFigure> =>
  (typeof value === "string" ? JSON.parse(value) : value) as ReadonlyArray<ReportFigure>

export interface NewReport {
  readonly id: string
  readonly customerId: CustomerId
  readonly runId: RunId | null
  readonly workflow: string | null
  readonly kind: ReportKind
  readonly title: string
  readonly body: string
  readonly figures: ReadonlyArray<ReportFigure>
}

/** The reports table (migration reports_agent). Every read is scoped by the customer. */
export class ReportsRepo extends Context.Service<ReportsRepo, {
  readonly insert: (report: NewReport) => Effect.Effect<Report>
  readonly find: (customerId: CustomerId, reportId: string) => Effect.Effect<Report | undefined>
  /** Newest first, `limit` rows after `after`, each with its position. */
  readonly list: (customerId: CustomerId, limit: number, after: Position | undefined) => Effect.Effect<ReadonlyArray<{ readonly report: ReportSummary; readonly position: Position }>>
  /** The newest `limit` reports of these kinds, newest first. */
  readonly newest: (customerId: CustomerId, kinds: ReadonlyArray<ReportKind>, limit: number) => Effect.Effect<ReadonlyArray<ReportSummary>>
}>()("herald/features/reports/ReportsRepo") {
  static readonly layer = Layer.effect(ReportsRepo, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.unsafe("id, run_id, workflow, kind, title, created_at")
    return ReportsRepo.of({
      insert: (report) =>
        sql<Row>`INSERT INTO reports (id, customer_id, run_id, workflow, kind, title, body, figures)
          VALUES (${report.id}, ${report.customerId}, ${report.runId}, ${report.workflow}, ${report.kind}, ${report.title}, ${report.body},
            ${JSON.stringify(report.figures)}::jsonb)
          RETURNING ${columns}, body, figures`.pipe(
          Effect.map((rows) => ({ ...summary(rows[0]!), body: rows[0]!.body!, figures: figuresOf(rows[0]!.figures) })),
          Effect.orDie
        ),
      find: (customerId, reportId) =>
        sql<Row>`SELECT ${columns}, body, figures FROM reports WHERE id = ${reportId} AND customer_id = ${customerId}`.pipe(
          Effect.map((rows) => rows[0] === undefined ? undefined : { ...summary(rows[0]), body: rows[0].body!, figures: figuresOf(rows[0].figures) }),
          Effect.orDie
        ),
      list: (customerId, limit, after) =>
        (after === undefined
          ? sql<Row & { readonly at: string }>`SELECT ${columns}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at
              FROM reports WHERE customer_id = ${customerId}
              ORDER BY created_at DESC, id DESC LIMIT ${limit}`
          : sql<Row & { readonly at: string }>`SELECT ${columns}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at
              FROM reports WHERE customer_id = ${customerId}
                AND (created_at, id) < (${after.at}::timestamp AT TIME ZONE 'UTC', ${after.id})
              ORDER BY created_at DESC, id DESC LIMIT ${limit}`).pipe(
          Effect.map((rows) => rows.map((row) => ({ report: summary(row), position: { at: row.at, id: row.id } }))),
          Effect.orDie
        ),
      newest: (customerId, kinds, limit) =>
        sql<Row>`SELECT ${columns} FROM reports WHERE customer_id = ${customerId} AND kind IN ${sql.in(kinds)}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(summary)), Effect.orDie)
    })
  }))
}
