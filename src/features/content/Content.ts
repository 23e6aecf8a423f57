import { Context, Effect, Layer, Option, Result } from "effect"
import { SqlClient } from "effect/sql"
import { initialStatusForLevel, resolveLevel } from "../../domain/Autonomy.ts"
import {
  bodyLimitViolation,
  type ContentAction,
  type ContentPiece,
  ContentStatus,
  type ContentType,
  type ContentUpdate,
  deleteRefusal,
  describeForbiddenMove,
  type NewContent,
  type ReviewAction,
  transition
} from "../../domain/Content.ts"
import {
  type BudgetExceeded,
  InvalidCursor,
  InvalidTransition,
  NotFound,
  ValidationError
} from "../../domain/Errors.ts"
import type { Actor } from "../../domain/Identity.ts"
import type { ContentId, CustomerId, RunId } from "../../domain/Ids.ts"
import { isWebhookEventType, type WebhookEventType } from "../../domain/WebhookEvents.ts"
import { ContentRepo, Position, type PublishedItem, type ReviewCounts, type RowChanges } from "./Repo.ts"

export type { ReviewCounts } from "./Repo.ts"
import { Cursors } from "../../platform/Cursor.ts"
import { withConflictRetry } from "../../platform/Database.ts"
import { Events } from "../../platform/Events.ts"
import { Outbox } from "../../platform/Outbox.ts"
import { PublishQueue } from "../../platform/PublishQueue.ts"
import { Settings } from "../settings/Settings.ts"

/** The statuses the state machine lets a piece be published from. */
const publishableFrom = ContentStatus.literals.filter((status) => Result.isSuccess(transition(status, "publish")))

export interface CreateOptions {
  /** A person's piece starts as draft (or pending with `submit`); an agent's follows autonomy. */
  readonly actor: "person" | "agent"
  /** The MCP tool or workflow id acting, for its autonomy override. */
  readonly skill?: string | undefined
  readonly agentId?: string | undefined
  readonly runId?: RunId | undefined
  /** The status the piece starts in, whoever creates it (social publish queues it `approved`). */
  readonly status?: "draft" | "pending_approval" | "approved" | undefined
  /** When an approved piece is due for publication (an instant; UTC in storage). */
  readonly scheduledAt?: Date | undefined
}

export interface ListQuery {
  readonly status?: ContentStatus | undefined
  readonly type?: ContentType | undefined
  readonly platform?: string | undefined
  readonly limit: number
  readonly cursor?: string | undefined
}

export interface ContentPage {
  readonly content: ReadonlyArray<ContentPiece>
  readonly nextCursor: string | null
}

type MoveError = NotFound | InvalidTransition

/** Event-log types of content: the webhook kinds plus edits, submissions and deletions. */
type LogType = WebhookEventType | "content.updated" | "content.submitted" | "content.deleted"

/** Who creates a piece: a workflow run or an agent; a person's key is derived from the request. */
const creator = (options: CreateOptions): Actor | undefined =>
  options.actor === "person"
    ? undefined
    : options.runId !== undefined
    ? { type: "workflow", id: options.runId }
    : { type: "agent", id: options.agentId ?? options.skill ?? null }

const notFound = () => new NotFound({ error: "Content not found" })

/**
 * Content pieces and their life cycle. Every change of status goes through
 * the one state machine (`transition`) under the piece's row lock, and writes
 * its event and webhook in the same transaction.
 */
