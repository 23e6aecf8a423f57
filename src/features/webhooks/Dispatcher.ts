import { Cause, Clock, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import type { CustomerId, WebhookId } from "../../domain/Ids.ts"
import { classifyStatus, parseRetryAfter, retryDelaySeconds } from "../../domain/Webhooks.ts"
import { signedHeaders } from "../../domain/WebhookSignature.ts"
import { forkClaimLoop } from "../../platform/ClaimLoop.ts"
import { Events } from "../../platform/Events.ts"
import { safeFetch } from "../../platform/OutboundGuard.ts"

/**
 * Attempts in flight per process; and across every process sharing the
 * database, per endpoint and per customer, so one customer's slow receivers
 * never hold every slot while other customers' events wait.
 */
const maxInFlight = 64
const maxPerEndpoint = 8
const maxPerCustomer = 16
/** The most of a receiver's answer that is read: only its status matters. */
const maxAnswerBytes = 4096
/** How often rotated-out secrets past their 24 h overlap are erased. */
const secretSweepMs = 60_000
/** Serialises claims across processes, so the in-flight caps hold between them. */
const claimLockKey = 7_404_661
/** A receiver has this long to answer (Standard Webhooks recommends 15-30 s). */
const requestTimeoutMs = 15_000
/**
 * A claim lapses after this long. It must outlast one attempt (the request
 * timeout plus recording it), so a live worker never loses a claim it is still
 * using; a crashed worker's claims are picked up once it lapses.
 */
const leaseSeconds = 30

interface Job {
  readonly id: string
  readonly attempt: number
  readonly eventId: string
  readonly webhookId: WebhookId
  readonly customerId: CustomerId
  readonly type: string
  readonly data: unknown
  readonly eventCreatedAt: Date
  readonly url: string
  readonly secret: string
  readonly previousSecret: string | null
}

interface Result {
  readonly statusCode: number | null
  readonly error: string | null
  readonly outcome: "succeeded" | "gone" | "retry"
  readonly retryAfterSeconds: number | undefined
}

/**
 * Delivers the webhook outbox. Each poll claims due deliveries with
 * `FOR UPDATE SKIP LOCKED` and a lease, so processes sharing the database
 * never run the same attempt at once; each attempt runs in its own fiber, so
 * a slow endpoint never holds up another's; every attempt is recorded.
 */
export const WebhookDispatcherLive = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const events = yield* Events

  // Counting what is in flight (claimed, lease not lapsed) makes the caps hold
  // across claims and processes; a crashed worker's lapsed claims no longer count.
  const claim = (limit: number) => {
    const token = randomUUID()
    return Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${claimLockKey})`
      const jobs = yield* sql<Job>`
        WITH busy AS (
          SELECT d.webhook_id, w.customer_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.status = 'pending' AND d.locked_until IS NOT NULL AND d.locked_until > now()
        ), busy_endpoint AS (
          SELECT webhook_id, count(*) AS n FROM busy GROUP BY webhook_id
        ), busy_customer AS (
          SELECT customer_id, count(*) AS n FROM busy GROUP BY customer_id
        ), due AS (
          SELECT d.id, d.webhook_id, w.customer_id, d.next_attempt_at,
            row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id) AS endpoint_rank
          FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= now()
            AND (d.locked_until IS NULL OR d.locked_until <= now())
        ), eligible AS (
          SELECT due.*, row_number() OVER (PARTITION BY due.customer_id ORDER BY due.next_attempt_at, due.id) AS customer_rank
          FROM due LEFT JOIN busy_endpoint b ON b.webhook_id = due.webhook_id
          WHERE due.endpoint_rank + coalesce(b.n, 0) <= ${maxPerEndpoint}
        ), picked AS (
          SELECT d.id FROM webhook_deliveries d JOIN eligible r ON r.id = d.id
          LEFT JOIN busy_customer b ON b.customer_id = r.customer_id
          WHERE r.customer_rank + coalesce(b.n, 0) <= ${maxPerCustomer} AND d.status = 'pending'
            AND (d.locked_until IS NULL OR d.locked_until <= now())
          ORDER BY r.next_attempt_at, d.id
          LIMIT ${limit}
          FOR UPDATE OF d SKIP LOCKED
        ), claimed AS (
          UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1, claim_token = ${token},
            locked_until = now() + make_interval(secs => ${leaseSeconds})
          FROM picked WHERE d.id = picked.id
          RETURNING d.id, d.attempts, d.event_id, d.webhook_id
        )
        SELECT c.id, c.attempts AS attempt, c.event_id, c.webhook_id, e.customer_id, e.type, e.data::text AS data,
          e.created_at AS event_created_at, w.url, w.secret,
          CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret
        FROM claimed c JOIN webhook_events e ON e.id = c.event_id JOIN webhooks w ON w.id = c.webhook_id`
      const hooks = [...new Set(jobs.map((job) => job.webhookId))]
      if (hooks.length > 0) yield* eraseExpiredSecrets(hooks)
      return jobs.map((job) => ({ ...job, token }))
    }).pipe(sql.withTransaction)
  }

  /** Past its 24 h overlap a rotated-out secret is erased, not merely ignored (all, or these endpoints'). */
  const eraseExpiredSecrets = (webhookIds?: ReadonlyArray<string>) =>
    sql`UPDATE webhooks SET previous_secret = NULL, previous_secret_expires_at = NULL
      WHERE previous_secret IS NOT NULL AND previous_secret_expires_at <= now()
      ${webhookIds === undefined ? sql`` : sql`AND id IN ${sql.in(webhookIds)}`}`

  const send = (job: Job): Effect.Effect<Result> =>
    Effect.gen(function*() {
      const body = JSON.stringify({
        id: job.eventId,
        type: job.type,
        createdAt: new Date(job.eventCreatedAt).toISOString(),
        customerId: job.customerId,
        data: typeof job.data === "string" ? JSON.parse(job.data) : job.data
      })
      const nowMs = yield* Clock.currentTimeMillis
      const headers = signedHeaders({
        headerName: config.webhookSignatureHeader,
        secrets: job.previousSecret === null ? [job.secret] : [job.secret, job.previousSecret],
        id: job.eventId,
        timestamp: Math.floor(nowMs / 1000),
        body
      })
      const response = yield* Effect.result(safeFetch(job.url, {
        method: "POST",
        headers,
        body,
        allowPrivateTargets: config.allowPrivateTargets,
        maxRedirects: 0,
        timeoutMs: requestTimeoutMs,
        maxBytes: maxAnswerBytes,
        overflow: "truncate"
      }))
      if (response._tag === "Failure") {
        const { reason, message } = response.failure
        return {
          statusCode: null,
          error: `${reason}: ${message}`,
          outcome: "retry" as const,
          retryAfterSeconds: undefined
        }
      }
      const { status, headers: answer } = response.success
      const outcome = classifyStatus(status)
      const retryAfter = status === 429 || status === 503
        ? parseRetryAfter(answer["retry-after"], nowMs)
        : undefined
      return {
        statusCode: status,
        error: outcome === "succeeded"
          ? null
          : outcome === "gone"
          ? "HTTP 410: subscription disabled"
          : `HTTP ${status}`,
        outcome,
        retryAfterSeconds: retryAfter
      }
    })

  const record = (job: Job & { token: string }, result: Result, durationMs: number) =>
    Effect.gen(function*() {
      yield* sql`INSERT INTO webhook_attempts
          (id, delivery_id, webhook_id, event_id, event_type, attempt, status_code, duration_ms, error, attempted_at)
        VALUES (${`att_${randomUUID().replaceAll("-", "")}`}, ${job.id}, ${job.webhookId}, ${job.eventId},
          ${job.type}, ${job.attempt}, ${result.statusCode}, ${durationMs}, ${result.error},
          clock_timestamp() - make_interval(secs => ${durationMs / 1000}))`
      const delay = result.outcome === "retry"
        ? retryDelaySeconds(job.attempt, config.webhookRetrySchedule, result.retryAfterSeconds)
        : undefined
      const status = result.outcome === "succeeded" ? "succeeded" : delay === undefined ? "failed" : "pending"
      // The token fences the update: a worker whose lease lapsed records its attempt but no longer decides.
      const owned =
        yield* sql`UPDATE webhook_deliveries SET status = ${status}, locked_until = NULL, claim_token = NULL,
          next_attempt_at = ${delay === undefined ? sql`next_attempt_at` : sql`now() + make_interval(secs => ${delay})`}
        WHERE id = ${job.id} AND claim_token = ${job.token} RETURNING id`
      if (owned.length === 0) return
      // A 410, or a delivery whose retries are spent, disables the subscription until it is enabled again.
      const reason = result.outcome === "gone" ? "gone" : status === "failed" ? "failing" : undefined
      if (reason === undefined) return
      const disabled = yield* sql`UPDATE webhooks SET disabled_at = now(), disabled_reason = ${reason}
        WHERE id = ${job.webhookId} AND disabled_at IS NULL AND deleted_at IS NULL RETURNING id`
      if (disabled.length === 0) return
      yield* sql`UPDATE webhook_deliveries SET status = 'cancelled' WHERE webhook_id = ${job.webhookId} AND status = 'pending'`
      yield* events.record(job.customerId, "webhook.disabled", {
        id: job.webhookId,
        reason,
        detail: reason === "gone" ? "endpoint answered 410 Gone" : `delivery ${job.id} failed after its last retry`
      })
    }).pipe(sql.withTransaction)

  const deliver = (job: Job & { token: string }) =>
    Effect.gen(function*() {
      // An attempt is dated when it was sent, not when its answer (or its timeout) came, and in the database's
      // clock: attempts of one delivery made by processes whose clocks disagree still list in their order.
      const start = performance.now()
      const result = yield* send(job)
      yield* record(job, result, Math.round(performance.now() - start))
      yield* Effect.logDebug("webhook attempt", { delivery: job.id, attempt: job.attempt, outcome: result.outcome })
    }).pipe(
      // An unrecorded attempt is retried once its lease lapses: at least once, never lost.
      Effect.catchCause((cause) =>
        Effect.logError("webhook delivery failed", { delivery: job.id, cause: Cause.pretty(cause) })
      )
    )

  yield* forkClaimLoop({
    name: "webhook",
    maxInFlight,
    pollInterval: Duration.millis(config.webhookPollIntervalMs),
    claim,
    run: deliver
  })
  yield* eraseExpiredSecrets().pipe(
    Effect.catchCause((cause) => Effect.logWarning("webhook secret sweep failed", { cause: Cause.pretty(cause) })),
    Effect.andThen(Effect.sleep(Duration.millis(secretSweepMs))),
    Effect.forever,
    Effect.forkScoped
  )
}))
