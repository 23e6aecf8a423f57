import { Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { createHmac, randomUUID } from "node:crypto"
import { AppConfig } from "../../../Config.ts"
import { InvalidState } from "../../../domain/Errors.ts"
import type { ContentId, CustomerId } from "../../../domain/Ids.ts"
import { safeEqual } from "../../../domain/Secrets.ts"
import type { SocialPlatform } from "../../../domain/Social.ts"
import { serverSecret } from "../../../platform/ServerSecrets.ts"
import { type ConnectedAccount, type OutgoingPost, ProviderError, SocialProvider } from "./Provider.ts"

const unavailable = (error: unknown) =>
  new ProviderError({
    transient: true,
    cause: "provider_unavailable",
    message: `sandbox store failed: ${String(error)}`
  })

/**
 * What the consent page's Allow hands the callback (as `consent`): proof,
 * bound to the state, that the person was shown the page and agreed. Keyed
 * with the connect states' secret; the callback refuses a state without it.
 */
export const consentProof = (secret: string, state: string) =>
  createHmac("sha256", secret).update(`sandbox consent.${state}`).digest("base64url")

/**
 * The local provider: the connect link is this service's own consent page,
 * a post is stored and shown at `/p/{contentId}`. Works with no account
 * anywhere; reports no metrics.
 */
export const SandboxProviderLive = Layer.effect(
  SocialProvider,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const permalink = (contentId: ContentId) => `${config.baseUrl}/p/${encodeURIComponent(contentId)}`
    const stateSecret = yield* serverSecret("social_state")

    const connectLink = (_customerId: string, _platform: SocialPlatform, callbackUrl: string) => {
      const state = new URL(callbackUrl).searchParams.get("state") ?? ""
      return Effect.succeed(`${config.baseUrl}/connect/sandbox?state=${encodeURIComponent(state)}`)
    }

    const completeConnect = (
      _customerId: string,
      platform: SocialPlatform,
      query: Readonly<Record<string, string>>
    ) => {
      const consent = query.consent
      if (consent === undefined || !safeEqual(consentProof(stateSecret, query.state ?? ""), consent)) {
        return Effect.fail(
          new InvalidState({
            error: "This connection was not allowed on its consent page: open the connect link again"
          })
        )
      }
      const given = query.account?.trim() ?? ""
      const accountName = given.length > 0 && given.length <= 100 ? given : `${platform} sandbox account`
      return Effect.succeed<ReadonlyArray<ConnectedAccount>>([{ platform, accountName }])
    }

    const accounts = (customerId: CustomerId) =>
      sql<{ platform: SocialPlatform; accountName: string | null }>`
      SELECT platform, account_name FROM social_connections WHERE customer_id = ${customerId}`.pipe(
        Effect.mapError(unavailable)
      )

    // Keyed by the piece: a second send of the same piece finds the first. One statement for a whole batch.
    const publishMany = (posts: ReadonlyArray<OutgoingPost>) =>
      sql<{ contentId: ContentId; providerPostId: string }>`
      INSERT INTO sandbox_posts (content_id, customer_id, platform, body, media, provider_post_id)
      SELECT p.content_id, p.customer_id, p.platform, p.body, p.media::jsonb, p.provider_post_id
      FROM unnest(${posts.map((p) => p.contentId)}::text[], ${posts.map((p) => p.customerId)}::uuid[],
        ${posts.map((p) => p.platform)}::text[], ${posts.map((p) => p.body)}::text[],
        ${posts.map((p) => JSON.stringify(p.media))}::text[],
        ${posts.map(() => `sbx_${randomUUID().replaceAll("-", "")}`)}::text[])
        AS p(content_id, customer_id, platform, body, media, provider_post_id)
      ON CONFLICT (content_id) DO UPDATE SET content_id = EXCLUDED.content_id
      RETURNING content_id, provider_post_id`.pipe(
        Effect.map((rows) => {
          const ids = new Map(rows.map((row) => [row.contentId, row.providerPostId]))
          return posts.map((post) => {
            const providerPostId = ids.get(post.contentId)
            return providerPostId === undefined
              ? Exit.fail(unavailable("no row stored"))
              : Exit.succeed({ providerPostId, url: permalink(post.contentId) })
          })
        }),
        Effect.catch((error) => Effect.succeed(posts.map(() => Exit.fail(unavailable(error)))))
      )

    const publish = (post: OutgoingPost) => Effect.flatMap(publishMany([post]), (outcomes) => outcomes[0]!)

    const findPost = (customerId: CustomerId, contentId: ContentId, _platform: SocialPlatform) =>
      sql<{ providerPostId: string }>`
      SELECT provider_post_id FROM sandbox_posts WHERE customer_id = ${customerId} AND content_id = ${contentId}`.pipe(
        Effect.map((rows) =>
          rows.length === 0
            ? Option.none()
            : Option.some({ providerPostId: rows[0].providerPostId, url: permalink(contentId) })
        ),
        Effect.mapError(unavailable)
      )

    const remove = (customerId: CustomerId, providerPostId: string) =>
      sql`DELETE FROM sandbox_posts WHERE customer_id = ${customerId} AND provider_post_id = ${providerPostId}`.pipe(
        Effect.asVoid,
        Effect.mapError(unavailable)
      )

    return SocialProvider.of({
      // A try is a database write in this process: it ends with the process.
      trySeconds: 0,
      name: "sandbox",
      // One statement stores a batch.
      batchSize: 250,
      connectLink,
      completeConnect,
      accounts,
      publish,
      publishMany,
      findPost,
      remove,
      metrics: () => Effect.succeed(Option.none())
    })
  })
)
