/**
 * The embedded database on a real disk: writes reach it before they are
 * acknowledged, and a full DATA_DIR (a small tmpfs mounted by the test) is an
 * error that says so, not a hang.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DurableNodeFS } from "../src/platform/DurableFs.ts"
import { openPglite } from "../src/platform/Embedded.ts"
import { eventually } from "./support/eventually.ts"
import { externalDatabaseUrl, send } from "./support/harness.ts"
import { adminSecret, assertError, provisionAt, spawnServer, startServer, uniqueEmail } from "./support/processes.ts"

/** A tmpfs of `sizeMb` MiB, or why this machine cannot mount one. */
const mountTmpfs = (sizeMb: number): { dir: string; unmount: () => void } | string => {
  const dir = mkdtempSync(join(tmpdir(), "herald-tmpfs-"))
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", dir], { stdio: "pipe" })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    return `cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): ${String((error as Error).message).split("\n")[0]}`
  }
  return {
    dir,
    unmount: () => {
      try {
        execFileSync("umount", ["-l", dir], { stdio: "pipe" })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  }
}

const tmpfsProbe = mountTmpfs(1)
const tmpfsUnavailable = typeof tmpfsProbe === "string" ? tmpfsProbe : undefined
if (typeof tmpfsProbe !== "string") tmpfsProbe.unmount()
if (tmpfsUnavailable !== undefined) console.warn(`embedded-disk: full-disk tests skipped: ${tmpfsUnavailable}`)

/** A scoped tmpfs, unmounted with the scope. */
const tmpfs = (sizeMb: number) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const mounted = mountTmpfs(sizeMb)
      if (typeof mounted === "string") throw new Error(mounted)
      return mounted
    }),
    (mounted) => Effect.sync(() => mounted.unmount())
  )

/** The embedded database as its thread opens it, here in the test's own thread so its file system can be read. */
const opened = (dir: string, durable: boolean) =>
  Effect.acquireRelease(Effect.promise(() => openPglite(dir, durable)), (db) => Effect.promise(() => db.close()))

const freeMiB = (dir: string) => {
  const stats = statfsSync(dir)
  return (Number(stats.bavail) * Number(stats.bsize)) / (1024 * 1024)
}

/** The embedded database only: with DATABASE_URL set the suite runs on PostgreSQL, where none of this applies. */
const embedded = externalDatabaseUrl() === undefined
const onTmpfs = embedded && tmpfsUnavailable === undefined

describe.skipIf(!embedded)("acknowledged writes are on disk", () => {
  it.live("PGlite runs with fsync on and syncs the write-ahead log at every commit", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "herald-durable-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const db = yield* opened(dir, true)
      const settings = yield* Effect.promise(() =>
        db.query<{ fsync: string; method: string }>(
          "SELECT current_setting('fsync') AS fsync, current_setting('wal_sync_method') AS method"
        )
      )
      assert.deepStrictEqual(settings.rows[0], { fsync: "on", method: "fsync" })
      const fs = db.fs
      assert.instanceOf(fs, DurableNodeFS)
      yield* Effect.promise(() => db.exec("CREATE TABLE acknowledged (id int PRIMARY KEY)"))
      const before = (fs as DurableNodeFS).syncs
      for (let id = 0; id < 20; id++) {
        yield* Effect.promise(() => db.query("INSERT INTO acknowledged VALUES ($1)", [id]))
      }
      // One sync of the log per committed write, at least.
      assert.isAtLeast((fs as DurableNodeFS).syncs - before, 20)
    }))

  it.live("PGLITE_UNSAFE_NO_FSYNC is the only way to turn it off", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "herald-unsafe-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const db = yield* opened(dir, false)
      const settings = yield* Effect.promise(() =>
        db.query<{ fsync: string }>("SELECT current_setting('fsync') AS fsync")
      )
      assert.strictEqual(settings.rows[0].fsync, "off")
    }))
})

