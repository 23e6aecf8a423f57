import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { ContentPiece, ContentStatus, ContentType } from "../../domain/Content.ts"
import { type ContentId, type CustomerId, newContentId, type RunId } from "../../domain/Ids.ts"
import { CreatedPosition } from "../../platform/Cursor.ts"

interface ContentRow {
  readonly id: ContentId
  readonly type: ContentType
  readonly status: ContentStatus
  readonly platform: string | null
  readonly title: string | null
  readonly body: string | null
  readonly metadata: string
  readonly publishedUrl: string | null
  readonly publishedAt: Date | null
  readonly scheduledAt: Date | null
  readonly reviewNote: string | null
  readonly agentId: string | null
  readonly runId: RunId | null
  readonly createdAt: Date
  readonly position: string
}

/** Where a page ends: `created_at` with microseconds (UTC) and the id that breaks ties. */
export const Position = CreatedPosition
export type Position = CreatedPosition

export interface ContentRecord {
  readonly piece: ContentPiece
  readonly position: Position
}

export interface NewRow {
  readonly type: ContentType
  readonly status: ContentStatus
  readonly platform: string | null
  readonly title: string | null
  readonly body: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly agentId: string | null
  readonly runId: RunId | null
  readonly scheduledAt?: Date | null | undefined
}

/** Column changes of one move; undefined leaves a column as it is. */
export interface RowChanges {
  readonly status: ContentStatus
  readonly title?: string | undefined
  readonly body?: string | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly reviewNote?: string | undefined
  readonly publishedUrl?: string | undefined
  /** `null` clears it; undefined leaves it. */
  readonly scheduledAt?: Date | null | undefined
  /** undefined leaves it. */
  readonly platform?: string | undefined
}

/** How a workflow run's pieces stand in review: awaiting it (draft, pending_approval), approved (or published since), rejected. */
export interface ReviewCounts {
  readonly pending: number
  readonly approved: number
  readonly rejected: number
}

export interface PublishedItem {
  readonly customerId: CustomerId
  readonly contentId: ContentId
  readonly publishedUrl: string
}

export interface ListFilter {
  readonly status?: ContentStatus | undefined
  readonly type?: ContentType | undefined
  readonly platform?: string | undefined
  readonly after?: Position | undefined
  readonly limit: number
}

const iso = (date: Date | null) => (date === null ? null : new Date(date).toISOString())

const toRecord = (row: ContentRow): ContentRecord => ({
  piece: {
    id: row.id,
    type: row.type,
    status: row.status,
    platform: row.platform,
    title: row.title,
    body: row.body,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    publishedUrl: row.publishedUrl,
    publishedAt: iso(row.publishedAt),
    scheduledAt: iso(row.scheduledAt),
    reviewNote: row.reviewNote,
    agentId: row.agentId,
    runId: row.runId,
    createdAt: new Date(row.createdAt).toISOString()
  },
  position: { t: row.position, i: row.id }
})

