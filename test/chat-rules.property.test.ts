import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { type ChatEvent, sseFrame, threadTitle } from "../src/domain/Chat.ts"
import { charLength } from "../src/domain/Text.ts"

const text = fc.string({ maxLength: 300, unit: "binary" })
const json = fc.jsonValue({ maxDepth: 3 })

const event: fc.Arbitrary<ChatEvent> = fc.oneof(
  text.map((threadId) => ({ event: "thread", data: { threadId } }) as const),
  text.map((t) => ({ event: "delta", data: { text: t } }) as const),
  fc.tuple(text, json).map(([name, args]) => ({ event: "tool_call", data: { name, arguments: args } }) as const),
  fc.tuple(text, json).map(([name, result]) => ({ event: "tool_result", data: { name, result } }) as const),
  fc.tuple(text, text).map(([threadId, messageId]) => ({ event: "done", data: { threadId, messageId } }) as const),
  fc.tuple(text, text).map(([error, code]) => ({ event: "error", data: { error, code } }) as const)
)

describe("chat stream frames", () => {
  it("every frame is one event line and one JSON data line, ended by a blank line, whatever the text", () =>
    fc.assert(fc.property(event, (e) => {
      const frame = sseFrame(e)
      assert.isTrue(frame.endsWith("\n\n"))
      const lines = frame.slice(0, -2).split("\n")
      assert.strictEqual(lines.length, 2)
      assert.strictEqual(lines[0], `event: ${e.event}`)
      assert.isTrue(lines[1]!.startsWith("data: "))
      assert.notInclude(lines[1]!, "\r")
      assert.deepStrictEqual(JSON.parse(lines[1]!.slice(6)), JSON.parse(JSON.stringify(e.data)))
    })))

  it("a thread's title is one line of at most 80 characters, the message's first line when it fits", () =>
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 400 }), (message) => {
      const title = threadTitle(message)
      assert.isAtMost(charLength(title), 80)
      assert.notInclude(title, "\n")
      const first = message.trim().split("\n")[0]!.trim()
      if (charLength(first) <= 80) assert.strictEqual(title, first)
      else assert.isTrue(title.endsWith("…") && first.startsWith(title.slice(0, -1)))
    })))
})
