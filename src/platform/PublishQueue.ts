import { Context, type Effect } from "effect"
import type { ContentPiece } from "../domain/Content.ts"
import type { BudgetExceeded } from "../domain/Errors.ts"
import type { CustomerId } from "../domain/Ids.ts"
import type { PublishViolation } from "../domain/Social.ts"

/** What the queue needs of a piece: which post, where, and what it costs. */
export type QueuedPiece = Pick<ContentPiece, "id" | "type" | "platform" | "body" | "metadata">

/** What became of a piece offered to the queue. */
export type Enqueued =
  | { readonly _tag: "Queued" }
  | { readonly _tag: "NotConnected" }
  /** It breaks its platform's rules (length, required media): nothing queued, nothing charged. */
  | { readonly _tag: "Refused"; readonly violation: PublishViolation }

/**
 * The port through which content and the social front door hand a piece to
 * the publisher without depending on it (the publisher depends on content).
 * It is the one way onto the queue: every path that publishes goes through
 * it, so every path pays the same budget. It writes in the caller's
 * transaction, like the outbox; the publisher (src/features/social/
 * Publisher.ts) claims the row, and its adapter (src/features/social/
 * Queue.ts) implements this.
 */
export class PublishQueue extends Context.Service<PublishQueue, {
  /**
   * Queues the piece on its platform, due at `due` (now when undefined),
   * resetting the row an earlier queueing left (fresh tries, no claim), when
   * that platform is connected and the piece keeps its platform's rules;
   * otherwise does nothing and answers why. An ad's spend is charged to the
   * budget the first time the piece is queued and never again; past a cap
   * nothing is queued.
   */
  readonly enqueue: (
    customerId: CustomerId,
    piece: QueuedPiece,
    due?: Date | undefined
  ) => Effect.Effect<Enqueued, BudgetExceeded>
  /**
   * Takes, in the caller's transaction, the locks `enqueue` would take for the piece, in its order: the
   * customer's charges (for a piece with a spend), then the piece's queue row. Queueing and the publisher lock
   * the queue row before the piece; a caller that changes the piece before queueing it takes these first, so
   * the two orders never cross.
   */
  readonly lockFor: (customerId: CustomerId, piece: QueuedPiece) => Effect.Effect<void>
}>()("herald/platform/PublishQueue") {}
