import { Effect } from "effect"
import { publishToSocial, scheduleContent, trackRevenue } from "../../api/tools/definitions.ts"
import type { ContentId, CustomerId } from "../../domain/Ids.ts"
import type { SocialPlatform } from "../../domain/Social.ts"
import { implement } from "../../platform/tools/Handler.ts"
import { Links } from "./Links.ts"
import { Social } from "./Social.ts"

const postInput = (input: {
  readonly platform: SocialPlatform
  readonly body: string
  readonly media?: ReadonlyArray<string> | undefined
  readonly spend?: number | undefined
  readonly scheduledAt?: string | undefined
}) => ({
  platform: input.platform,
  body: input.body,
  ...(input.media === undefined ? {} : { media: input.media }),
  ...(input.spend === undefined ? {} : { spend: input.spend }),
  ...(input.scheduledAt === undefined ? {} : { scheduledAt: input.scheduledAt })
})

/**
 * The post a publishing tool asked for: the piece of the queue it names
 * (`contentId`: approved as it stands, or with `body` as its text), else a
 * new one. Either way one piece goes out, never a copy of a draft.
 */
const post = (
  social: Social["Service"],
  input: Parameters<typeof postInput>[0] & {
    readonly customerId: CustomerId
    readonly contentId?: ContentId | undefined
  },
  agentId: string
) =>
  input.contentId === undefined
    ? social.publish(input.customerId, postInput(input), { agentId })
    : social.publishExisting(input.customerId, input.contentId, {
      platform: input.platform,
      body: input.body,
      media: input.media,
      scheduledAt: input.scheduledAt
    })

/** How a summary names the post: its title when it has one (a drafted piece), else its platform and id. */
const named = (piece: { readonly id: string; readonly title: string | null }, platform: string) =>
  piece.title === null || piece.title.length === 0 ? `${platform} post ${piece.id}` : `"${piece.title}" (${piece.id})`

/** schedule_content: the publisher's queue at `scheduledAt` (Social.publish); not connected, too long, past: tool errors with their codes. */
export const scheduleContentTool = implement(
  scheduleContent,
  Effect.gen(function*() {
    const social = yield* Social
    return (input, context) =>
      Effect.gen(function*() {
        const piece = yield* post(social, input, context.via)
        return {
          summary: `Scheduled ${named(piece, input.platform)} for ${
            piece.scheduledAt ?? input.scheduledAt
          } (status ${piece.status}).`,
          data: { ...piece }
        }
      })
  })
)

/** publish_to_social: the publisher's queue now (or at `scheduledAt`), through Social.publish. */
export const publishToSocialTool = implement(
  publishToSocial,
  Effect.gen(function*() {
    const social = yield* Social
    return (input, context) =>
      Effect.gen(function*() {
        const piece = yield* post(social, input, context.via)
        const when = piece.scheduledAt === null ? "now" : `at ${piece.scheduledAt}`
        return {
          summary: `Queued ${
            named(piece, input.platform)
          } to publish ${when} (status ${piece.status}); it becomes published when the network accepts it.`,
          data: { ...piece }
        }
      })
  })
)

/** track_revenue: Links.trackRevenue (an unknown piece or link is E_NOT_FOUND). */
export const trackRevenueTool = implement(
  trackRevenue,
  Effect.gen(function*() {
    const links = yield* Links
    return (input) =>
      Effect.gen(function*() {
        const { customerId, ...revenue } = input
        const record = yield* links.trackRevenue(customerId, revenue)
        return {
          summary: `Recorded ${record.amount} ${record.currency}${
            record.channel === null ? "" : ` under ${record.channel}`
          }${
            record.contentId === null ? "" : ` for piece ${record.contentId}`
          } (${record.id}); it shows in the analytics report's revenue.`,
          data: { ...record }
        }
      })
  })
)
