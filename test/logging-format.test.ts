import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, Redacted } from "effect"
import fc from "fast-check"
import { formatJson } from "../src/platform/Logging.ts"

/** Both formatters on the same log call: the service's and effect's own. */
const bothLines = (message: unknown, annotations: Record<string, unknown>) => {
  const lines: Array<[string, string]> = []
  const collect = Logger.make((options) => void lines.push([formatJson.log(options), Logger.formatJson.log(options)]))
  Effect.runSync(
    Effect.logInfo(message).pipe(
      Effect.annotateLogs(annotations),
      Effect.withLogSpan("span"),
      Effect.provide(Logger.layer([collect]))
    )
  )
  return lines[0]
}

const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 2 }),
  fc.string().map((s) => Redacted.make(s)),
  fc.string().map((s) => new Error(s)),
  fc.bigInt()
)

describe("log lines", () => {
  it("are the text effect's JSON formatter writes, whatever the message and annotations", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), value),
        fc.dictionary(fc.string(), value, { maxKeys: 6 }),
        (message, annotations) => {
          const [ours, effects] = bothLines(message, annotations)
          assert.strictEqual(ours, effects)
        }
      ),
      { numRuns: 500 }
    )
  })

  it("keep a Redacted annotation hidden and a request line's fields", () => {
    const [line] = bothLines("request", {
      requestId: "req_1",
      status: 200,
      durationMs: 1.5,
      token: Redacted.make("secret")
    })
    assert.notInclude(line, "secret")
    const parsed = JSON.parse(line)
    assert.deepStrictEqual(
      {
        message: parsed.message,
        level: parsed.level,
        requestId: parsed.annotations.requestId,
        status: parsed.annotations.status
      },
      { message: "request", level: "INFO", requestId: "req_1", status: 200 }
    )
  })
})
