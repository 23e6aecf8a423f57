import { Context, Data, Duration, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { statfsSync } from "node:fs"
import { resolve } from "node:path"

const mib = 1024 * 1024

/**
 * What a fresh embedded database takes in DATA_DIR (its files after initdb and
 * the first write-ahead-log segment: about 40 MiB), kept free at start-up on
 * top of the reserve.
 */
export const freshDatabaseBytes = 48 * mib

/** Bytes free for this process in `dir`; undefined when the file system cannot say. */
export const freeBytes = (dir: string): number | undefined => {
  try {
    const stats = statfsSync(dir)
    return Number(stats.bavail) * Number(stats.bsize)
  } catch {
    return undefined
  }
}

const inMib = (bytes: number) => Math.floor(bytes / mib)

/** DATA_DIR has too little free space for the embedded database to start (or to have started). */
export class DataDirFull extends Data.TaggedError("DataDirFull")<{
  readonly dataDir: string
  readonly freeBytes: number
  readonly neededBytes: number
}> {
  override get message() {
    return `Not enough free space in DATA_DIR (${resolve(this.dataDir)}): ${inMib(this.freeBytes)} MiB free, ` +
      `${Math.ceil(this.neededBytes / mib)} MiB needed (the database's files and the DATA_DIR_RESERVE_MB reserve)`
  }
}

/** Fails when `dataDir` has less than the reserve free (plus a fresh database's size when it holds none yet). */
export const checkStartupSpace = (dataDir: string, reserveBytes: number, fresh: boolean): DataDirFull | undefined => {
  const free = freeBytes(dataDir)
  const needed = reserveBytes + (fresh ? freshDatabaseBytes : 0)
  return free !== undefined && free < needed
    ? new DataDirFull({ dataDir, freeBytes: free, neededBytes: needed })
    : undefined
}

/**
 * Why the database refuses writes right now, when it does: read by readiness
 * and by the 503's log line. Without a guard (PostgreSQL, in memory) never.
 */
export const WriteRefusal = Context.Reference<{ readonly current: () => string | undefined }>(
  "herald/platform/WriteRefusal",
  { defaultValue: () => ({ current: () => undefined }) }
)

/** The refusal's cause, as logged. */
export const noSpaceCause = "no space left in DATA_DIR"

/** How often the guard looks at the free space: the reserve must outlast the writes of one interval. */
const checkInterval = Duration.millis(200)

/**
 * Keeps the embedded database off a full disk. PostgreSQL cannot survive a
 * write-ahead-log segment that does not fit (PGlite then spins forever), so
 * writes are refused before that: while DATA_DIR has less than the reserve
 * free, every new transaction is read-only, so writes fail at once (503) and
 * reads go on. Once space is freed (the reserve and 1 MiB more, so the state
 * does not flap) writes are accepted again. PGlite is a single session: a
 * setting made on the pool's one connection holds for every statement.
 */
export const diskGuard = (dataDir: string, reserveBytes: number) =>
  Layer.effect(
    WriteRefusal,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      let refusing = false
      const set = (readOnly: boolean) =>
        sql.unsafe(`SET default_transaction_read_only = ${readOnly ? "on" : "off"}`).raw
      const check = Effect.gen(function*() {
        const free = freeBytes(dataDir)
        if (free === undefined) return
        if (!refusing && free < reserveBytes) {
          yield* set(true)
          refusing = true
          yield* Effect.logWarning(`${noSpaceCause}: writes are refused until space is freed`).pipe(
            Effect.annotateLogs({ dataDir: resolve(dataDir), freeMiB: inMib(free), reserveMiB: inMib(reserveBytes) })
          )
        } else if (refusing && free >= reserveBytes + mib) {
          yield* set(false)
          refusing = false
          yield* Effect.logInfo("space freed in DATA_DIR: writes are accepted again").pipe(
            Effect.annotateLogs({ dataDir: resolve(dataDir), freeMiB: inMib(free) })
          )
        }
      })
      yield* check.pipe(Effect.ignore)
      yield* check.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(checkInterval)), Effect.forkScoped)
      return { current: () => (refusing ? noSpaceCause : undefined) }
    })
  )
