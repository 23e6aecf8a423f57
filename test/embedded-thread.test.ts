/**
 * The embedded database runs on a thread of its own: its statements do not
 * stall the service's thread, and a thread that ends is replaced by one that
 * serves the same files on the same port.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { embeddedServer } from "../src/platform/Database.ts"
import { eventually } from "./support/eventually.ts"
import { externalDatabaseUrl } from "./support/harness.ts"

const clientOn = (port: number) =>
  Layer.build(
    PgClient.layer({ host: "127.0.0.1", port, username: "postgres", database: "postgres", maxConnections: 1 })
  ).pipe(
    Effect.map((context) => context.mapUnsafe.get(SqlClient.SqlClient.key) as SqlClient.SqlClient),
    Effect.orDie
  )

describe.skipIf(externalDatabaseUrl() !== undefined)("the embedded database's thread", () => {
  it.live("a long statement leaves the service's thread free", () =>
    Effect.gen(function*() {
      const { port } = yield* embeddedServer(undefined)
      const sql = yield* clientOn(port)
      yield* sql`SELECT 1`.pipe(Effect.orDie)
      // The longest this thread went without running a 10 ms timer while the statement ran.
      let last = performance.now()
      let stalled = 0
      const tick = () => {
        const now = performance.now()
        stalled = Math.max(stalled, now - last)
        last = now
      }
      const timer = setInterval(tick, 10)
      const started = performance.now()
      yield* sql`SELECT count(*) FROM generate_series(1, 2000000)`.pipe(Effect.orDie)
      const took = performance.now() - started
      tick()
      clearInterval(timer)
      // On the service's thread the longest stall would be the statement itself.
      assert.isAbove(took, 100, "the statement is too short to tell")
      assert.isBelow(stalled, took / 2, `stalled ${stalled.toFixed(0)} ms of a ${took.toFixed(0)} ms statement`)
    }))

  it.live("a thread that ends is replaced on the same port, with every committed row", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "herald-thread-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const served = yield* embeddedServer(dir)
      const sql = yield* clientOn(served.port)
      yield* sql`CREATE TABLE kept (id int PRIMARY KEY)`.pipe(Effect.orDie)
      yield* sql`INSERT INTO kept VALUES (1), (2)`.pipe(Effect.orDie)
      const first = served.thread()
      yield* Effect.promise(() => first.terminate())
      const rows = yield* eventually(
        sql<{ id: number }>`SELECT id FROM kept ORDER BY id`.pipe(Effect.orElseSucceed(() => undefined)),
        60_000
      )
      assert.deepStrictEqual(rows.map((row) => row.id), [1, 2])
      assert.notStrictEqual(served.thread().threadId, first.threadId)
      yield* sql`INSERT INTO kept VALUES (3)`.pipe(Effect.orDie)
    }))
})