export class Content extends Context.Service<Content, {
  /** Past a budget cap only when autonomy level 5 queues an ad at once (a person's piece is never queued here). */
  readonly create: (
    customerId: CustomerId,
    input: NewContent,
    options: CreateOptions
  ) => Effect.Effect<ContentPiece, BudgetExceeded>
  readonly list: (customerId: CustomerId, query: ListQuery) => Effect.Effect<ContentPage, InvalidCursor>
  readonly get: (customerId: CustomerId, contentId: ContentId) => Effect.Effect<ContentPiece, NotFound>
  /** The pieces a workflow run wrote, oldest first. */
  readonly ofRun: (customerId: CustomerId, runId: RunId) => Effect.Effect<ReadonlyArray<ContentPiece>>
  /** How the pieces of each of these workflow runs stand in review (runs without pieces are left out). */
  readonly reviewCounts: (runIds: ReadonlyArray<RunId>) => Effect.Effect<ReadonlyMap<RunId, ReviewCounts>>
  readonly update: (
    customerId: CustomerId,
    contentId: ContentId,
    patch: ContentUpdate
  ) => Effect.Effect<ContentPiece, MoveError | ValidationError>
  readonly review: (
    customerId: CustomerId,
    contentId: ContentId,
    action: ReviewAction,
    note: string | undefined
  ) => Effect.Effect<ContentPiece, MoveError>
  readonly markPublished: (
    customerId: CustomerId,
    contentId: ContentId,
    publishedUrl: string
  ) => Effect.Effect<ContentPiece, MoveError>
  /**
   * `markPublished` for a batch, in the caller's transaction and a fixed
   * number of statements: pieces the state machine lets publish move, with
   * their events and webhooks; the rest are left out of the answer.
   */
  readonly markPublishedMany: (items: ReadonlyArray<PublishedItem>) => Effect.Effect<ReadonlyArray<ContentPiece>>
  /** draft -> pending_approval; writes `content.submitted`. */
  readonly submit: (customerId: CustomerId, contentId: ContentId) => Effect.Effect<ContentPiece, MoveError>
  /** Deletes a draft or rejected piece (409 otherwise); writes `content.deleted`. */
  readonly remove: (customerId: CustomerId, contentId: ContentId) => Effect.Effect<void, MoveError>
  /**
   * Sets or clears (`null`) when an approved, unpublished piece is due; any
   * other status is 409. Used by the publisher's schedule, retry and cancel;
   * publishing an approved piece elsewhere than its platform sets `platform`.
   */
  readonly reschedule: (
    customerId: CustomerId,
    contentId: ContentId,
    scheduledAt: Date | null,
    platform?: string | undefined
  ) => Effect.Effect<ContentPiece, MoveError>
}>()("herald/features/content/Content") {
  static readonly layer = Layer.effect(
    Content,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* ContentRepo
      const cursors = yield* Cursors
      const settings = yield* Settings
      const events = yield* Events
      const outbox = yield* Outbox
      const publishQueue = yield* PublishQueue

      /**
       * The event log entry, and the webhook event for the kinds subscribers can
       * ask for, in the caller's transaction.
       */
      const announceMany = (
        type: LogType,
        announced: ReadonlyArray<{ readonly customerId: CustomerId; readonly piece: ContentPiece }>,
        actor?: Actor
      ) =>
        Effect.andThen(
          events.recordMany(
            announced.map(({ customerId, piece }) => ({ customerId, type, data: { ...piece }, actor }))
          ),
          isWebhookEventType(type)
            ? outbox.emitMany(announced.map(({ customerId, piece }) => ({ customerId, type, data: piece })))
            : Effect.void
        )

      const announce = (customerId: CustomerId, type: LogType, piece: ContentPiece, actor?: Actor) =>
        announceMany(type, [{ customerId, piece }], actor)

      // Statements only (announcements go out through the outbox table): a conflict abort runs one again whole.
      const inTransaction = <A, E>(effect: Effect.Effect<A, E>) =>
        effect.pipe(withConflictRetry(sql), Effect.catchTag("SqlError", Effect.die))

      const create = Effect.fn("Content.create")(
        function*(customerId: CustomerId, input: NewContent, options: CreateOptions) {
          const level = options.actor === "agent" && options.status === undefined
            ? resolveLevel((yield* settings.get(customerId)).autonomy, { category: input.type, skill: options.skill })
            : undefined
          const status: ContentStatus = options.status !== undefined
            ? options.status
            : level === undefined
            ? (input.submit === true ? "pending_approval" : "draft")
            : initialStatusForLevel(level)
          return yield* inTransaction(Effect.gen(function*() {
            const piece = yield* repo.insert(customerId, {
              type: input.type,
              status,
              platform: input.platform ?? null,
              title: input.title ?? null,
              body: input.body,
              metadata: input.metadata ?? {},
              agentId: options.agentId ?? null,
              runId: options.runId ?? null,
              scheduledAt: options.scheduledAt ?? null
            })
            yield* announce(customerId, "content.created", piece, creator(options))
            // Level 5: approved and published at once when its platform is connected.
            if (level === 5) yield* publishQueue.enqueue(customerId, piece)
            return piece
          }))
        }
      )

      /**
       * Locks the piece, asks the state machine, applies the changes. Concurrent
       * moves of one piece queue on the lock; the later one sees the new status.
       */
      const move = <E = never>(
        customerId: CustomerId,
        contentId: ContentId,
        action: ContentAction,
        changes: (current: ContentPiece) => Effect.Effect<Omit<RowChanges, "status">, E>,
        event: LogType
      ) =>
        inTransaction(Effect.gen(function*() {
          const found = yield* repo.find(customerId, contentId, "change")
          if (Option.isNone(found)) return yield* notFound()
          const current = found.value
          const next = transition(current.status, action)
          if (Result.isFailure(next)) {
            return yield* new InvalidTransition({ error: describeForbiddenMove(next.failure) })
          }
          const piece = yield* repo.update(customerId, contentId, {
            ...(yield* changes(current)),
            status: next.success
          })
          yield* announce(customerId, event, piece)
          return piece
        }))

      // The platform of a stored piece decides how long an edited body may be.
      const checkedEdit = (patch: ContentUpdate) => (current: ContentPiece) => {
        const message = bodyLimitViolation(current.platform, patch.body)
        return message === undefined
          ? Effect.succeed(patch)
          : Effect.fail(
            new ValidationError({ error: `Invalid body.body: ${message}`, details: [{ path: "body.body", message }] })
          )
      }

      const update = Effect.fn("Content.update")(
        function*(customerId: CustomerId, contentId: ContentId, patch: ContentUpdate) {
          return yield* move(customerId, contentId, "edit", checkedEdit(patch), "content.updated")
        }
      )

      const review = Effect.fn("Content.review")(
        function*(customerId: CustomerId, contentId: ContentId, action: ReviewAction, note: string | undefined) {
          const event = action === "approve" ? "content.approved" : "content.rejected"
          return yield* move(customerId, contentId, action, () => Effect.succeed({ reviewNote: note }), event)
        }
      )

      const markPublished = Effect.fn("Content.markPublished")(
        function*(customerId: CustomerId, contentId: ContentId, publishedUrl: string) {
          return yield* move(
            customerId,
            contentId,
            "publish",
            () => Effect.succeed({ publishedUrl }),
            "content.published"
          )
        }
      )

      const markPublishedMany = Effect.fn("Content.markPublishedMany")(function*(items: ReadonlyArray<PublishedItem>) {
        const pieces = yield* repo.publishMany(items, publishableFrom)
        const owners = new Map(items.map((item) => [item.contentId, item.customerId]))
        yield* announceMany("content.published", pieces.map((piece) => ({ customerId: owners.get(piece.id)!, piece })))
        return pieces
      })

      const submit = Effect.fn("Content.submit")(function*(customerId: CustomerId, contentId: ContentId) {
        return yield* move(customerId, contentId, "submit", () => Effect.succeed({}), "content.submitted")
      })

      const remove = Effect.fn("Content.remove")(function*(customerId: CustomerId, contentId: ContentId) {
        return yield* inTransaction(Effect.gen(function*() {
          const found = yield* repo.find(customerId, contentId, "delete")
          if (Option.isNone(found)) return yield* notFound()
          const refusal = deleteRefusal(found.value.status)
          if (refusal !== undefined) return yield* new InvalidTransition({ error: refusal })
          yield* repo.remove(customerId, contentId)
          yield* events.record(customerId, "content.deleted", { id: contentId, status: found.value.status })
        }))
      })

      const reschedule = Effect.fn("Content.reschedule")(
        function*(customerId: CustomerId, contentId: ContentId, scheduledAt: Date | null, platform?: string) {
          return yield* inTransaction(Effect.gen(function*() {
            const found = yield* repo.find(customerId, contentId, "change")
            if (Option.isNone(found)) return yield* notFound()
            const current = found.value
            if (current.status !== "approved") {
              return yield* new InvalidTransition({
                error:
                  `Cannot schedule content: it is ${current.status}, only approved, unpublished pieces can be (re)scheduled`
              })
            }
            return yield* repo.update(customerId, contentId, { status: current.status, scheduledAt, platform })
          }))
        }
      )

      // A read on the GET path: untraced (docs/design/http-core.md, "What the fast paths cost").
      const get = Effect.fnUntraced(function*(customerId: CustomerId, contentId: ContentId) {
        const found = yield* repo.find(customerId, contentId, false)
        if (Option.isNone(found)) return yield* notFound()
        return found.value
      })

      // A read on the GET path: untraced (docs/design/http-core.md, "What the fast paths cost").
      const list = Effect.fnUntraced(function*(customerId: CustomerId, query: ListQuery) {
        const after = query.cursor === undefined
          ? undefined
          : yield* cursors.decode("content", customerId, Position, query.cursor)
        // One row past the page tells whether another page exists.
        const records = yield* repo.list(customerId, { ...query, after, limit: query.limit + 1 })
        const page = records.slice(0, query.limit)
        const last = page[page.length - 1]
        return {
          content: page.map((record) => record.piece),
          nextCursor: records.length > query.limit && last !== undefined
            ? cursors.encode("content", customerId, last.position)
            : null
        }
      })

      return Content.of({
        create,
        list,
        get,
        ofRun: repo.ofRun,
        reviewCounts: repo.reviewCounts,
        update,
        review,
        markPublished,
        markPublishedMany,
        submit,
        remove,
        reschedule
      })
    })
  ).pipe(Layer.provide(ContentRepo.layer))
}
