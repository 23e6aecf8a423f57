import { Effect } from "effect"
import { runContentCreation } from "../../api/tools/definitions.ts"
import { implement } from "../../platform/tools/Handler.ts"
import { Content } from "./Content.ts"
import { draftPiece } from "./drafting.ts"

/**
 * run_content_creation: a piece written by rules from the request, stored
 * through Content.create as the agent, so the customer's autonomy (the
 * tool's skill override, else the content type's, else the global default)
 * decides whether it is a draft, pending approval or approved.
 */
export const runContentCreationTool = implement(
  runContentCreation,
  Effect.gen(function*() {
    const content = yield* Content
    return (input, context) =>
      Effect.gen(function*() {
        const draft = draftPiece(input)
        const piece = yield* content.create(input.customerId, {
          type: input.type,
          ...(input.platform === undefined ? {} : { platform: input.platform }),
          title: draft.title,
          body: draft.body,
          metadata: {
            tool: "run_content_creation",
            topic: input.topic,
            ...(input.keywords === undefined ? {} : { keywords: [...input.keywords] }),
            ...(input.url === undefined ? {} : { url: input.url })
          }
        }, { actor: "agent", skill: "run_content_creation", agentId: context.via })
        return {
          summary: `Created ${piece.type} piece ${piece.id} "${piece.title}" with status ${piece.status}.`,
          data: { ...piece }
        }
      })
  })
)
