import { assert, describe, it } from "@effect/vitest"
import { Result, Schema, SchemaIssue } from "effect"
import { NotReady } from "../src/domain/Health.ts"
import { Amount, AutonomyLevel, AutonomyUpdate, BudgetUpdate } from "../src/domain/Settings.ts"

/** The wording the MCP tools and the orchestrator give (effect's Standard Schema formatter), not only the REST layer's. */
const standardMessages = (schema: Schema.Top, value: unknown) => {
  const result = Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(value)
  if (Result.isSuccess(result)) return []
  const failure = result.failure as { readonly issue?: unknown }
  return SchemaIssue.makeFormatterStandardSchemaV1()((failure.issue ?? failure) as never).issues
    .map((issue) => `${(issue.path ?? []).map(String).join(".")}: ${issue.message}`)
}

describe("settings messages, whoever formats them", () => {
  it("levels and amounts say what they must be", () => {
    assert.deepStrictEqual(standardMessages(AutonomyLevel, 2.5), [": must be an integer"])
    assert.deepStrictEqual(standardMessages(AutonomyLevel, 0), [": must be between 1 and 5"])
    assert.deepStrictEqual(standardMessages(Amount, Number.NaN), [": must be a finite number"])
    assert.deepStrictEqual(standardMessages(Amount, -0.5), [": must be at least 0"])
    assert.deepStrictEqual(standardMessages(AutonomyUpdate, { globalDefault: 6 }), [
      "globalDefault: must be between 1 and 5"
    ])
    assert.deepStrictEqual(standardMessages(BudgetUpdate, { channels: { ads: -1 } }), [
      "channels.ads: must be at least 0"
    ])
  })
})

describe("readiness failure", () => {
  it("answers 503 with E_UNAVAILABLE", () => {
    assert.strictEqual(
      (NotReady as unknown as { ast: { annotations?: { httpApiStatus?: unknown } } }).ast.annotations?.httpApiStatus,
      503
    )
    const error = new NotReady({ service: "herald", status: "degraded", timestamp: "2026-11-23T12:00:00.000Z" })
    assert.deepStrictEqual([error.code, error.error, error._tag], ["E_UNAVAILABLE", "Database unreachable", "NotReady"])
  })
})
