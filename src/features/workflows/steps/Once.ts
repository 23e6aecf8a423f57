import { Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { RunId } from "../../../domain/Ids.ts"

const parsed = (value: unknown): unknown => typeof value === "string" ? JSON.parse(value) : value

/** The result recorded under `key` for the run, if any. */
export const recorded = <A>(runId: RunId, key: string, schema: Schema.Codec<A, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<
      { result: unknown }
    >`SELECT result FROM workflow_effects WHERE run_id = ${runId} AND key = ${key}`
      .pipe(Effect.orDie)
    return Option.map(Option.fromNullishOr(rows[0]), (row) => Schema.decodeUnknownSync(schema)(parsed(row.result)))
  })

/**
 * Look up, do once, record: the result recorded under `key` for the run, or
 * `work`'s result, recorded. A step re-run after a crash (or a second attempt
 * of it in another process) finds the record and does not repeat the work.
 *
 * `atomic`: the work writes to the database and its writes commit with the
 * record (the record is claimed first in one transaction: a concurrent attempt
 * waits on the claim, then reads the winner's result; a failure leaves no
 * record). Otherwise the work is done outside any transaction (a model call, a
 * scan, a read) and its result is recorded the moment it is known; a
 * concurrent attempt's record, if first, is the one answered.
 */
export const once = <A, E, R>(
  runId: RunId,
  key: string,
  schema: Schema.Codec<A, unknown>,
  work: Effect.Effect<A, E, R>,
  options: { readonly atomic?: boolean } = {}
): Effect.Effect<A, E, R | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const found = yield* recorded(runId, key, schema)
    if (Option.isSome(found)) return found.value
    const encode = (value: A) => JSON.stringify(Schema.encodeUnknownSync(schema)(value))
    const winner = (value: A) => Effect.map(recorded(runId, key, schema), Option.getOrElse(() => value))
    if (options.atomic !== true) {
      const value = yield* work
      const inserted = yield* sql`INSERT INTO workflow_effects (run_id, key, result) VALUES (${runId}, ${key}, ${
        encode(value)
      }::jsonb)
        ON CONFLICT (run_id, key) DO NOTHING RETURNING key`.pipe(Effect.orDie)
      return inserted.length === 1 ? value : yield* winner(value)
    }
    return yield* Effect.gen(function*() {
      const claimed =
        yield* sql`INSERT INTO workflow_effects (run_id, key, result) VALUES (${runId}, ${key}, 'null'::jsonb)
        ON CONFLICT (run_id, key) DO NOTHING RETURNING key`
      if (claimed.length === 0) {
        const again = yield* recorded(runId, key, schema)
        if (Option.isSome(again)) return again.value
      }
      const value = yield* work
      yield* sql`UPDATE workflow_effects SET result = ${encode(value)}::jsonb WHERE run_id = ${runId} AND key = ${key}`
      return value
    }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
  })
