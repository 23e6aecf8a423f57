import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { CustomerId, ScanId } from "../../domain/Ids.ts"
import type { ChecklistItem, Grade, ScanResult, ScanSummary } from "../../domain/Scan.ts"
import type { CreatedPosition } from "../../platform/Cursor.ts"
import type { Analysis } from "./checks/index.ts"

interface ScanRow {
  readonly id: ScanId
  readonly url: string
  readonly status: ScanResult["status"]
  readonly seoScore: number | null
  readonly geoScore: number | null
  readonly croScore: number | null
  readonly lighthouseSeoScore: number | null
  readonly citabilityGrade: Grade | null
  readonly checklist: unknown
  readonly llmsTxt: string | null
  readonly error: string | null
  readonly hasScreenshot: boolean
  readonly createdAt: Date
  readonly completedAt: Date | null
}

interface SummaryRow {
  readonly id: ScanId
  readonly url: string
  readonly status: ScanResult["status"]
  readonly seoScore: number | null
  readonly geoScore: number | null
  readonly croScore: number | null
  readonly citabilityGrade: Grade | null
  readonly passCount: number | string
  readonly warnCount: number | string
  readonly failCount: number | string
  readonly error: string | null
  readonly createdAt: Date
  readonly completedAt: Date | null
  readonly position: string
}

/** A page of summaries and, when there may be more, where the page ended. */
export interface SummaryPage {
  readonly scans: ReadonlyArray<ScanSummary>
  readonly last: CreatedPosition | undefined
  readonly more: boolean
}

const columns = (sql: SqlClient.SqlClient) =>
  sql`id, url, status, seo_score, geo_score, cro_score, lighthouse_seo_score,
  citability_grade, checklist, llms_txt, error, screenshot IS NOT NULL AS has_screenshot, created_at, completed_at`