describe.skipIf(!onTmpfs)("a full DATA_DIR", () => {
  it.live("at start-up stops the process with one line naming DATA_DIR and the space needed", () =>
    Effect.gen(function*() {
      const { dir } = yield* tmpfs(24)
      const dataDir = join(dir, "data")
      const failure = yield* Effect.promise(() =>
        startServer({ env: { DATA_DIR: dataDir, DATABASE_URL: undefined, DATA_DIR_RESERVE_MB: "16" } }).then(
          (server) => server.kill().then(() => "started"),
          (error: Error) => error.message
        )
      )
      const lines = failure.split("\n").filter((line) => line.trim().length > 0)
      assert.match(lines[0], /exited \(1\)/, failure)
      assert.strictEqual(lines.length, 2, failure)
      assert.match(lines[1], /^Not enough free space in DATA_DIR \(.+\/data\): \d+ MiB free, 64 MiB needed/)
    }))

  it.live(
    "refuses writes with 503 while reads and health answer, says why, and recovers once space is freed",
    () =>
      Effect.gen(function*() {
        const { dir } = yield* tmpfs(112)
        const dataDir = join(dir, "data")
        const server = yield* spawnServer({
          env: {
            DATA_DIR: dataDir,
            DATABASE_URL: undefined,
            DATA_DIR_RESERVE_MB: "24",
            ADMIN_SECRET: adminSecret,
            STATUS_PROBE_INTERVAL_MS: "200",
            // The test polls provisioning until the disk refuses and then accepts writes; each poll is an admin
            // request, and the default limit (10 a minute) would answer 429 to the readiness check that follows.
            RATE_LIMIT_ADMIN_PER_MIN: "10000"
          }
        })
        const owner = yield* Effect.promise(() => provisionAt(server))
        const provisionReply = () =>
          send(server.url, "POST", "/api/admin/provision", {
            headers: { "x-admin-secret": adminSecret },
            body: { email: uniqueEmail("full") }
          })
        const ready = () => send(server.url, "GET", "/api/health/ready", { headers: { "x-admin-secret": adminSecret } })

        // The disk fills (another program's file) to 12 MiB free: below the reserve, and too little for the
        // next 16 MiB write-ahead-log segment, where PGlite used to spin forever.
        const filler = join(dir, "filler")
        mkdirSync(dir, { recursive: true })
        writeFileSync(filler, Buffer.alloc(Math.floor((freeMiB(dir) - 12) * 1024 * 1024)))
        const refused = yield* eventually(
          Effect.promise(async () => {
            const res = await provisionReply()
            return res.status === 503 ? res : undefined
          }),
          60_000
        )
        assertError(refused, 503, "E_UNAVAILABLE")
        assert.match(server.output(), /no space left in DATA_DIR/)

        // Reads and liveness go on; readiness says the database is degraded, not down.
        const read = yield* Effect.promise(() =>
          send(server.url, "GET", `/api/customer/${owner.customerId}`, {
            headers: { authorization: `Bearer ${owner.apiKey}` }
          })
        )
        assert.strictEqual(read.status, 200, read.text)
        assert.strictEqual((yield* Effect.promise(() => send(server.url, "GET", "/api/health"))).status, 200)
        const degraded = yield* Effect.promise(ready)
        assert.strictEqual(degraded.status, 200, degraded.text)
        assert.strictEqual(degraded.json.status, "degraded")
        const database = degraded.json.components.find((c: { name: string }) => c.name === "database")
        assert.deepInclude(database, { status: "degraded", error: "no space left in DATA_DIR" })
        // The status page says so too (from its prober's next look).
        yield* eventually(
          Effect.promise(async () => {
            const page = await send(server.url, "GET", "/api/public/status")
            const component = page.json.components.find((c: { name: string }) => c.name === "database")
            return page.json.status === "degraded" && component?.status === "degraded" ? true : undefined
          }),
          60_000
        )

        // Space freed: writes are accepted again without a restart.
        rmSync(filler)
        yield* eventually(
          Effect.promise(async () => ((await provisionReply()).status === 200 ? true : undefined)),
          60_000
        )
        const healed = yield* Effect.promise(ready)
        assert.strictEqual(healed.json.status, "ok", healed.text)
      }),
    150_000
  )
})
