import { Effect, Option, Schema } from "effect"
import type { ContentId } from "../../../domain/Ids.ts"
import { Content } from "../../content/Content.ts"
import { Social } from "../../social/Social.ts"
import { once } from "./Once.ts"
import { OverBudget, type RunContext, skipped, type StepDefinition, StepFailed, succeeded, text } from "./Step.ts"

/** What handing one piece to the publisher did. */
export const HandOff = Schema.Struct({
  contentId: Schema.String,
  queue: Schema.Literals(["queued", "already", "not_connected"]),
  jobStatus: Schema.optionalKey(Schema.String),
  platform: Schema.optionalKey(Schema.NullOr(Schema.String)),
  scheduledAt: Schema.optionalKey(Schema.NullOr(Schema.String)),
  reason: Schema.optionalKey(Schema.String)
})
export type HandOff = typeof HandOff.Type

/** The pieces this run wrote, as they are now. */
const runPieces = (ctx: RunContext) => Effect.flatMap(Content, (content) => content.ofRun(ctx.customerId, ctx.runId))

/** `scheduledAt` of the run's input or config when it is a future instant; else the pieces go out now. */
const publishAt = (ctx: RunContext) => {
  const at = text(ctx.options.scheduledAt)
  return at !== undefined && Date.parse(at) > Date.now() ? at : undefined
}

/**
 * Hands one approved piece to the publisher, exactly once per run (key
 * `publish-<contentId>`, recorded in the same transaction as Social.schedule's
 * queue row, so both commit or neither). A piece already in the publishing
 * queue (level 5 queues at creation, or a person scheduled it) is left as it
 * is: asking again would reset a job that may be in flight.
 */
const handOff = (ctx: RunContext, contentId: ContentId, scheduledAt: string | undefined) =>
  Effect.gen(function*() {
    const social = yield* Social
    return yield* once(
      ctx.runId,
      `publish-${contentId}`,
      HandOff,
      Effect.gen(function*() {
        const queued = yield* social.queueEntry(ctx.customerId, contentId)
        if (Option.isSome(queued)) return { contentId, queue: "already", jobStatus: queued.value } satisfies HandOff
        const piece = yield* social.schedule(ctx.customerId, contentId, scheduledAt)
        return {
          contentId,
          queue: "queued",
          platform: piece.platform,
          scheduledAt: piece.scheduledAt
        } satisfies HandOff
      }),
      { atomic: true }
    ).pipe(
      // Not connected is a missing setting, like a missing url: the piece stays approved, nothing is recorded.
      Effect.catchTag(
        "PlatformNotConnected",
        (error) => Effect.succeed<HandOff>({ contentId, queue: "not_connected", reason: error.error })
      ),
      Effect.mapError((error) => {
        const message = `could not hand ${contentId} to the publisher: ${error.error}`
        // Over a budget cap (an ad's spend) the run suspends and hands the piece off again later.
        return error._tag === "BudgetExceeded" ? new OverBudget({ message }) : new StepFailed({ message })
      })
    )
  })

/** Hands the run's approved social pieces to the publisher. */
export const handToPublisher: StepDefinition = {
  name: "hand-to-publisher",
  run: (ctx) =>
    Effect.gen(function*() {
      const approved = (yield* runPieces(ctx)).filter((p) =>
        (p.type === "social" || p.type === "ad") && p.status === "approved"
      )
      if (approved.length === 0) return yield* skipped("no approved social pieces to publish")
      const at = publishAt(ctx)
      const handed: Array<HandOff> = []
      for (const piece of approved) handed.push(yield* handOff(ctx, piece.id, at))
      if (handed.every((h) => h.queue === "not_connected")) {
        const platforms = [...new Set(approved.map((p) => p.platform ?? "none"))].join(", ")
        return yield* skipped(`no connected platform for the approved pieces: connect ${platforms} first`, { handed })
      }
      return succeeded({ handed })
    })
}
