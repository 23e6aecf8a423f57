import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Cursors } from "../src/platform/Cursor.ts"
import { testServices } from "./support/services.ts"

const Position = Schema.Struct({ at: Schema.String, id: Schema.String })
const customer = "00000000-0000-4000-8000-000000000001"

layer(testServices, { timeout: 60_000 })("signed cursors", (it) => {
  it.effect("a cursor decodes to its position for its own list and customer only; any change is InvalidCursor", () =>
    Effect.gen(function*() {
      const cursors = yield* Cursors
      const position = { at: "2026-11-23T10:00:00.000Z", id: "cnt_1" }
      const cursor = cursors.encode("content", customer, position)
      assert.deepStrictEqual(yield* cursors.decode("content", customer, Position, cursor), position)
      assert.notInclude(cursor, "cnt_1", "opaque")

      const refused = (scope: string, owner: string, text: string) =>
        Effect.map(Effect.flip(cursors.decode(scope, owner, Position, text)), (error) => error._tag)
      assert.strictEqual(yield* refused("events", customer, cursor), "InvalidCursor")
      assert.strictEqual(yield* refused("content", "00000000-0000-4000-8000-000000000002", cursor), "InvalidCursor")
      const [payload, signature] = cursor.split(".")
      const flipped = signature.slice(0, -2) + (signature.endsWith("AA") ? "BB" : "AA")
      assert.strictEqual(yield* refused("content", customer, `${payload}.${flipped}`), "InvalidCursor")
      assert.strictEqual(yield* refused("content", customer, `${payload}x.${signature}`), "InvalidCursor")
      assert.strictEqual(yield* refused("content", customer, payload), "InvalidCursor")
      assert.strictEqual(yield* refused("content", customer, `${cursor}.extra`), "InvalidCursor")
      assert.strictEqual(yield* refused("content", customer, ""), "InvalidCursor")
      assert.strictEqual(yield* refused("content", customer, `${payload}.`), "InvalidCursor")
      // Signed, but the position is not what the list expects.
      const wrongShape = cursors.encode("content", customer, { at: 1 })
      assert.strictEqual(yield* refused("content", customer, wrongShape), "InvalidCursor")
    }))
})
