import { PgClient } from "@effect/sql-pg"
import { assert, describe, it, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Redacted, String as Str } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { conflictRetries, isConflictAbort, withConflictRetry } from "../src/platform/Database.ts"
import { call, externalDatabaseUrl, testApp, TestServer } from "./support/harness.ts"
import { capturingLogs } from "./support/logs.ts"
import { bearer, provision } from "./support/processes.ts"
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
          const crossing = (
            first: string,
            second: string,
            mine: Deferred.Deferred<void>,
            theirs: Deferred.Deferred<void>
          ) =>
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

layer(testApp({ logLevel: "warn" }), { timeout: 60_000, excludeTestServices: true })(
  "a route whose transaction keeps being aborted",
  (it) => {
    it.effect("retrying an ad: run again up to the bound, then 500 E_INTERNAL in the Error shape, logged with its cause, nothing charged", () =>
      Effect.gen(function*() {
        const { sql } = yield* TestServer
        const owner = yield* provision()
        const h = bearer(owner.apiKey)
        yield* sql`INSERT INTO social_connections (customer_id, platform, account_name) VALUES (${owner.customerId}, 'x', 'acme')`
        const created = yield* call("POST", `/api/content/${owner.customerId}`, {
          headers: h,
          body: { type: "ad", platform: "x", body: "Aborted every time", metadata: { spend: 5 }, submit: true }
        })
        assert.strictEqual(created.status, 200, created.text)
        const id = created.json.id as string
        const approved = yield* call("POST", `/api/content/${owner.customerId}/${id}/review`, {
          headers: h,
          body: { action: "approve" }
        })
        assert.strictEqual(approved.status, 200, approved.text)
        // Every queueing of this piece is aborted as a deadlock victim would be.
        yield* sql.unsafe(`CREATE OR REPLACE FUNCTION conflict_on_queue() RETURNS trigger AS $$
        BEGIN
          IF NEW.content_id = '${id}' THEN RAISE EXCEPTION 'injected deadlock' USING ERRCODE = '40P01'; END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql`).raw
        yield* sql.unsafe(`CREATE TRIGGER conflict_on_queue BEFORE INSERT OR UPDATE ON publish_jobs
        FOR EACH ROW EXECUTE FUNCTION conflict_on_queue()`).raw
        const reply = yield* capturingLogs((lines) =>
          Effect.gen(function*() {
            const reply = yield* call("POST", `/api/social/posts/${owner.customerId}/${id}/retry`, {
              headers: h,
              body: {}
            })
            const again = lines.filter((line) => line.includes("transaction aborted by a database conflict"))
            assert.strictEqual(again.length, conflictRetries, lines.join("\n"))
            const unhandled = lines.filter((line) => line.includes("unhandled failure"))
            assert.strictEqual(unhandled.length, 1, lines.join("\n"))
            assert.include(unhandled[0], "DeadlockError")
            assert.include(unhandled[0], reply.json.requestId)
            return reply
          })
        ).pipe(Effect.ensuring(Effect.orDie(sql`DROP TRIGGER conflict_on_queue ON publish_jobs`)))
        assert.strictEqual(reply.status, 500)
        assert.deepStrictEqual(Object.keys(reply.json).sort(), ["code", "error", "requestId"])
        assert.deepStrictEqual([reply.json.code, reply.json.error], ["E_INTERNAL", "Internal server error"])
        const charged = yield* sql`SELECT 1 FROM spend_ledger WHERE content_id = ${id}`
        assert.strictEqual(charged.length, 0)
        const piece = yield* call("GET", `/api/content/${owner.customerId}/${id}`, { headers: h })
        assert.deepStrictEqual([piece.json.status, piece.json.scheduledAt], ["approved", null])
      }))
  }
)
