import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import type { ContentPiece } from "../../domain/Content.ts"
import {
  BudgetExceeded,
  InvalidState,
  InvalidTransition,
  NotFound,
  PlatformNotConnected,
  Unavailable,
  ValidationError
} from "../../domain/Errors.ts"
import type { ContentId, CustomerId, RunId } from "../../domain/Ids.ts"
import {
  isSocialPlatform,
  type PublishAttempt,
  type PublishViolation,
  publishViolation,
  signState,
  type SocialConnection,
  type SocialPlatform,
  socialPlatforms,
  verifyState,
  violationText
} from "../../domain/Social.ts"
import { withConflictRetry } from "../../platform/Database.ts"
import { Events } from "../../platform/Events.ts"
import { PublishQueue } from "../../platform/PublishQueue.ts"
import { serverSecret } from "../../platform/ServerSecrets.ts"
import { Content } from "../content/Content.ts"
import { type ConnectedAccount, SocialProvider } from "./providers/Provider.ts"

export interface PublishInput {
  readonly platform: SocialPlatform
  readonly body: string
  readonly media?: ReadonlyArray<string> | undefined
  /** ISO 8601 with an offset; the instant is what counts. */
  readonly scheduledAt?: string | undefined
  readonly spend?: number | undefined
}

/** Publishing a piece that exists: where (its own platform when not given) and when (now when not given). */
export interface PublishPieceInput {
  readonly platform?: SocialPlatform | undefined
  /** ISO 8601 with an offset; the instant is what counts. */
  readonly scheduledAt?: string | undefined
}

/** Posting a piece of the queue as a person asking for it: its text and media replaced first when given. */
export interface PublishExistingInput extends PublishPieceInput {
  readonly body?: string | undefined
  readonly media?: ReadonlyArray<string> | undefined
}

export interface PublishOptions {
  /** Who asks: a person through the API, or an agent (MCP tool, workflow) for its provenance. */
  readonly agentId?: string | undefined
  readonly runId?: RunId | undefined
}

interface ConnectionRow {
  readonly platform: string
  readonly accountName: string | null
  readonly connectedAt: Date
}

interface AttemptRow {
  readonly id: string
  readonly attempt: number
  readonly provider: string
  readonly status: PublishAttempt["status"]
  readonly providerPostId: string | null
  readonly error: string | null
  readonly attemptedAt: Date
}

/** Where the integration callback sends the person back. */
export const dashboardPath = "/dashboard"

const invalidState = () => new InvalidState({ error: "Invalid or expired state: start the connection again" })

/**
 * Social connections and the publishing queue's front door. Publishing is
 * done by the publisher (Publisher.ts), which claims `publish_jobs` rows.
 */
