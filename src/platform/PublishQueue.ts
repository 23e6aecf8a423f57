import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The port through which content hands a piece to the social publisher
 * without depending on it (the publisher depends on content). It writes the
 * queue row in the caller's transaction, like the outbox; the publisher
 * (src/features/social/Publisher.ts) claims it.
 */
export class PublishQueue extends Context.Service<PublishQueue, {
  /** Queues the piece for now when its platform is connected; otherwise does nothing. */
  readonly enqueueIfConnected: (customerId: string, contentId: string, platform: string) => Effect.Effect<boolean>
}>()("herald/platform/PublishQueue") {
  static readonly layer = Layer.effect(PublishQueue, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const enqueueIfConnected = (customerId: string, contentId: string, platform: string) =>
      sql`INSERT INTO publish_jobs (content_id, customer_id, platform, status, due_at, next_attempt_at)
        SELECT ${contentId}, ${customerId}, ${platform}, 'queued', clock_timestamp(), clock_timestamp()
        WHERE EXISTS (SELECT 1 FROM social_connections WHERE customer_id = ${customerId} AND platform = ${platform})
        ON CONFLICT (content_id) DO NOTHING
        RETURNING content_id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie, Effect.withSpan("PublishQueue.enqueue"))
    return PublishQueue.of({ enqueueIfConnected })
  }))
}
