import { Context, Effect, Layer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { Conflict, ValidationError } from "../domain/Errors.ts"
import { sha256Hex } from "../domain/Secrets.ts"

const windowHours = 24
const secretFields = /"(apiKey|secret)"\s*:/

const bodyText = (response: HttpServerResponse.HttpServerResponse): string | undefined =>
  response.body._tag === "Uint8Array" ? response.body.text ?? new TextDecoder().decode(response.body.body) : undefined

/**
 * `Idempotency-Key` on POST: the first successful response is kept for 24 h
 * and replayed for the same key and body; another body, or a request still
 * in flight, is 409. A response that revealed a secret is never stored, so
 * its key cannot be replayed either (409).
 */
export class Idempotency extends Context.Service<Idempotency, {
  readonly wrap: <E, R>(
    customerId: string,
    effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E | Conflict | ValidationError,
    R | HttpServerRequest.HttpServerRequest
  >
}>()("herald/server/Idempotency") {
  static readonly layer = Layer.effect(Idempotency, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const wrap = <E, R>(customerId: string, effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers["idempotency-key"]
        if (request.method !== "POST" || key === undefined) return yield* effect
        if (key.length === 0 || key.length > 255) {
          return yield* new ValidationError({
            error: "Invalid header.idempotency-key: must be 1 to 255 characters",
            details: [{ path: "header.idempotency-key", message: "must be 1 to 255 characters" }]
          })
        }
        const path = request.url.split("?")[0]
        const body = yield* Effect.orElseSucceed(request.text, () => "")
        const hash = sha256Hex(`${request.method} ${path}\n${body}`)
        yield* sql`DELETE FROM idempotency_keys WHERE customer_id = ${customerId} AND key = ${key}
          AND created_at < now() - make_interval(hours => ${windowHours})`.pipe(Effect.orDie)
        const claimed = yield* sql`INSERT INTO idempotency_keys (customer_id, key, method, path, request_hash)
          VALUES (${customerId}, ${key}, ${request.method}, ${path}, ${hash})
          ON CONFLICT (customer_id, key) DO NOTHING RETURNING key`.pipe(Effect.orDie)
        if (claimed.length === 0) {
          const rows = yield* sql<{ requestHash: string; status: number | null; contentType: string | null; body: string | null }>`
            SELECT request_hash, status, content_type, body FROM idempotency_keys
            WHERE customer_id = ${customerId} AND key = ${key}`.pipe(Effect.orDie)
          const stored = rows[0]
          if (stored === undefined) return yield* effect
          if (stored.requestHash !== hash) {
            return yield* new Conflict({ error: "Idempotency-Key was already used with a different request" })
          }
          if (stored.status === null) {
            return yield* new Conflict({ error: "A request with this Idempotency-Key is still in progress" })
          }
          if (stored.body === null) {
            return yield* new Conflict({
              error: "The first request with this Idempotency-Key returned a secret, which is shown only once"
            })
          }
          return HttpServerResponse.text(stored.body, {
            status: stored.status,
            contentType: stored.contentType ?? "application/json",
            headers: { "idempotent-replayed": "true" }
          })
        }
        const release = sql`DELETE FROM idempotency_keys WHERE customer_id = ${customerId} AND key = ${key}`
          .pipe(Effect.orDie)
        const response = yield* effect.pipe(Effect.onExit((exit) =>
          exit._tag === "Success" && exit.value.status < 400 ? Effect.void : release
        ))
        if (response.status < 400) {
          const text = bodyText(response)
          const replayable = text !== undefined && !secretFields.test(text)
          yield* sql`UPDATE idempotency_keys SET status = ${response.status},
            content_type = ${replayable && response.body._tag === "Uint8Array" ? response.body.contentType : null},
            body = ${replayable ? text : null}
            WHERE customer_id = ${customerId} AND key = ${key}`.pipe(Effect.orDie)
        }
        return response
      })

    return Idempotency.of({ wrap })
  }))
}
