import { Array as Arr, Cause, Duration, Effect, Exit, Layer, Option, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import type { ContentId, CustomerId } from "../../domain/Ids.ts"
import { mediaOf, type PublishViolation, publishViolation, type SocialPlatform } from "../../domain/Social.ts"
import { retryDelaySeconds } from "../../domain/Webhooks.ts"
import { forkClaimLoop } from "../../platform/ClaimLoop.ts"
import { withConflictRetry } from "../../platform/Database.ts"
import { Events } from "../../platform/Events.ts"
import { forkPeriodic } from "../../platform/Periodic.ts"
import { Content } from "../content/Content.ts"
import { Links } from "./Links.ts"
import { ProviderError, type PublishedPost, SocialProvider } from "./providers/Provider.ts"

/** Batches in flight per process; each is `SocialProvider.batchSize` posts, recorded with one statement per table. */
const batchesInFlight = 4

/** A claimed queue row with what one try needs, read in the claim itself (no round trips per post). */
interface Job {
  readonly contentId: ContentId
  readonly customerId: CustomerId
  readonly platform: SocialPlatform
  readonly attempt: number
  /** The piece's status now, null when it is gone. */
  readonly pieceStatus: string | null
  readonly body: string | null
  /** `metadata.media` as JSON text (the column is json, read as text as the content repo reads it). */
  readonly media: string | null
  readonly connected: boolean
  /** Whether any try of this piece was recorded before (then the provider is asked first). */
  readonly triedBefore: boolean
  /** When the latest earlier try began (its recorded attempt, or the lapsed claim), null for none. */
  readonly lastTriedAt: Date | null
  /** Whether that try was never recorded: its claim lapsed, and its owner may still be sending. */
  readonly lastTryOpen: boolean
}

/**
 * A claimed job. `claimedAt` is the database's time of the claim: every time
 * the publisher records or compares is the database's, so instances whose
 * clocks disagree with it (or with each other) still agree on which try came
 * when, and on whether one may still be running.
 */
type Claimed = Job & { readonly token: string; readonly claimedAt: Date }

/** Causes of a look-up that could not tell whether an earlier try posted (and so neither sent nor failed). */
const deferredCauses = ["history_stale", "try_in_flight"] as const

const mediaOfJob = (job: Job): ReadonlyArray<string> =>
  mediaOf({ media: job.media === null ? [] : JSON.parse(job.media) })

/** The rules every path checked, checked again at the door: a row queued before a rule existed is refused, not sent. */
const violationOf = (job: Job): PublishViolation | undefined =>
  publishViolation(job.platform, job.body ?? "", mediaOfJob(job))

/**
 * Publishes queued social posts when due. Each poll claims due rows of
 * `publish_jobs` with `FOR UPDATE SKIP LOCKED` and a lease, so processes
 * sharing the database never work on one post at once; a crashed process's
 * claims lapse with the lease and are claimed again. Every claim after the
 * first asks the provider whether the post already exists before sending
 * (reconciliation), so a post whose answer was lost is recorded, not sent
 * twice. Every try is recorded in `publish_attempts`.
 */
export const SocialPublisherLive = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const events = yield* Events
  const content = yield* Content
  const links = yield* Links
  const provider = yield* SocialProvider
  // A try's outcome is recorded in a transaction of its own, after the provider answered and outside it: run
  // again whole after a deadlock or serialization abort, it records the same answer, never asks twice.
  const recording = withConflictRetry(sql)

  const claim = (limit: number) => {
    const token = randomUUID()
    return sql<Job & { readonly claimedAt: Date }>`
      WITH picked AS (
        SELECT content_id, locked_until AS lease_end, last_try_at AS previous_try FROM publish_jobs
        WHERE status = 'queued' AND next_attempt_at <= now()
          AND (locked_until IS NULL OR locked_until <= now())
        ORDER BY next_attempt_at, content_id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      , claimed AS (
        UPDATE publish_jobs j SET attempts = j.attempts + 1, claim_token = ${token},
          locked_until = now() + make_interval(secs => ${config.publishLeaseSeconds}), last_try_at = now()
        FROM picked WHERE j.content_id = picked.content_id
        RETURNING j.content_id, j.customer_id, j.platform, j.attempts, picked.lease_end, picked.previous_try,
          j.last_try_at AS claimed_at
      )
      , recorded AS (
        -- Deferred look-ups are recorded for the reader, but they were not tries.
        SELECT c.content_id, (SELECT max(a.attempted_at) FROM publish_attempts a WHERE a.content_id = c.content_id
          AND COALESCE(split_part(a.error, ':', 1), '') NOT IN (${deferredCauses[0]}, ${
      deferredCauses[1]
    })) AS last_recorded
        FROM claimed c
      )
      SELECT c.content_id, c.customer_id, c.platform, c.attempts AS attempt, c.claimed_at,
        p.status AS piece_status, p.body, (p.metadata -> 'media')::text AS media,
        EXISTS (SELECT 1 FROM social_connections s WHERE s.customer_id = c.customer_id AND s.platform = c.platform) AS connected,
        EXISTS (SELECT 1 FROM publish_attempts a WHERE a.content_id = c.content_id) AS tried_before,
        GREATEST(r.last_recorded, c.previous_try, c.lease_end - make_interval(secs => ${config.publishLeaseSeconds})) AS last_tried_at,
        -- A try's record carries its claim's time to the millisecond (it went through a JavaScript Date); the
        -- claim's own time has microseconds. A record of the same millisecond is that try's.
        (c.previous_try IS NOT NULL
          AND (r.last_recorded IS NULL OR r.last_recorded < date_trunc('milliseconds', c.previous_try))) AS last_try_open
      FROM claimed c JOIN recorded r ON r.content_id = c.content_id
        LEFT JOIN content p ON p.id = c.content_id AND p.customer_id = c.customer_id`.pipe(
      Effect.map((jobs) =>
        jobs.map(({ claimedAt, ...job }): Claimed => ({
          ...job,
          lastTriedAt: job.lastTriedAt === null ? null : new Date(job.lastTriedAt),
          token,
          claimedAt: new Date(claimedAt)
        }))
      )
    )
  }

  interface AttemptRecord {
    readonly job: Claimed
    readonly status: "sent" | "failed" | "reconciled"
    readonly providerPostId: string | null
    readonly error: string | null
  }

  /** Each try is recorded at its claim's time (the database's clock). */
  const recordAttempts = (attempts: ReadonlyArray<AttemptRecord>) =>
    sql`INSERT INTO publish_attempts (id, content_id, customer_id, attempt, provider, status, provider_post_id, error, attempted_at)
      SELECT a.id, a.content_id, a.customer_id, a.attempt, ${provider.name}, a.status, a.provider_post_id, a.error,
        a.attempted_at
      FROM json_to_recordset(${
      JSON.stringify(attempts.map((a) => ({
        id: `pat_${randomUUID().replaceAll("-", "")}`,
        content_id: a.job.contentId,
        customer_id: a.job.customerId,
        attempt: a.job.attempt,
        status: a.status,
        provider_post_id: a.providerPostId,
        error: a.error,
        attempted_at: a.job.claimedAt.toISOString()
      })))
    }::json) AS a(id text, content_id text, customer_id uuid, attempt int, status text, provider_post_id text, error text,
        attempted_at timestamptz)`

  /** Posts the provider has: their tries, their queue rows and their pieces, in one transaction whatever their count. */
  const succeedMany = (
    posts: ReadonlyArray<{ readonly job: Claimed; readonly post: PublishedPost }>,
    how: "sent" | "reconciled"
  ) =>
    Effect.gen(function*() {
      if (posts.length === 0) return
      yield* recordAttempts(
        posts.map(({ job, post }) => ({ job, status: how, providerPostId: post.providerPostId, error: null }))
      )
      // The token fences the outcome: a worker whose lease lapsed records its attempt but no longer decides.
      const owned = yield* sql<
        { contentId: ContentId }
      >`UPDATE publish_jobs j SET status = 'published', provider = ${provider.name},
          provider_post_id = p.given_post, published_at = now(), locked_until = NULL, last_error = NULL
        FROM unnest(${posts.map((p) => p.job.contentId)}::text[], ${posts.map((p) => p.job.token)}::text[],
          ${posts.map((p) => p.post.providerPostId)}::text[]) AS p(given_id, given_token, given_post)
        WHERE j.content_id = p.given_id AND j.claim_token = p.given_token RETURNING j.content_id`
      const decided = new Set(owned.map((row) => row.contentId))
      yield* content.markPublishedMany(
        posts.filter(({ job }) => decided.has(job.contentId)).map(({ job, post }) => ({
          customerId: job.customerId,
          contentId: job.contentId,
          publishedUrl: post.url
        }))
      )
    }).pipe(recording)

  const succeed = (job: Claimed, post: PublishedPost, how: "sent" | "reconciled") => succeedMany([{ job, post }], how)

  const fail = (job: Claimed, error: ProviderError) =>
    Effect.gen(function*() {
      yield* recordAttempts([{
        job,
        status: "failed",
        providerPostId: null,
        error: `${error.cause}: ${error.message}`
      }])
      const delay = error.transient
        ? retryDelaySeconds(job.attempt, config.publishRetrySchedule, error.retryAfterSeconds)
        : undefined
      if (delay !== undefined) {
        yield* sql`UPDATE publish_jobs SET next_attempt_at = now() + make_interval(secs => ${delay}),
            locked_until = NULL, claim_token = NULL, last_error = ${error.message}
          WHERE content_id = ${job.contentId} AND claim_token = ${job.token}`
        return
      }
      const owned =
        yield* sql`UPDATE publish_jobs SET status = 'failed', locked_until = NULL, last_error = ${error.message}
        WHERE content_id = ${job.contentId} AND claim_token = ${job.token} AND status = 'queued' RETURNING content_id`
      if (owned.length === 0) {
        // Cancelled meanwhile: it stays cancelled, and its claim ends with the try's known outcome.
        yield* sql`UPDATE publish_jobs SET locked_until = NULL, last_error = ${error.message}
          WHERE content_id = ${job.contentId} AND claim_token = ${job.token}`
        return
      }
      yield* events.record(job.customerId, "publish.failed", {
        contentId: job.contentId,
        platform: job.platform,
        cause: error.cause,
        error: error.message,
        attempts: job.attempt
      })
    }).pipe(recording)

  /**
   * A look-up that could not tell whether the earlier try posted is not a try:
   * the claim goes back uncounted (a short schedule cannot run out while the
   * answer is merely unknown), due when the provider can tell, still waiting
   * for the same earlier try.
   */
  const defer = (job: Claimed, error: ProviderError) =>
    Effect.gen(function*() {
      yield* recordAttempts([{
        job,
        status: "failed",
        providerPostId: null,
        error: `${error.cause}: ${error.message}`
      }])
      // Cancelled meanwhile, the row is claimed no more; its claim stays open, due when the provider can tell,
      // for the sweep of abandoned tries to look the earlier try up then.
      const wait = error.retryAfterSeconds ?? 1
      yield* sql`UPDATE publish_jobs SET next_attempt_at = now() + make_interval(secs => ${wait}),
          attempts = attempts - 1, last_try_at = ${job.lastTriedAt},
          locked_until = CASE WHEN status = 'queued' THEN NULL ELSE now() + make_interval(secs => ${wait}) END,
          claim_token = CASE WHEN status = 'queued' THEN NULL ELSE claim_token END,
          last_error = ${error.message}
        WHERE content_id = ${job.contentId} AND claim_token = ${job.token}`
    }).pipe(recording)

  /** Ends a claim that sent nothing: it was no try, so a later queueing does not wait for it. */
  const settle = (job: Claimed, status: "published" | "cancelled") =>
    sql`UPDATE publish_jobs SET status = ${status}, locked_until = NULL, last_try_at = ${job.lastTriedAt}
      WHERE content_id = ${job.contentId} AND claim_token = ${job.token}`

  const run = (job: Claimed) =>
    Effect.gen(function*() {
      if (job.pieceStatus === "published") return yield* settle(job, "published")
      if (job.pieceStatus !== "approved") return yield* settle(job, "cancelled")
      if (!job.connected) {
        return yield* fail(
          job,
          new ProviderError({
            transient: false,
            cause: "not_connected",
            message: `Platform ${job.platform} is not connected`
          })
        )
      }
      const violation = violationOf(job)
      if (violation !== undefined) {
        return yield* fail(
          job,
          new ProviderError({
            transient: false,
            cause: "invalid_post",
            message: `${violation.path}: ${violation.message}`
          })
        )
      }
      // A try still open is a try before, recorded or not: queueing the piece again (a retry after a cancel)
      // while it is in flight ends its claim, and sending at once could post it twice.
      // Timed from this claim, which came before now: a wait can come out longer, never shorter.
      if (job.attempt > 1 || job.triedBefore || job.lastTryOpen) {
        const running = job.lastTryOpen && job.lastTriedAt !== null
          ? Math.ceil((job.lastTriedAt.getTime() + provider.trySeconds * 1000 - job.claimedAt.getTime()) / 1000)
          : 0
        if (running > 0) {
          return yield* defer(
            job,
            new ProviderError({
              transient: true,
              cause: "try_in_flight",
              message:
                `The previous try may still be running: asking the provider again in ${running} s instead of posting twice`,
              retryAfterSeconds: running
            })
          )
        }
        const existing = yield* Effect.exit(
          provider.findPost(job.customerId, job.contentId, job.platform, job.lastTriedAt ?? undefined)
        )
        if (Exit.isFailure(existing)) {
          const error = Cause.findErrorOption(existing.cause)
          if (
            Option.isSome(error) && (deferredCauses as ReadonlyArray<string>).includes(error.value.cause)
          ) return yield* defer(job, error.value)
          if (Option.isSome(error)) return yield* fail(job, error.value)
          return yield* Effect.failCause(existing.cause as Cause.Cause<never>)
        }
        if (Option.isSome(existing.value)) return yield* succeed(job, existing.value.value, "reconciled")
      }
      return yield* sendAll([job])
    }).pipe(
      // An unrecorded try is claimed again once its lease lapses (and reconciled first): never lost, never doubled.
      Effect.catchCause((cause) =>
        Effect.logError("publish failed unexpectedly", { contentId: job.contentId, cause: Cause.pretty(cause) })
      )
    )

  /** First tries: links tracked, posts sent and outcomes recorded for the whole batch at once. */
  const sendAll = (jobs: ReadonlyArray<Claimed>) =>
    Effect.gen(function*() {
      if (jobs.length === 0) return
      const bodies = yield* links.trackBodies(jobs.map((job) => ({
        customerId: job.customerId,
        contentId: job.contentId,
        platform: job.platform,
        body: job.body ?? ""
      })))
      const outcomes = yield* provider.publishMany(jobs.map((job, i) => ({
        customerId: job.customerId,
        contentId: job.contentId,
        platform: job.platform,
        body: bodies[i]!,
        media: mediaOfJob(job)
      })))
      const sent: Array<{ job: Claimed; post: PublishedPost }> = []
      const refused: Array<{ job: Claimed; error: ProviderError }> = []
      for (const [i, outcome] of outcomes.entries()) {
        const job = jobs[i]!
        if (Exit.isSuccess(outcome)) {
          sent.push({ job, post: outcome.value })
          continue
        }
        const error = Cause.findErrorOption(outcome.cause)
        if (Option.isSome(error)) refused.push({ job, error: error.value })
        else {yield* Effect.logError("publish failed unexpectedly", {
            contentId: job.contentId,
            cause: Cause.pretty(outcome.cause)
          })}
      }
      yield* succeedMany(sent, "sent")
      yield* Effect.forEach(refused, ({ error, job }) => fail(job, error), {
        concurrency: 16,
        discard: true
      })
    })

  const isFirstTry = (job: Claimed) =>
    job.pieceStatus === "approved" && job.connected && job.attempt === 1 && !job.triedBefore && !job.lastTryOpen &&
    violationOf(job) === undefined

  /** A claimed batch: first tries together, the rest (settled, refused or reconciled first) one by one. */
  const runBatch = (jobs: ReadonlyArray<Claimed>) =>
    Effect.all([
      sendAll(jobs.filter(isFirstTry)).pipe(
        Effect.catchCause((cause) =>
          Effect.logError("publish batch failed unexpectedly", { posts: jobs.length, cause: Cause.pretty(cause) })
        )
      ),
      Effect.forEach(jobs.filter((job) => !isFirstTry(job)), run, { concurrency: provider.batchSize, discard: true })
    ], { concurrency: 2, discard: true })

  /**
   * Claims held when this process starts may be a crashed process's, whose
   * post reached the provider but was never recorded. Each is looked up once
   * now: a post the provider has is recorded at once (the claim taken over by
   * its token, so a live owner's late outcome no longer decides) instead of
   * after the lease. A claim whose post the provider does not show is left to
   * its lease: its owner may still be sending.
   */
  const reconcileHeldClaims = Effect.gen(function*() {
    const held = yield* sql<
      { contentId: ContentId; customerId: CustomerId; platform: SocialPlatform; claimToken: string }
    >`
      SELECT content_id, customer_id, platform, claim_token FROM publish_jobs
      WHERE status IN ('queued', 'cancelled') AND claim_token IS NOT NULL AND locked_until > now()
      ORDER BY locked_until LIMIT 1000`
    yield* Effect.forEach(held, (row) =>
      Effect.gen(function*() {
        const found = yield* provider.findPost(row.customerId, row.contentId, row.platform)
        if (Option.isNone(found)) return
        const token = randomUUID()
        const taken = yield* sql<
          { attempts: number; claimedAt: Date }
        >`UPDATE publish_jobs SET claim_token = ${token}, attempts = attempts + 1
          WHERE content_id = ${row.contentId} AND claim_token = ${row.claimToken}
            AND status IN ('queued', 'cancelled') RETURNING attempts, now() AS claimed_at`
        if (taken.length === 0) return
        const job: Claimed = {
          contentId: row.contentId,
          customerId: row.customerId,
          platform: row.platform,
          attempt: taken[0]!.attempts,
          pieceStatus: "approved",
          body: null,
          media: null,
          connected: true,
          triedBefore: true,
          lastTriedAt: null,
          lastTryOpen: false,
          token,
          claimedAt: new Date(taken[0]!.claimedAt)
        }
        yield* succeed(job, found.value, "reconciled")
      }).pipe(Effect.catchCause((cause) =>
        Effect.logWarning("start-up reconciliation of a held claim failed; it waits for its lease", {
          contentId: row.contentId,
          cause: Cause.pretty(cause)
        })
      )), { concurrency: provider.batchSize, discard: true })
  }).pipe(
    Effect.catchCause((cause) => Effect.logWarning("start-up reconciliation failed", { cause: Cause.pretty(cause) }))
  )
  yield* Effect.forkScoped(reconcileHeldClaims)

  /**
   * A cancel leaves a try in flight its claim: the try records its outcome and
   * ends the claim. If its process dies first, nothing else would ever look at
   * the row (claims take queued rows only), so a post that went out would
   * never be recorded. Such a claim whose lease has lapsed is taken over here
   * (FOR UPDATE SKIP LOCKED and a fresh token and lease, so of all the
   * processes one does it) and the post looked up, as a claim after an
   * unrecorded try is: found, it is recorded published, fenced by the token;
   * not found once the try could no longer be running, the claim ends with
   * nothing recorded; while the provider cannot tell yet, it is looked at
   * again when it can.
   */
  const claimAbandoned = (limit: number) => {
    const token = randomUUID()
    return sql<
      {
        contentId: ContentId
        customerId: CustomerId
        platform: SocialPlatform
        attempt: number
        lastTryAt: Date | null
        claimedAt: Date
      }
    >`
      WITH picked AS (
        SELECT content_id FROM publish_jobs
        WHERE status = 'cancelled' AND locked_until IS NOT NULL AND locked_until <= now()
        ORDER BY locked_until
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE publish_jobs j SET claim_token = ${token},
        locked_until = now() + make_interval(secs => ${config.publishLeaseSeconds})
      FROM picked WHERE j.content_id = picked.content_id
      RETURNING j.content_id, j.customer_id, j.platform, j.attempts + 1 AS attempt, j.last_try_at,
        now() AS claimed_at`.pipe(
      Effect.map((rows) => rows.map((row) => ({ ...row, token })))
    )
  }

  const reconcileAbandoned = (
    row: {
      contentId: ContentId
      customerId: CustomerId
      platform: SocialPlatform
      attempt: number
      lastTryAt: Date | null
      claimedAt: Date
      token: string
    }
  ) =>
    Effect.gen(function*() {
      const lastTriedAt = row.lastTryAt === null ? null : new Date(row.lastTryAt)
      const job: Claimed = {
        contentId: row.contentId,
        customerId: row.customerId,
        platform: row.platform,
        attempt: row.attempt,
        pieceStatus: null,
        body: null,
        media: null,
        connected: true,
        triedBefore: true,
        lastTriedAt,
        lastTryOpen: true,
        token: row.token,
        claimedAt: new Date(row.claimedAt)
      }
      /** The claim stays open, looked at again in `seconds`. */
      const later = (seconds: number) =>
        sql`UPDATE publish_jobs SET locked_until = now() + make_interval(secs => ${seconds})
          WHERE content_id = ${row.contentId} AND claim_token = ${row.token}`
      const found = yield* Effect.exit(
        provider.findPost(row.customerId, row.contentId, row.platform, lastTriedAt ?? undefined)
      )
      if (Exit.isFailure(found)) {
        const error = Cause.findErrorOption(found.cause)
        if (Option.isNone(error)) return yield* Effect.failCause(found.cause as Cause.Cause<never>)
        return yield* later(Math.max(1, error.value.retryAfterSeconds ?? provider.trySeconds))
      }
      if (Option.isSome(found.value)) return yield* succeed(job, found.value.value, "reconciled")
      // Timed from the claim, before the look-up: a wait can come out longer, never shorter.
      const running = lastTriedAt === null
        ? 0
        : Math.ceil((lastTriedAt.getTime() + provider.trySeconds * 1000 - job.claimedAt.getTime()) / 1000)
      if (running > 0) return yield* later(running)
      // The try could no longer be running and the provider has no post: it never went out.
      yield* sql`UPDATE publish_jobs SET locked_until = NULL, claim_token = NULL
        WHERE content_id = ${row.contentId} AND claim_token = ${row.token}`
    }).pipe(
      // A look-up that failed unexpectedly leaves the claim to its lease: taken over again once it lapses.
      Effect.catchCause((cause) =>
        Effect.logWarning("reconciliation of an abandoned try failed; it waits for its lease", {
          contentId: row.contentId,
          cause: Cause.pretty(cause)
        })
      )
    )

  const sweepAbandoned = Effect.gen(function*() {
    const rows = yield* claimAbandoned(provider.batchSize)
    yield* Effect.forEach(rows, reconcileAbandoned, { concurrency: provider.batchSize, discard: true })
  }).pipe(
    Effect.catchCause((cause) => Effect.logWarning("sweep of abandoned tries failed", { cause: Cause.pretty(cause) }))
  )
  // Rare rows behind a partial index, sweepable only once a lease has lapsed: a look every half
  // lease (1 to 30 s) is soon enough. More often would be a statement a second per process that,
  // on a database that hangs, waits out its response deadline ahead of the requests.
  const sweepEvery = Duration.max(
    Duration.millis(config.publishPollIntervalMs),
    Duration.seconds(Math.min(30, Math.max(1, config.publishLeaseSeconds / 2)))
  )
  yield* sweepAbandoned.pipe(
    Effect.repeat(Schedule.spaced(sweepEvery)),
    Effect.forkScoped
  )

  yield* forkClaimLoop({
    name: "publish",
    maxInFlight: batchesInFlight,
    pollInterval: Duration.millis(config.publishPollIntervalMs),
    claim: (batches: number) =>
      Effect.map(claim(batches * provider.batchSize), (jobs) => Arr.chunksOf(jobs, provider.batchSize)),
    run: runBatch
  })

  // Provider figures for recent posts, for analytics (the sandbox reports none): once per interval across the instances.
  if (provider.name !== "sandbox") {
    const refresh = Effect.gen(function*() {
      const rows = yield* sql<
        { contentId: ContentId; customerId: CustomerId; platform: SocialPlatform; providerPostId: string }
      >`
        SELECT content_id, customer_id, platform, provider_post_id FROM publish_jobs
        WHERE status = 'published' AND provider = ${provider.name} AND provider_post_id IS NOT NULL
          AND published_at > now() - interval '90 days'
        ORDER BY published_at DESC LIMIT 500`
      for (const row of rows) {
        const figures = yield* Effect.option(provider.metrics(row.customerId, row.providerPostId, row.platform))
        if (Option.isNone(figures) || Option.isNone(figures.value)) continue
        const { impressions, engagements } = figures.value.value
        yield* sql`INSERT INTO post_metrics (content_id, customer_id, platform, impressions, engagements)
          VALUES (${row.contentId}, ${row.customerId}, ${row.platform}, ${impressions}, ${engagements})
          ON CONFLICT (content_id) DO UPDATE SET impressions = EXCLUDED.impressions,
            engagements = EXCLUDED.engagements, fetched_at = clock_timestamp()`
      }
    })
    yield* forkPeriodic({
      name: "metrics refresh",
      period: Duration.millis(config.metricsRefreshIntervalMs),
      run: refresh
    })
  }
}))
