import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The keys a migration generated once per database (HMAC keys for cursors,
 * idempotency, checkout, dashboard sessions, social connect state). Every
 * instance on one database reads the same value, so what one signs another
 * verifies. Read at layer build; a missing row means migrations did not run,
 * which no request could recover from.
 */
export const serverSecret = (name: "cursor" | "idempotency" | "checkout" | "dashboard" | "social_state") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ value: string }>`SELECT value FROM server_secrets WHERE name = ${name}`.pipe(Effect.orDie)
    if (rows.length === 0) return yield* Effect.die(`the server secret "${name}" is missing; run the migrations`)
    return rows[0]!.value
  })
