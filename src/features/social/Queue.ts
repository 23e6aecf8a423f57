import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { adSpend } from "../../domain/Budget.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import { isSocialPlatform, pieceViolation } from "../../domain/Social.ts"
import { withConflictRetry } from "../../platform/Database.ts"
import { PlatformServices } from "../../platform/Platform.ts"
import { type Enqueued, PublishQueue, type QueuedPiece } from "../../platform/PublishQueue.ts"
import { Budget } from "../settings/Budget.ts"
import { SettingsServices } from "../settings/Live.ts"

/**
 * The publishing queue's one way in (the PublishQueue port), which content
 * queues through. The app provides it under every feature (App.ts): social
 * stands on content, so content cannot take it from social's layer.
 *
 * The charge and the queue row commit together, and the charge is keyed by the piece: a
 * refused charge queues nothing, and queueing the piece again (retry,
 * reschedule, a workflow's hand-off) finds it paid. Being the one way in, it
 * is where every path meets the per-platform rules.
 */
const notConnected: Enqueued = { _tag: "NotConnected" }
const queued: Enqueued = { _tag: "Queued" }

export const PublishQueueLive = Layer.effect(
  PublishQueue,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const budget = yield* Budget

    const enqueue = Effect.fn("PublishQueue.enqueue")(
      function*(customerId: CustomerId, piece: QueuedPiece, due?: Date) {
        const platform = piece.platform
        if (!isSocialPlatform(platform)) return notConnected
        const violation = pieceViolation(platform, piece)
        if (violation !== undefined) return { _tag: "Refused", violation } satisfies Enqueued
        return yield* Effect.gen(function*() {
          const connected =
            yield* sql`SELECT 1 FROM social_connections WHERE customer_id = ${customerId} AND platform = ${platform}`
          if (connected.length === 0) return notConnected
          const spend = adSpend(piece)
          if (spend > 0) yield* budget.charge(customerId, "ads", spend, piece.id)
          const at = due === undefined ? sql`clock_timestamp()` : sql`${due}`
          yield* sql`INSERT INTO publish_jobs (content_id, customer_id, platform, status, due_at, next_attempt_at)
        VALUES (${piece.id}, ${customerId}, ${platform}, 'queued', ${at}, ${at})
        ON CONFLICT (content_id) DO UPDATE SET status = 'queued', due_at = EXCLUDED.due_at,
          next_attempt_at = EXCLUDED.next_attempt_at, attempts = 0, locked_until = NULL, claim_token = NULL, last_error = NULL`
          return queued
        }).pipe(withConflictRetry(sql), Effect.catchTag("SqlError", Effect.die))
      }
    )

    const lockFor = (customerId: CustomerId, piece: QueuedPiece) =>
      Effect.gen(function*() {
        if (adSpend(piece) > 0) yield* budget.holdCharges(customerId)
        yield* sql`SELECT 1 FROM publish_jobs WHERE content_id = ${piece.id} FOR NO KEY UPDATE`
      }).pipe(Effect.orDie)

    return PublishQueue.of({ enqueue, lockFor })
  })
).pipe(Layer.provide([SettingsServices, PlatformServices]))
