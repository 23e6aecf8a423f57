import { Context, Duration, Effect, Layer, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { IdempotencyKey } from "../api/Shared.ts"
import { Conflict, ValidationError } from "../domain/Errors.ts"
import { canonicalBody, openReplay, sealReplay } from "../domain/ReplaySeal.ts"
import { sha256Hex } from "../domain/Secrets.ts"
import { forkPeriodic } from "./Periodic.ts"
import { serverSecret } from "./ServerSecrets.ts"

const windowHours = 24
const isValidKey = Schema.is(IdempotencyKey)

const bodyText = (response: HttpServerResponse.HttpServerResponse): string | undefined =>
  response.body._tag === "Uint8Array" ? response.body.text ?? new TextDecoder().decode(response.body.body) : undefined

const invalidKey = () =>
  new ValidationError({
    error: "Invalid header.idempotency-key: must be 1 to 255 characters",
    details: [{ path: "header.idempotency-key", message: "must be 1 to 255 characters" }]
  })

/**
 * `Idempotency-Key` on POST: the first successful response is kept for 24 h
 * and replayed for the same key and the same body (as JSON: key order and
 * spacing do not matter); another body, or a request still in flight, is 409.
 * Keys are per scope (a customer, or the operator), stored as digests, and the
 * kept response is sealed under the key, so a reply showing a secret can be
 * replayed without the secret sitting readable in the database.
 */
export class Idempotency extends Context.Service<Idempotency, {
  readonly wrap: <E, R>(
    scope: string,
    effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
    /** The request being answered: its callers, the authentication middlewares, hold it already. */
    request: HttpServerRequest.HttpServerRequest
  ) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E | Conflict | ValidationError,
    R | HttpServerRequest.HttpServerRequest
  >
}>()("herald/platform/Idempotency") {
  static readonly layer = Layer.effect(
    Idempotency,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const secret = yield* serverSecret("idempotency")

      const replay = (
        stored: { requestHash: string; status: number | null; contentType: string | null; body: string | null },
        hash: string,
        key: string,
        scope: string
      ) =>
        Effect.gen(function*() {
          if (stored.requestHash !== hash) {
            return yield* new Conflict({ error: "Idempotency-Key was already used with a different request" })
          }
          const text = stored.status === null || stored.body === null
            ? undefined
            : openReplay(stored.body, key, secret, scope)
          if (stored.status === null || text === undefined) {
            return yield* new Conflict({ error: "A request with this Idempotency-Key is still in progress" })
          }
          return HttpServerResponse.text(text, {
            status: stored.status,
            contentType: stored.contentType ?? "application/json",
            headers: { "idempotent-replayed": "true" }
          })
        })

      const wrap = <E, R>(
        scope: string,
        effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
        request: HttpServerRequest.HttpServerRequest
      ) => {
        const key = request.headers["idempotency-key"]
        // Every authenticated request comes through here; most carry no key.
        return request.method !== "POST" || key === undefined ? effect : keyed(scope, key, request, effect)
      }

      const keyed = <E, R>(
        scope: string,
        key: string,
        request: HttpServerRequest.HttpServerRequest,
        effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ) =>
        Effect.gen(function*() {
          if (!isValidKey(key)) return yield* invalidKey()
          const keyHash = sha256Hex(key)
          const path = request.url.split("?")[0]
          const body = yield* Effect.orElseSucceed(request.text, () => "")
          const hash = sha256Hex(`${request.method} ${path}\n${canonicalBody(body)}`)
          yield* sql`DELETE FROM idempotency_keys WHERE scope = ${scope} AND key_hash = ${keyHash}
          AND created_at < now() - make_interval(hours => ${windowHours})`.pipe(Effect.orDie)
          const claimed = yield* sql`INSERT INTO idempotency_keys (scope, key_hash, method, path, request_hash)
          VALUES (${scope}, ${keyHash}, ${request.method}, ${path}, ${hash})
          ON CONFLICT (scope, key_hash) DO NOTHING RETURNING key_hash`.pipe(Effect.orDie)
          if (claimed.length === 0) {
            const rows = yield* sql<
              { requestHash: string; status: number | null; contentType: string | null; body: string | null }
            >`
            SELECT request_hash, status, content_type, body FROM idempotency_keys
            WHERE scope = ${scope} AND key_hash = ${keyHash}`.pipe(Effect.orDie)
            // Expired and removed between the two statements: run it as new.
            if (rows[0] === undefined) return yield* effect
            return yield* replay(rows[0], hash, key, scope)
          }
          const release = sql`DELETE FROM idempotency_keys WHERE scope = ${scope} AND key_hash = ${keyHash}`
            .pipe(Effect.orDie)
          const response = yield* effect.pipe(
            Effect.onExit((exit) => exit._tag === "Success" && exit.value.status < 400 ? Effect.void : release)
          )
          const text = bodyText(response)
          if (response.status >= 400) return response
          if (text === undefined) {
            // A streamed reply cannot be kept; the key is freed rather than left "in progress".
            yield* release
            return response
          }
          yield* sql`UPDATE idempotency_keys SET status = ${response.status},
          content_type = ${response.body._tag === "Uint8Array" ? response.body.contentType : null},
          body = ${sealReplay(text, key, secret, scope)}
          WHERE scope = ${scope} AND key_hash = ${keyHash}`.pipe(Effect.orDie)
          return response
        })

      return Idempotency.of({ wrap })
    })
  )

  /** Drops kept replies past their 24 h, hourly, by one of the instances sharing the database. */
  static readonly sweeper = Layer.effectDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* forkPeriodic({
      name: "idempotency sweep",
      period: Duration.hours(1),
      run: sql`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ${windowHours})`
    })
  }))
}