/** Scans, always filtered by customer. */
export class ScanRepo extends Context.Service<ScanRepo, {
  readonly start: (id: ScanId, customerId: CustomerId, url: string) => Effect.Effect<void>
  readonly finish: (id: ScanId, analysis: Analysis, screenshot: Uint8Array | undefined) => Effect.Effect<void>
  readonly fail: (id: ScanId, error: string) => Effect.Effect<void>
  /** Takes back a scan that never ran (the service had no room for it). */
  readonly discard: (id: ScanId) => Effect.Effect<void>
  readonly get: (
    customerId: CustomerId,
    scanId: ScanId,
    screenshotUrl: (id: ScanId) => string
  ) => Effect.Effect<ScanResult | undefined>
  /** Newest first, `limit` at most, those created before `after` when given. */
  readonly list: (
    customerId: CustomerId,
    limit: number,
    after: CreatedPosition | undefined
  ) => Effect.Effect<SummaryPage>
  readonly screenshot: (customerId: CustomerId, scanId: ScanId) => Effect.Effect<Uint8Array | undefined>
}>()("herald/features/scan/ScanRepo") {
  static readonly layer = Layer.effect(
    ScanRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const toResult = (screenshotUrl: (id: ScanId) => string) => (row: ScanRow): ScanResult => ({
        scanId: row.id,
        status: row.status,
        url: row.url,
        seoScore: row.seoScore,
        geoScore: row.geoScore,
        croScore: row.croScore,
        lighthouseSeoScore: row.lighthouseSeoScore,
        citabilityGrade: row.citabilityGrade,
        checklist: (typeof row.checklist === "string" ? JSON.parse(row.checklist) : row.checklist) as ReadonlyArray<
          ChecklistItem
        >,
        llmsTxt: row.llmsTxt,
        screenshotUrl: row.hasScreenshot ? screenshotUrl(row.id) : null,
        error: row.error,
        createdAt: new Date(row.createdAt).toISOString(),
        completedAt: row.completedAt === null ? null : new Date(row.completedAt).toISOString()
      })

      const start = (id: ScanId, customerId: CustomerId, url: string) =>
        sql`INSERT INTO scans (id, customer_id, url, status) VALUES (${id}, ${customerId}, ${url}, 'running')`.pipe(
          Effect.asVoid,
          Effect.orDie
        )

      const finish = (id: ScanId, a: Analysis, screenshot: Uint8Array | undefined) =>
        sql`UPDATE scans SET status = 'done', seo_score = ${a.seoScore}, geo_score = ${a.geoScore},
          cro_score = ${a.croScore}, lighthouse_seo_score = ${a.lighthouseSeoScore},
          citability_grade = ${a.citabilityGrade}, checklist = ${JSON.stringify(a.checklist)}::jsonb,
          llms_txt = ${a.llmsTxt}, screenshot = ${screenshot === undefined ? null : Buffer.from(screenshot)},
          completed_at = now()
        WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)

      const fail = (id: ScanId, error: string) =>
        sql`UPDATE scans SET status = 'failed', error = ${error}, completed_at = now() WHERE id = ${id}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )

      const discard = (id: ScanId) => sql`DELETE FROM scans WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)

      const get = (customerId: CustomerId, scanId: ScanId, screenshotUrl: (id: ScanId) => string) =>
        sql<ScanRow>`SELECT ${columns(sql)} FROM scans WHERE id = ${scanId} AND customer_id = ${customerId}`.pipe(
          Effect.map((rows) => rows.length === 0 ? undefined : toResult(screenshotUrl)(rows[0])),
          Effect.orDie
        )

      // Counts come from the stored checklist in the database: a page of summaries never carries the checklists.
      const list = (customerId: CustomerId, limit: number, after: CreatedPosition | undefined) =>
        sql<
          SummaryRow
        >`SELECT id, url, status, seo_score, geo_score, cro_score, citability_grade, error, created_at, completed_at,
          to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS position,
          (SELECT count(*) FROM jsonb_array_elements(COALESCE(checklist, '[]'::jsonb)) item WHERE item->>'status' = 'pass') AS pass_count,
          (SELECT count(*) FROM jsonb_array_elements(COALESCE(checklist, '[]'::jsonb)) item WHERE item->>'status' = 'warn') AS warn_count,
          (SELECT count(*) FROM jsonb_array_elements(COALESCE(checklist, '[]'::jsonb)) item WHERE item->>'status' = 'fail') AS fail_count
        FROM scans WHERE customer_id = ${customerId}
        ${
          after === undefined
            ? sql``
            : sql`AND (created_at, id) < ((${after.t}::timestamp AT TIME ZONE 'UTC'), ${after.i})`
        }
        ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`.pipe(
          Effect.map((rows): SummaryPage => {
            const page = rows.slice(0, limit)
            const last = page[page.length - 1]
            return {
              scans: page.map((row) => ({
                scanId: row.id,
                url: row.url,
                status: row.status,
                seoScore: row.seoScore,
                geoScore: row.geoScore,
                croScore: row.croScore,
                citabilityGrade: row.citabilityGrade,
                counts: { pass: Number(row.passCount), warn: Number(row.warnCount), fail: Number(row.failCount) },
                error: row.error,
                createdAt: new Date(row.createdAt).toISOString(),
                completedAt: row.completedAt === null ? null : new Date(row.completedAt).toISOString()
              })),
              last: last === undefined ? undefined : { t: last.position, i: last.id },
              more: rows.length > limit
            }
          }),
          Effect.orDie
        )

      const screenshot = (customerId: CustomerId, scanId: ScanId) =>
        sql<{ screenshot: Uint8Array | null }>`SELECT screenshot FROM scans
        WHERE id = ${scanId} AND customer_id = ${customerId}`.pipe(
          Effect.map((rows) => rows[0]?.screenshot ?? undefined),
          Effect.orDie
        )

      return ScanRepo.of({ start, finish, fail, discard, get, list, screenshot })
    })
  )
}