export class Social extends Context.Service<Social, {
  readonly connections: (customerId: CustomerId) => Effect.Effect<Record<SocialPlatform, SocialConnection>>
  readonly connect: (
    customerId: CustomerId,
    platforms: ReadonlyArray<SocialPlatform> | undefined
  ) => Effect.Effect<{ readonly connectLinks: Record<string, string> }, Unavailable>
  /** Checks and spends the state, connects, writes `platform.connected`; answers where to send the person. */
  readonly completeCallback: (
    query: Readonly<Record<string, string | undefined>>
  ) => Effect.Effect<string, InvalidState | Unavailable>
  /** Whether a consent page may be shown for this state (authentic, unexpired, unused). */
  readonly checkState: (state: string) => Effect.Effect<{ readonly platform: string }, InvalidState>
  readonly stateSecret: string
  readonly publish: (
    customerId: CustomerId,
    input: PublishInput,
    options?: PublishOptions
  ) => Effect.Effect<ContentPiece, ValidationError | PlatformNotConnected | BudgetExceeded>
  /**
   * Publishes an existing approved piece (the publish route, the dashboard): now, or at
   * `scheduledAt`; on `platform` when given (the piece's platform becomes it).
   */
  readonly publishPiece: (
    customerId: CustomerId,
    contentId: ContentId,
    input: PublishPieceInput
  ) => Effect.Effect<
    ContentPiece,
    NotFound | InvalidTransition | ValidationError | PlatformNotConnected | BudgetExceeded
  >
  /**
   * Posts a piece of the queue because a person asked for it to go out ("yes, schedule it" in the chat,
   * schedule_content or publish_to_social with its id): its text replaced first when `body` differs, a draft
   * or pending piece approved as a review would, then `publishPiece`; all of it or none (a platform not
   * connected, a past time or a budget cap leaves the piece as it was).
   */
  readonly publishExisting: (
    customerId: CustomerId,
    contentId: ContentId,
    input: PublishExistingInput
  ) => Effect.Effect<
    ContentPiece,
    NotFound | InvalidTransition | ValidationError | PlatformNotConnected | BudgetExceeded
  >
  /** Queues an existing approved piece on its platform (workflows' hand-off): now, or at `scheduledAt`. */
  readonly schedule: (
    customerId: CustomerId,
    contentId: ContentId,
    scheduledAt?: string | undefined
  ) => Effect.Effect<
    ContentPiece,
    NotFound | InvalidTransition | ValidationError | PlatformNotConnected | BudgetExceeded
  >
  /**
   * `schedule`, unless the piece is in the publishing queue already (level 5 queued it at creation, or a
   * person did): then it is left as it is, since queueing it again would reset a job that may be in flight.
   * Holds the queue row's lock until the caller's transaction ends, so a caller that records the hand-off
   * in the same transaction hands a piece off once.
   */
  readonly scheduleUnlessQueued: (
    customerId: CustomerId,
    contentId: ContentId,
    scheduledAt?: string | undefined
  ) => Effect.Effect<
    | { readonly queue: "already"; readonly jobStatus: string }
    | { readonly queue: "queued"; readonly piece: ContentPiece },
    NotFound | InvalidTransition | ValidationError | PlatformNotConnected | BudgetExceeded
  >
  /** The newest approved social pieces that are neither queued nor published (the dashboard's "ready to publish"). */
  readonly readyToPublish: (customerId: CustomerId) => Effect.Effect<ReadonlyArray<ContentPiece>>
  readonly attempts: (
    customerId: CustomerId,
    contentId: ContentId
  ) => Effect.Effect<ReadonlyArray<PublishAttempt>, NotFound>
  /**
   * The status of the piece's publishing queue entry, if it has one, locked
   * until the caller's transaction ends (a workflow's hand-off leaves a piece
   * already queued alone).
   */
  readonly queueEntry: (customerId: CustomerId, contentId: ContentId) => Effect.Effect<Option.Option<string>>
  readonly retry: (
    customerId: CustomerId,
    contentId: ContentId
  ) => Effect.Effect<
    ContentPiece,
    NotFound | InvalidTransition | ValidationError | PlatformNotConnected | BudgetExceeded
  >
  readonly cancel: (
    customerId: CustomerId,
    contentId: ContentId
  ) => Effect.Effect<ContentPiece, NotFound | InvalidTransition>
}>()("herald/features/social/Social") {
  static readonly layer = Layer.effect(
    Social,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const config = yield* AppConfig
      const content = yield* Content
      const queue = yield* PublishQueue
      const events = yield* Events
      const provider = yield* SocialProvider
      const stateSecret = yield* serverSecret("social_state")
      // Every transaction here is statements only (a provider is called before one, never inside), so one that
      // PostgreSQL aborts on a deadlock or serialization conflict is run again whole.
      const transaction = withConflictRetry(sql)

      const connections = Effect.fnUntraced(function*(customerId: CustomerId) {
        const rows = yield* sql<ConnectionRow>`
        SELECT platform, account_name, connected_at FROM social_connections WHERE customer_id = ${customerId}`.pipe(
          Effect.orDie
        )
        const out = {} as Record<SocialPlatform, SocialConnection>
        for (const platform of socialPlatforms) {
          const row = rows.find((r) => r.platform === platform)
          out[platform] = row === undefined
            ? { connected: false, accountName: null, connectedAt: null }
            : { connected: true, accountName: row.accountName, connectedAt: new Date(row.connectedAt).toISOString() }
        }
        return out
      })

      const isConnected = (customerId: CustomerId, platform: string) =>
        sql`SELECT 1 FROM social_connections WHERE customer_id = ${customerId} AND platform = ${platform}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )

      const notConnected = (platform: string) =>
        new PlatformNotConnected({
          error: `Platform ${platform} is not connected: connect it first (POST /api/connect/{customerId})`
        })

      const connect = Effect.fn("Social.connect")(
        function*(customerId: CustomerId, platforms: ReadonlyArray<SocialPlatform> | undefined) {
          const wanted = platforms === undefined || platforms.length === 0 ? socialPlatforms : [...new Set(platforms)]
          const now = Date.now()
          const expires = Math.floor(now / 1000) + config.connectStateTtlSeconds
          const connectLinks: Record<string, string> = {}
          for (const platform of wanted) {
            const nonce = randomUUID()
            yield* sql`INSERT INTO connect_states (nonce, customer_id, platform, expires_at)
          VALUES (${nonce}, ${customerId}, ${platform}, ${new Date(expires * 1000)})`.pipe(Effect.orDie)
            const state = signState(stateSecret, { n: nonce, c: customerId, p: platform, e: expires })
            const callback = `${config.baseUrl}/api/integration/callback?state=${encodeURIComponent(state)}`
            connectLinks[platform] = yield* provider.connectLink(customerId, platform, callback).pipe(
              Effect.mapError((error) =>
                new Unavailable({ error: `The social provider is unavailable: ${error.message}` })
              )
            )
          }
          return { connectLinks }
        }
      )

      const checkState = Effect.fnUntraced(function*(state: string) {
        const payload = verifyState(stateSecret, state, Math.floor(Date.now() / 1000))
        if (payload === undefined) return yield* invalidState()
        const rows = yield* sql`SELECT 1 FROM connect_states
        WHERE nonce = ${payload.n} AND customer_id = ${payload.c} AND used_at IS NULL AND expires_at > now()`.pipe(
          Effect.orDie
        )
        if (rows.length === 0) return yield* invalidState()
        return { platform: payload.p }
      })

      const completeCallback = Effect.fn("Social.completeCallback")(
        function*(query: Readonly<Record<string, string | undefined>>) {
          const state = query.state
          if (state === undefined || state.length === 0) return yield* invalidState()
          const payload = verifyState(stateSecret, state, Math.floor(Date.now() / 1000))
          if (payload === undefined || !isSocialPlatform(payload.p)) return yield* invalidState()
          const platform = payload.p
          const customerId = payload.c
          const extra: Record<string, string> = {}
          // The state too: a provider may have bound its own proof to it.
          for (const [name, value] of Object.entries(query)) if (value !== undefined) extra[name] = value
          // The provider is asked before the state is spent: an outage, or a callback the provider refuses, leaves the link usable.
          const accounts = yield* provider.completeConnect(customerId, platform, extra).pipe(
            Effect.catchTag(
              "ProviderError",
              (error) => Effect.fail(new Unavailable({ error: `The social provider is unavailable: ${error.message}` }))
            )
          )
          yield* Effect.gen(function*() {
            // Spending the state and connecting commit together: a reused state connects nothing.
            const spent = yield* sql`UPDATE connect_states SET used_at = now()
          WHERE nonce = ${payload.n} AND customer_id = ${customerId} AND used_at IS NULL AND expires_at > now()
          RETURNING nonce`
            if (spent.length === 0) {
              return yield* invalidState()
            }
            const connected: ReadonlyArray<ConnectedAccount> = accounts.length > 0 ? accounts : []
            for (const account of connected) {
              yield* sql`INSERT INTO social_connections (customer_id, platform, account_name)
            VALUES (${customerId}, ${account.platform}, ${account.accountName})
            ON CONFLICT (customer_id, platform) DO UPDATE SET account_name = EXCLUDED.account_name`
              yield* events.record(customerId, "platform.connected", {
                platform: account.platform,
                accountName: account.accountName,
                provider: provider.name
              })
            }
          }).pipe(transaction, Effect.catchTag("SqlError", Effect.die))
          // The dashboard confirms the connection it reads back, in its social section.
          return `${dashboardPath}?connected=${platform}#social`
        }
      )

      const refused = (violation: PublishViolation) => {
        const text = violationText(violation)
        return new ValidationError({ error: text.error, details: [{ path: text.path, message: text.message }] })
      }

      const pastError = () =>
        new ValidationError({
          error: "Invalid body.scheduledAt: must not be in the past",
          details: [{ path: "body.scheduledAt", message: "must not be in the past" }]
        })

      const dueDate = (scheduledAt: string | undefined, _now: number) =>
        scheduledAt === undefined ? undefined : new Date(Date.parse(scheduledAt))

      /** Onto the queue (charging an ad's spend the first time); a platform disconnected since the check is refused as unconnected. */
      const enqueue = (customerId: CustomerId, piece: ContentPiece, platform: string, due: Date | undefined) =>
        Effect.gen(function*() {
          const outcome = yield* queue.enqueue(customerId, piece, due)
          if (outcome._tag === "NotConnected") return yield* notConnected(platform)
          if (outcome._tag === "Refused") return yield* refused(outcome.violation)
        })

      const publish = Effect.fn("Social.publish")(
        function*(customerId: CustomerId, input: PublishInput, options: PublishOptions = {}) {
          const now = Date.now()
          const violation = publishViolation(input.platform, input.body, input.media)
          if (violation !== undefined) return yield* refused(violation)
          const due = dueDate(input.scheduledAt, now)
          if (due !== undefined && due.getTime() < now) return yield* pastError()
          if (!(yield* isConnected(customerId, input.platform))) return yield* notConnected(input.platform)
          return yield* Effect.gen(function*() {
            const metadata: Record<string, unknown> = { media: input.media ?? [] }
            if (input.spend !== undefined) metadata.spend = input.spend
            const piece = yield* content.create(customerId, {
              type: input.spend === undefined ? "social" : "ad",
              platform: input.platform,
              body: input.body,
              metadata
            }, {
              actor: "person",
              status: "approved",
              scheduledAt: due,
              agentId: options.agentId,
              runId: options.runId
            })
            yield* enqueue(customerId, piece, input.platform, due)
            if (due !== undefined && piece.scheduledAt !== null) {
              yield* events.record(customerId, "content.scheduled", {
                contentId: piece.id,
                platform: input.platform,
                scheduledAt: piece.scheduledAt
              })
            }
            return piece
          }).pipe(transaction, Effect.catchTag("SqlError", Effect.die))
        }
      )

      const publishPiece = Effect.fn("Social.publishPiece")(
        function*(customerId: CustomerId, contentId: ContentId, input: PublishPieceInput) {
          const now = Date.now()
          const due = dueDate(input.scheduledAt, now)
          if (due !== undefined && due.getTime() < now) return yield* pastError()
          const piece = yield* content.get(customerId, contentId)
          if (piece.status !== "approved") {
            return yield* new InvalidTransition({
              error:
                `Cannot publish content: the move from ${piece.status} to published is not allowed (only approved pieces are published)`
            })
          }
          const platform = input.platform ?? piece.platform
          if (!isSocialPlatform(platform)) {
            return yield* new ValidationError({
              error:
                `Invalid body.platform: content ${contentId} has no social platform: give one of x, linkedin, instagram, facebook, tiktok, pinterest`,
              details: [{ path: "body.platform", message: "is required: the piece has no social platform" }]
            })
          }
          return yield* Effect.gen(function*() {
            // The queue entry checks the platform's rules and the connection itself (a refused piece is refused
            // before anything is written). Queued (and charged) before the piece is locked: every path takes the
            // customer's charge lock, then the queue row, then the piece, the order the publisher shares (its
            // queue row before its piece), so no two of them wait for each other in a cycle.
            yield* enqueue(customerId, { ...piece, platform }, platform, due)
            const updated = yield* content.reschedule(
              customerId,
              contentId,
              due ?? null,
              platform === piece.platform ? undefined : platform
            )
            if (due !== undefined) {
              yield* events.record(customerId, "content.scheduled", {
                contentId,
                platform,
                scheduledAt: updated.scheduledAt
              })
            }
            return updated
          }).pipe(transaction, Effect.catchTag("SqlError", Effect.die))
        }
      )

      const publishExisting = Effect.fn("Social.publishExisting")(
        function*(customerId: CustomerId, contentId: ContentId, input: PublishExistingInput) {
          return yield* Effect.gen(function*() {
            const piece = yield* content.get(customerId, contentId)
            // Queueing locks the queue row before the piece: edited first, the piece would be locked before it.
            yield* queue.lockFor(customerId, piece)
            const body = input.body === undefined || input.body === piece.body ? {} : { body: input.body }
            const media = input.media === undefined ? {} : { metadata: { ...piece.metadata, media: input.media } }
            const edited = Object.keys(body).length + Object.keys(media).length === 0
              ? piece
              : yield* content.update(customerId, contentId, { ...body, ...media })
            if (edited.status === "draft" || edited.status === "pending_approval") {
              yield* content.review(customerId, contentId, "approve", undefined)
            }
            return yield* publishPiece(customerId, contentId, {
              platform: input.platform,
              scheduledAt: input.scheduledAt
            })
          }).pipe(transaction, Effect.catchTag("SqlError", Effect.die))
        }
      )

      const schedule = (customerId: CustomerId, contentId: ContentId, scheduledAt?: string) =>
        publishPiece(customerId, contentId, { scheduledAt })

      const scheduleUnlessQueued = Effect.fn("Social.scheduleUnlessQueued")(
        function*(customerId: CustomerId, contentId: ContentId, scheduledAt?: string) {
          const queued = yield* sql<{ status: string }>`SELECT status FROM publish_jobs
          WHERE customer_id = ${customerId} AND content_id = ${contentId} FOR UPDATE`.pipe(Effect.orDie)
          if (queued.length > 0) return { queue: "already" as const, jobStatus: queued[0]!.status }
          return { queue: "queued" as const, piece: yield* schedule(customerId, contentId, scheduledAt) }
        }
      )

      const readyToPublish = Effect.fnUntraced(function*(customerId: CustomerId) {
        const page = yield* content.list(customerId, { status: "approved", limit: 50 }).pipe(Effect.orDie)
        const social = page.content.filter((piece) => isSocialPlatform(piece.platform))
        if (social.length === 0) return []
        const queued = yield* sql<{ contentId: ContentId }>`SELECT content_id FROM publish_jobs
        WHERE customer_id = ${customerId} AND status = 'queued' AND content_id IN ${sql.in(social.map((p) => p.id))}`
          .pipe(Effect.orDie)
        const busy = new Set(queued.map((row) => row.contentId))
        return social.filter((piece) => !busy.has(piece.id)).slice(0, 10)
      })

      const attempts = Effect.fnUntraced(function*(customerId: CustomerId, contentId: ContentId) {
        yield* content.get(customerId, contentId)
        const rows = yield* sql<AttemptRow>`
        SELECT id, attempt, provider, status, provider_post_id, error, attempted_at FROM publish_attempts
        WHERE customer_id = ${customerId} AND content_id = ${contentId}
        ORDER BY attempted_at, id`.pipe(Effect.orDie)
        return rows.map((row) => ({
          id: row.id,
          attempt: row.attempt,
          provider: row.provider,
          status: row.status,
          providerPostId: row.providerPostId,
          error: row.error,
          attemptedAt: new Date(row.attemptedAt).toISOString()
        }))
      })

      const queueEntry = (customerId: CustomerId, contentId: ContentId) =>
        sql<
          { status: string }
        >`SELECT status FROM publish_jobs WHERE customer_id = ${customerId} AND content_id = ${contentId} FOR UPDATE`
          .pipe(
            Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => row.status)),
            Effect.orDie
          )

      const published = () =>
        new InvalidTransition({
          error: "Content is already published: the move from published to approved is not allowed"
        })

      const retry = Effect.fn("Social.retry")(function*(customerId: CustomerId, contentId: ContentId) {
        const piece = yield* content.get(customerId, contentId)
        if (piece.status === "published") return yield* published()
        if (piece.status !== "approved") {
          return yield* new InvalidTransition({
            error: `Cannot retry content: it is ${piece.status}, only approved, unpublished pieces are queued again`
          })
        }
        return yield* schedule(customerId, contentId)
      })

      const cancel = Effect.fn("Social.cancel")(function*(customerId: CustomerId, contentId: ContentId) {
        const piece = yield* content.get(customerId, contentId)
        if (piece.status === "published") return yield* published()
        return yield* Effect.gen(function*() {
          // The queue row before the piece, as queueing and the publisher lock them. A claim in flight keeps its
          // token: a post it already sent is still recorded as published.
          yield* sql`UPDATE publish_jobs SET status = 'cancelled'
          WHERE customer_id = ${customerId} AND content_id = ${contentId} AND status = 'queued'`
          return yield* content.reschedule(customerId, contentId, null)
        }).pipe(transaction, Effect.catchTag("SqlError", Effect.die))
      })

      return Social.of({
        connections,
        connect,
        completeCallback,
        checkState,
        stateSecret,
        publish,
        publishPiece,
        publishExisting,
        schedule,
        scheduleUnlessQueued,
        readyToPublish,
        attempts,
        queueEntry,
        retry,
        cancel
      })
    })
  )
}
