import { Context, Effect, Layer, Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { InvalidCursor } from "../domain/Errors.ts"
import { serverSecret } from "./ServerSecrets.ts"

/**
 * Where a page of a newest-first list ends: the last row's `created_at` with
 * microseconds (UTC) and the id that breaks ties.
 */
export const CreatedPosition = Schema.Struct({
  t: Schema.String.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/)),
  i: Schema.String.check(Schema.isMaxLength(64))
})
export type CreatedPosition = typeof CreatedPosition.Type

/**
 * Opaque, tamper-evident list cursors: base64url JSON of the position, a dot,
 * and an HMAC of it. The key lives in the database (made by a migration), so
 * every instance accepts every other's cursors and restarts keep them valid.
 * The cursor is bound to its list (`scope`) and customer, so it cannot be
 * replayed elsewhere.
 */
export class Cursors extends Context.Service<Cursors, {
  readonly encode: (scope: string, customerId: string, position: unknown) => string
  readonly decode: <A>(
    scope: string,
    customerId: string,
    schema: Schema.Codec<A>,
    cursor: string
  ) => Effect.Effect<A, InvalidCursor>
}>()("herald/platform/Cursors") {
  static readonly layer = Layer.effect(
    Cursors,
    Effect.gen(function*() {
      const key = Buffer.from(yield* serverSecret("cursor"), "utf8")

      const sign = (payload: string) => createHmac("sha256", key).update(payload).digest()

      const encode = (scope: string, customerId: string, position: unknown) => {
        const payload = Buffer.from(JSON.stringify({ s: scope, c: customerId, p: position })).toString("base64url")
        return `${payload}.${sign(payload).toString("base64url")}`
      }

      const decode = <A>(scope: string, customerId: string, schema: Schema.Codec<A>, cursor: string) =>
        Effect.gen(function*() {
          const [payload, signature, ...rest] = cursor.split(".")
          if (payload === undefined || signature === undefined || rest.length > 0) return yield* new InvalidCursor()
          const given = Buffer.from(signature, "base64url")
          const expected = sign(payload)
          if (given.length !== expected.length || !timingSafeEqual(given, expected)) return yield* new InvalidCursor()
          const parsed = yield* Effect.try({
            try: () =>
              JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { s: unknown; c: unknown; p: unknown },
            catch: () => new InvalidCursor()
          })
          if (parsed.s !== scope || parsed.c !== customerId) return yield* new InvalidCursor()
          const position = Schema.decodeUnknownResult(schema)(parsed.p)
          if (position._tag === "Failure") return yield* new InvalidCursor()
          return position.success
        })

      return Cursors.of({ encode, decode })
    })
  )
}
