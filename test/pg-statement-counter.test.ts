import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { startStatementCounter } from "../scripts/support/pg-statement-counter.ts"
import { sharedDatabase, withSql } from "./support/processes.ts"

describe("the benchmarks' statement counter", () => {
  it.effect(
    "counts simple queries, prepared executions and transaction control, by text",
    () =>
      Effect.gen(function*() {
        const url = new URL(yield* sharedDatabase)
        const counter = yield* Effect.acquireRelease(
          Effect.promise(() => startStatementCounter(url.hostname, Number(url.port || 5432))),
          (c) => Effect.promise(c.close)
        )
        url.hostname = "127.0.0.1"
        url.port = String(counter.port)
        const counted = yield* withSql(url.toString(), (sql) =>
          Effect.gen(function*() {
            // The driver's own start-up queries are not the test's.
            yield* sql`SELECT 1 AS warm`
            counter.reset()
            for (const n of [1, 2, 3]) yield* sql`SELECT ${n}::int AS n`
            yield* sql.unsafe("SELECT 42 AS answer")
            yield* sql.withTransaction(sql`SELECT 7 AS inside`)
            return { total: counter.statements(), byText: new Map(counter.byText()) }
          }))
        assert.strictEqual(counted.total, 7)
        assert.strictEqual(counted.byText.get("SELECT $1::int AS n"), 3)
        assert.strictEqual(counted.byText.get("SELECT 42 AS answer"), 1)
        assert.strictEqual(counted.byText.get("SELECT 7 AS inside"), 1)
        assert.strictEqual(counted.byText.get("BEGIN"), 1)
        assert.strictEqual(counted.byText.get("COMMIT"), 1)
      }),
    { timeout: 60_000 }
  )
})