/** Content rows, always filtered by customer id. Joins the caller's transaction. */
export class ContentRepo extends Context.Service<ContentRepo, {
  readonly insert: (customerId: CustomerId, row: NewRow) => Effect.Effect<ContentPiece>
  /**
   * `lock`: "change" for a move (FOR NO KEY UPDATE: rows that reference the piece, such as a try the publisher
   * records, take key-share locks on it, which FOR UPDATE would wait for and deadlock against), "delete" before
   * the row goes, false for a plain read.
   */
  readonly find: (
    customerId: CustomerId,
    id: ContentId,
    lock: false | "change" | "delete"
  ) => Effect.Effect<Option.Option<ContentPiece>>
  readonly update: (customerId: CustomerId, id: ContentId, changes: RowChanges) => Effect.Effect<ContentPiece>
  readonly list: (customerId: CustomerId, filter: ListFilter) => Effect.Effect<ReadonlyArray<ContentRecord>>
  readonly remove: (customerId: CustomerId, id: ContentId) => Effect.Effect<void>
  /** The pieces a workflow run wrote, oldest first. */
  readonly ofRun: (customerId: CustomerId, runId: RunId) => Effect.Effect<ReadonlyArray<ContentPiece>>
  /** How the pieces of each of these workflow runs stand in review (runs without pieces are left out). */
  readonly reviewCounts: (runIds: ReadonlyArray<RunId>) => Effect.Effect<ReadonlyMap<RunId, ReviewCounts>>
  /**
   * Moves every listed piece whose status is one of `from` to published with
   * its address, in one statement; answers the pieces it moved (a piece
   * moved or deleted meanwhile is left out).
   */
  readonly publishMany: (
    items: ReadonlyArray<PublishedItem>,
    from: ReadonlyArray<ContentStatus>
  ) => Effect.Effect<ReadonlyArray<ContentPiece>>
}>()("herald/features/content/ContentRepo") {
  static readonly layer = Layer.effect(
    ContentRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // metadata is json, not jsonb, so its keys keep the order they were given; it goes out as text: the
      // client's snake-to-camel renaming would otherwise rewrite the customer's keys.
      const columns = sql.literal(
        `id, type, status, platform, title, body, metadata::text AS metadata, published_url, published_at,
      scheduled_at, review_note, agent_id, run_id, created_at,
      to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS position`
      )

      const insert = (customerId: CustomerId, row: NewRow) =>
        sql<ContentRow>`
        INSERT INTO content (id, customer_id, type, status, platform, title, body, metadata, agent_id, run_id, scheduled_at)
        VALUES (${newContentId()}, ${customerId}, ${row.type}, ${row.status},
          ${row.platform}, ${row.title}, ${row.body}, ${
          JSON.stringify(row.metadata)
        }::json, ${row.agentId}, ${row.runId},
          ${row.scheduledAt ?? null})
        RETURNING ${columns}`.pipe(Effect.map((rows) => toRecord(rows[0]).piece), Effect.orDie)

      const find = (customerId: CustomerId, id: ContentId, lock: false | "change" | "delete") =>
        sql<ContentRow>`SELECT ${columns} FROM content WHERE customer_id = ${customerId} AND id = ${id}
        ${lock === "change" ? sql`FOR NO KEY UPDATE` : lock === "delete" ? sql`FOR UPDATE` : sql``}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => toRecord(row).piece)),
          Effect.orDie
        )

      const update = (customerId: CustomerId, id: ContentId, changes: RowChanges) =>
        sql<ContentRow>`
        UPDATE content SET
          status = ${changes.status},
          platform = COALESCE(${changes.platform ?? null}, platform),
          title = COALESCE(${changes.title ?? null}, title),
          body = COALESCE(${changes.body ?? null}, body),
          metadata = COALESCE(${
          changes.metadata === undefined ? null : JSON.stringify(changes.metadata)
        }::json, metadata),
          review_note = COALESCE(${changes.reviewNote ?? null}, review_note),
          published_url = COALESCE(${changes.publishedUrl ?? null}, published_url),
          scheduled_at = ${changes.scheduledAt === undefined ? sql`scheduled_at` : sql`${changes.scheduledAt}`},
          published_at = CASE WHEN ${changes.status} = 'published' THEN clock_timestamp() ELSE published_at END,
          updated_at = clock_timestamp()
        WHERE customer_id = ${customerId} AND id = ${id}
        RETURNING ${columns}`.pipe(Effect.map((rows) => toRecord(rows[0]).piece), Effect.orDie)

      // Newest first; the row comparison walks the (customer_id[, filter], created_at, id) index backwards.
      const list = (customerId: CustomerId, filter: ListFilter) =>
        sql<ContentRow>`
        SELECT ${columns} FROM content
        WHERE customer_id = ${customerId}
        ${filter.status === undefined ? sql`` : sql`AND status = ${filter.status}`}
        ${filter.type === undefined ? sql`` : sql`AND type = ${filter.type}`}
        ${filter.platform === undefined ? sql`` : sql`AND platform = ${filter.platform}`}
        ${
          filter.after === undefined
            ? sql``
            : sql`AND (created_at, id) < ((${filter.after.t}::timestamp AT TIME ZONE 'UTC'), ${filter.after.i})`
        }
        ORDER BY created_at DESC, id DESC
        LIMIT ${filter.limit}`.pipe(Effect.map((rows) => rows.map(toRecord)), Effect.orDie)

      const remove = (customerId: CustomerId, id: ContentId) =>
        sql`DELETE FROM content WHERE customer_id = ${customerId} AND id = ${id}`.pipe(Effect.asVoid, Effect.orDie)

      const ofRun = (customerId: CustomerId, runId: RunId) =>
        sql<ContentRow>`SELECT ${columns} FROM content WHERE customer_id = ${customerId} AND run_id = ${runId}
        ORDER BY created_at, id`.pipe(Effect.map((rows) => rows.map((row) => toRecord(row).piece)), Effect.orDie)

      const reviewCounts = (runIds: ReadonlyArray<RunId>) =>
        runIds.length === 0 ?
          Effect.succeed(new Map<RunId, ReviewCounts>()) :
          sql<{ runId: RunId; status: ContentStatus; n: number }>`
        SELECT run_id, status, count(*)::int AS n FROM content WHERE run_id = ANY (${runIds}::text[]) GROUP BY run_id, status`
            .pipe(
              Effect.map((rows) => {
                const counts = new Map<RunId, { pending: number; approved: number; rejected: number }>()
                for (const row of rows) {
                  const at = counts.get(row.runId) ?? { pending: 0, approved: 0, rejected: 0 }
                  const slot = row.status === "draft" || row.status === "pending_approval"
                    ? "pending"
                    : row.status === "rejected"
                    ? "rejected"
                    : "approved"
                  at[slot] += row.n
                  counts.set(row.runId, at)
                }
                return counts as ReadonlyMap<RunId, ReviewCounts>
              }),
              Effect.orDie
            )

      // The row lock the UPDATE takes re-checks the status, so a move committed meanwhile is seen, as `find ... FOR UPDATE` would.
      const publishMany = (items: ReadonlyArray<PublishedItem>, from: ReadonlyArray<ContentStatus>) =>
        items.length === 0 ? Effect.succeed([]) : sql<ContentRow>`
        UPDATE content SET status = 'published', published_url = p.given_url,
          published_at = clock_timestamp(), updated_at = clock_timestamp()
        FROM unnest(${items.map((i) => i.customerId)}::uuid[], ${items.map((i) => i.contentId)}::text[],
          ${items.map((i) => i.publishedUrl)}::text[]) AS p(given_customer, given_id, given_url)
        WHERE content.customer_id = p.given_customer AND content.id = p.given_id AND content.status = ANY (${from}::text[])
        RETURNING ${columns}`.pipe(
          Effect.map((rows) => rows.map((row) => toRecord(row).piece)),
          Effect.orDie
        )

      return ContentRepo.of({ insert, find, update, list, remove, ofRun, reviewCounts, publishMany })
    })
  )
}
