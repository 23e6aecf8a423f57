import { Context, Data, Effect, type Exit, type Option } from "effect"
import type { InvalidState } from "../../../domain/Errors.ts"
import type { ContentId, CustomerId } from "../../../domain/Ids.ts"
import type { SocialPlatform } from "../../../domain/Social.ts"

/**
 * A provider's refusal or outage. `transient` failures are retried with
 * backoff; others end the publication at once. `cause` is machine-readable
 * (e.g. `provider_unavailable`, `provider_rejected`, `not_connected`).
 */
export class ProviderError extends Data.TaggedError("ProviderError")<{
  readonly transient: boolean
  readonly cause: string
  readonly message: string
  /** The earliest a retry can learn more (a cached answer turning over): the retry waits at least this long. */
  readonly retryAfterSeconds?: number | undefined
}> {}

export interface ConnectedAccount {
  readonly platform: SocialPlatform
  readonly accountName: string | null
}

export interface OutgoingPost {
  readonly customerId: CustomerId
  readonly contentId: ContentId
  readonly platform: SocialPlatform
  readonly body: string
  readonly media: ReadonlyArray<string>
  /** Hand the post to the provider's own scheduler for this instant (ISO 8601, UTC). */
  readonly scheduleAt?: string | undefined
}

export interface PublishedPost {
  readonly providerPostId: string
  /** The post's public address. */
  readonly url: string
}

export interface PostMetrics {
  readonly impressions: number
  readonly engagements: number
}

/**
 * One social publishing backend: the sandbox (default) or Ayrshare. Every
 * method answers for one customer; `findPost` is how the publisher reconciles
 * before a retry, so a post sent but not recorded is never sent twice.
 */
export class SocialProvider extends Context.Service<SocialProvider, {
  readonly name: "sandbox" | "ayrshare"
  /**
   * Posts the publisher claims and sends as one batch. A batch must end well
   * within the claim's lease (PUBLISH_LEASE_SECONDS), else another process
   * could take its posts over while they are still being sent.
   */
  readonly batchSize: number
  /**
   * The longest one try can take (its request timeout). A claim whose lease
   * lapsed before then may still be sending, so the next claim does not look
   * the post up, nor send it, before this much time has passed since that try began.
   */
  readonly trySeconds: number
  /** Where the person goes to connect `platform`; the flow ends at `callbackUrl`. */
  readonly connectLink: (
    customerId: CustomerId,
    platform: SocialPlatform,
    callbackUrl: string
  ) => Effect.Effect<string, ProviderError>
  /**
   * The accounts the callback connected (the query the provider sent back,
   * `state` included); InvalidState when the callback lacks the provider's
   * own proof that the person consented.
   */
  readonly completeConnect: (
    customerId: CustomerId,
    platform: SocialPlatform,
    query: Readonly<Record<string, string>>
  ) => Effect.Effect<ReadonlyArray<ConnectedAccount>, ProviderError | InvalidState>
  /** The customer's active accounts at the provider. */
  readonly accounts: (customerId: CustomerId) => Effect.Effect<ReadonlyArray<ConnectedAccount>, ProviderError>
  readonly publish: (post: OutgoingPost) => Effect.Effect<PublishedPost, ProviderError>
  /** Several posts at once (the publisher's batches): one outcome per post, in the order given. */
  readonly publishMany: (
    posts: ReadonlyArray<OutgoingPost>
  ) => Effect.Effect<ReadonlyArray<Exit.Exit<PublishedPost, ProviderError>>>
  /**
   * A post this service already sent for the piece, if the provider has one.
   * `triedAt` is when the latest earlier try began: an answer that cannot
   * show a post made by that try (a cached page older than it) is not taken
   * for "none" but fails transient (`history_stale`), so no retry sends a
   * post the provider already has.
   */
  readonly findPost: (
    customerId: CustomerId,
    contentId: ContentId,
    platform: SocialPlatform,
    triedAt?: Date | undefined
  ) => Effect.Effect<Option.Option<PublishedPost>, ProviderError>
  readonly remove: (customerId: CustomerId, providerPostId: string) => Effect.Effect<void, ProviderError>
  /** Figures the provider reports; none (sandbox) is `Option.none()`, never zeros made up. */
  readonly metrics: (
    customerId: CustomerId,
    providerPostId: string,
    platform: SocialPlatform
  ) => Effect.Effect<Option.Option<PostMetrics>, ProviderError>
}>()("herald/features/social/providers/SocialProvider") {}

/** `publishMany` for a provider without a bulk call: the posts one by one, `concurrency` at a time. */
export const publishEach = (
  publish: (post: OutgoingPost) => Effect.Effect<PublishedPost, ProviderError>,
  concurrency: number
) =>
(posts: ReadonlyArray<OutgoingPost>) => Effect.forEach(posts, (post) => Effect.exit(publish(post)), { concurrency })
