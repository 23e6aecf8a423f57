import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, Exit, Fiber, Redacted, String as Str } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { conflictRetries, isConflictAbort, withConflictRetry } from "../src/platform/Database.ts"
import { externalDatabaseUrl } from "./support/harness.ts"
import { sharedDatabase } from "./support/processes.ts"

/**
 * The platform runs a transaction again when PostgreSQL aborts it to break a
 * deadlock (40P01) or a serialization conflict (40001). The conflict is raised
 * by the database itself (`RAISE ... USING ERRCODE`), so the driver's own
 * classification of the SQLSTATE is what the helper sees, on PGlite as on
 * PostgreSQL.
 */
const withDatabase = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const url = yield* sharedDatabase
    return yield* Effect.flatMap(SqlClient.SqlClient, f).pipe(
      Effect.provide(PgClient.layer({
        url: Redacted.make(url),
        // Two: the real deadlock needs two sessions (PGlite serves one at a time, and skips that test).
        maxConnections: 2,
        transformResultNames: Str.snakeToCamel
      }))
    )
  })

const raise = (sql: SqlClient.SqlClient, code: string) =>
  sql.unsafe(`DO $$ BEGIN RAISE EXCEPTION 'injected' USING ERRCODE = '${code}'; END $$`).raw

const setUp = (sql: SqlClient.SqlClient) =>
  Effect.andThen(
    sql`CREATE TABLE IF NOT EXISTS conflict_rows (id SERIAL PRIMARY KEY, label TEXT NOT NULL)`,
    sql`DELETE FROM conflict_rows`
  )

const labels = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ label: string }>`SELECT label FROM conflict_rows ORDER BY id`, (rows) => rows.map((r) => r.label))

describe("transactions run again on a deadlock or serialization failure", () => {
  it.live("a 40P01 on the first run: the whole transaction runs again and commits once", () =>
    withDatabase((sql) =>
      Effect.gen(function*() {
        yield* setUp(sql)
        let runs = 0
        const result = yield* Effect.gen(function*() {
          runs++
          yield* sql`INSERT INTO conflict_rows (label) VALUES (${`run ${runs}`})`
          if (runs === 1) yield* raise(sql, "40P01")
          return runs
        }).pipe(withConflictRetry(sql))
        assert.strictEqual(result, 2)
        assert.strictEqual(runs, 2)
        // The first run's row went with its rollback.
        assert.deepStrictEqual(yield* labels(sql), ["run 2"])
      })
    ))

  it.live("a 40001 that a repository turned into a defect is run again too", () =>
    withDatabase((sql) =>
      Effect.gen(function*() {
        yield* setUp(sql)
        let runs = 0
        yield* Effect.gen(function*() {
          runs++
          yield* sql`INSERT INTO conflict_rows (label) VALUES (${`run ${runs}`})`
          if (runs === 1) yield* Effect.orDie(raise(sql, "40001"))
        }).pipe(withConflictRetry(sql))
        assert.strictEqual(runs, 2)
        assert.deepStrictEqual(yield* labels(sql), ["run 2"])
      })
    ))

  it.live("other failures are not run again; a conflict that keeps coming gives up after the bound", () =>
    withDatabase((sql) =>
      Effect.gen(function*() {
        yield* setUp(sql)
        let runs = 0
        const refused = yield* Effect.exit(
          Effect.gen(function*() {
            runs++
            yield* sql`INSERT INTO conflict_rows (label) VALUES ('refused')`
            yield* raise(sql, "23514")
          }).pipe(withConflictRetry(sql))
        )
        assert.isTrue(Exit.isFailure(refused))
        assert.strictEqual(runs, 1)

        runs = 0
        const stuck = yield* Effect.exit(
          Effect.gen(function*() {
            runs++
            yield* raise(sql, "40P01")
          }).pipe(withConflictRetry(sql))
        )
        assert.isTrue(Exit.isFailure(stuck))
        assert.strictEqual(runs, 1 + conflictRetries)
        assert.deepStrictEqual(yield* labels(sql), [])
      })
    ))

  it.live("nested in another transaction only the outermost runs again, with the inner work in it", () =>
    withDatabase((sql) =>
      Effect.gen(function*() {
        yield* setUp(sql)
        let outer = 0
        let inner = 0
        yield* Effect.gen(function*() {
          outer++
          yield* sql`INSERT INTO conflict_rows (label) VALUES (${`outer ${outer}`})`
          yield* Effect.gen(function*() {
            inner++
            yield* sql`INSERT INTO conflict_rows (label) VALUES (${`inner ${inner}`})`
            if (inner === 1) yield* raise(sql, "40P01")
          }).pipe(withConflictRetry(sql), Effect.catchTag("SqlError", Effect.die))
        }).pipe(withConflictRetry(sql))
        assert.deepStrictEqual([outer, inner], [2, 2])
        assert.deepStrictEqual(yield* labels(sql), ["outer 2", "inner 2"])
      })
    ))

  // PGlite is one session: two transactions cannot wait for each other there.
  it.live.skipIf(externalDatabaseUrl() === undefined)(
    "a real deadlock on PostgreSQL: the victim runs again and both transactions commit",
    () =>
      withDatabase((sql) =>
        Effect.gen(function*() {
          yield* setUp(sql)
          yield* sql`INSERT INTO conflict_rows (label) VALUES ('a'), ('b')`
          const aLocked = yield* Deferred.make<void>()
          const bLocked = yield* Deferred.make<void>()
          let runs = 0
          // Each locks one row, waits until the other has its row, then asks for the other's: a cycle.
          const crossing = (first: string, second: string, mine: Deferred.Deferred<void>, theirs: Deferred.Deferred<void>) =>
            Effect.gen(function*() {
              runs++
              yield* sql`UPDATE conflict_rows SET label = label || '+' WHERE label LIKE ${`${first}%`}`
              yield* Deferred.succeed(mine, undefined)
              yield* Deferred.await(theirs)
              yield* sql`UPDATE conflict_rows SET label = label || '+' WHERE label LIKE ${`${second}%`}`
            }).pipe(withConflictRetry(sql))
          const one = yield* Effect.forkChild(crossing("a", "b", aLocked, bLocked))
          const two = yield* Effect.forkChild(crossing("b", "a", bLocked, aLocked))
          const exits = [yield* Fiber.await(one), yield* Fiber.await(two)]
          assert.deepStrictEqual(exits.map(Exit.isSuccess), [true, true], String(exits))
          assert.strictEqual(runs, 3)
          assert.deepStrictEqual((yield* labels(sql)).sort(), ["a++", "b++"])
        })
      ),
    30_000
  )
})

describe("which failures are conflict aborts", () => {
  it("deadlock and serialization failures, nothing else", () => {
    const reasons = [
      new SqlError.DeadlockError({ cause: new Error("40P01") }),
      new SqlError.SerializationError({ cause: new Error("40001") }),
      new SqlError.UniqueViolation({ cause: new Error("23505"), constraint: "x" }),
      new SqlError.ConnectionError({ cause: new Error("08006") })
    ]
    assert.deepStrictEqual(reasons.map((reason) => isConflictAbort(new SqlError.SqlError({ reason }))), [
      true,
      true,
      false,
      false
    ])
    assert.isFalse(isConflictAbort(new Error("40P01")))
  })
})
