import { NodeServices } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import {
  Cause,
  Duration,
  Effect,
  Exit,
  FileSystem,
  Layer,
  Option,
  Path,
  Redacted,
  Schedule,
  String as Str
} from "effect"
import { SqlClient, SqlError } from "effect/sql"
import type { Migrator } from "effect/sql"
import { mkdirSync, readdirSync } from "node:fs"
import { connect } from "node:net"
import type { Duplex } from "node:stream"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import { AppConfig, type AppConfigShape } from "../Config.ts"
import { checkStartupSpace, DataDirFull, diskGuard } from "./DiskGuard.ts"

const migrationsDir = fileURLToPath(new URL("../../migrations", import.meta.url))

/**
 * Plain `.sql` files named `0001_name.sql`, applied in id order. SQL rather
 * than TypeScript so PostgreSQL and PGlite run byte-identical statements.
 */
export const sqlFileLoader: Migrator.Loader<FileSystem.FileSystem | Path.Path> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const files = yield* Effect.orDie(fs.readDirectory(migrationsDir))
  const migrations: Array<Migrator.ResolvedMigration> = []
  for (const file of files) {
    const match = /^(\d+)_(.+)\.sql$/.exec(file)
    if (match === null) continue
    const text = yield* Effect.orDie(fs.readFileString(path.join(migrationsDir, file)))
    // The extended protocol takes one statement at a time: a statement ends
    // with `;` at the end of a line, a convention the migration files keep.
    const statements = text.split(/;[ \t]*\r?\n/).map((s) => s.replace(/;\s*$/, "").trim())
      .filter((s) => s.replace(/--.*/g, "").trim().length > 0)
    const run = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      for (const statement of statements) yield* sql.unsafe(statement).raw
    })
    migrations.push([Number(match[1]), match[2], Effect.succeed(run)])
  }
  return migrations.sort(([a], [b]) => a - b)
}) as Migrator.Loader<FileSystem.FileSystem | Path.Path>

/**
 * A name conversion remembered per name. Every row of a result is converted
 * key by key, and the same few column names come back on every statement:
 * converted afresh, each key is a new string to build, hash and intern.
 * Names come from the SQL the code holds, so the set stays small; the bound
 * is only a guard.
 */
const rememberedNames = (convert: (name: string) => string) => {
  const seen = new Map<string, string>()
  return (name: string): string => {
    let converted = seen.get(name)
    if (converted === undefined) {
      if (seen.size >= 10_000) seen.clear()
      converted = convert(name)
      seen.set(name, converted)
    }
    return converted
  }
}

const clientOptions = {
  transformQueryNames: rememberedNames(Str.camelToSnake),
  transformResultNames: rememberedNames(Str.snakeToCamel),
  // Stored JSON (event data, metadata, settings) is the customer's own: its keys stay as written.
  transformJson: false,
  // Statements from concurrent requests share a connection and leave in one
  // write per tick, answered in one read: under load a request's two statements
  // cost a fraction of a round trip each instead of one apiece, and no request
  // waits for a connection of its own. Transactions, streams and listeners
  // still take a connection to themselves.
  multiplex: true,
  // Up to 8 statements per connection before the pool uses another. They are
  // answered in order, so a slow statement holds up those queued behind it on
  // its connection: 8 bounds that to 7 while keeping nearly all of the gain
  // of the library's 32 (docs/design/request-pipeline.md).
  multiplexConcurrency: 8,
  connectTimeout: Duration.seconds(5),
  applicationName: "herald"
} as const

/** How the embedded database keeps its files: synced to the disk before a write is answered, or not. */
export interface EmbeddedOptions {
  readonly durable: boolean
  /** Free space kept in DATA_DIR for the write-ahead log (bytes). */
  readonly reserveBytes: number
}

const defaultEmbedded: EmbeddedOptions = { durable: true, reserveBytes: 0 }

const workerEntry = new URL("./embeddedWorker.ts", import.meta.url)

type WorkerAnswer = { readonly ready: true; readonly port: number } | {
  readonly failed: true
  readonly message: string
}

/** Starts the database thread and waits until it serves, or says why it cannot. */
const startWorker = (dataDir: string | undefined, durable: boolean, port: number) =>
  new Promise<{ readonly worker: Worker; readonly port: number }>((resolve, reject) => {
    const worker = new Worker(workerEntry, { workerData: { dataDir, durable, port } })
    const settle = (outcome: () => void) => {
      worker.off("message", onMessage).off("exit", onExit)
      outcome()
    }
    const onMessage = (answer: WorkerAnswer) => {
      if ("ready" in answer) return settle(() => resolve({ worker, port: answer.port }))
      settle(() => reject(new Error(answer.message)))
      void worker.terminate()
    }
    const onExit = (code: number) =>
      settle(() => reject(new Error(`the database thread ended (exit code ${code}) before it served`)))
    // Without a listener an `error` event would be thrown on this thread; `exit` follows it and says what matters.
    worker.on("error", () => undefined)
    worker.on("message", onMessage).on("exit", onExit)
  })

const stopWorker = (worker: Worker) =>
  new Promise<void>((resolve) => {
    const done = () => resolve()
    worker.once("exit", done)
    worker.once("message", () => void worker.terminate().then(done, done))
    worker.postMessage("stop")
  })

/** Free space checked before the thread starts, and again when a start failed on a disk that filled up meanwhile. */
const startChecked = (dataDir: string | undefined, options: EmbeddedOptions, port: number) =>
  Effect.tryPromise({
    try: async () => {
      if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true })
      const fresh = dataDir !== undefined && readdirSync(dataDir).length === 0
      const full = dataDir === undefined ? undefined : checkStartupSpace(dataDir, options.reserveBytes, fresh)
      if (full !== undefined) throw full
      try {
        return await startWorker(dataDir, options.durable, port)
      } catch (error) {
        throw (dataDir === undefined ? undefined : checkStartupSpace(dataDir, options.reserveBytes, fresh)) ?? error
      }
    },
    catch: (error) => error
  }).pipe(Effect.catch((error) => error instanceof DataDirFull ? Effect.fail(error) : Effect.die(error)))

/**
 * Starts an embedded PGlite on a thread of its own and serves it on a
 * loopback port, so the same PostgreSQL wire driver and the same migrations
 * run against it. In DATA_DIR it refuses to start without the reserve free
 * (PGlite itself would abort without saying why), and a start that failed on
 * a disk that filled up meanwhile says so too. Should the thread end (PGlite
 * aborts on a fault it cannot recover from), a new one opens the same files
 * on the same port: statements fail with a connection error (503) meanwhile,
 * and what was committed is replayed from the write-ahead log.
 */
export const embeddedServer = (dataDir: string | undefined, options: EmbeddedOptions = defaultEmbedded) =>
  Effect.gen(function*() {
    let stopping = false
    let current = yield* startChecked(dataDir, options, 0)
    const port = current.port
    yield* Effect.addFinalizer(() => {
      stopping = true
      return Effect.promise(() => stopWorker(current.worker))
    })
    const ended = (worker: Worker) =>
      Effect.callback<number>((resume) => {
        worker.once("exit", (code) => resume(Effect.succeed(code)))
      })
    const restart = Effect.gen(function*() {
      const code = yield* ended(current.worker)
      if (stopping) return yield* Effect.interrupt
      yield* Effect.logError("the embedded database thread ended; starting it again", { exitCode: code, port })
      current = yield* startChecked(dataDir, options, port).pipe(
        Effect.tapCause((cause) =>
          Effect.logError("the embedded database did not start again", { cause: Cause.pretty(cause) })
        ),
        Effect.sandbox,
        Effect.retry(Schedule.spaced(Duration.seconds(1)))
      )
    })
    yield* Effect.forkScoped(Effect.forever(restart))
    /** `thread` is the one serving now: tests end it to see the next one take over. */
    return { port, thread: () => current.worker }
  })

/** The start-up codes a first message carries instead of a type byte. */
const sslRequestCode = 80877103
const cancelRequestCode = 80877102
const readyForQuery = (type: number) => type === 0x5a
/** Sync closes an extended-query cycle, Query is a simple one: each is answered with one ReadyForQuery. */
const answeredMessage = (type: number) => type === 0x53 || type === 0x51

/**
 * Follows one direction of a PostgreSQL connection message by message (a
 * type byte, then a length that counts itself), across however the socket
 * splits them, and says how many messages of the counted types went past.
 */
class MessageCounter {
  private left = 0
  private readonly header = new Uint8Array(5)
  private have = 0
  /** Whether the bytes so far end exactly where a message of the counted type ends. */
  endsAfter = false

  private readonly counted: (type: number) => boolean

  constructor(counted: (type: number) => boolean) {
    this.counted = counted
  }

  count(chunk: Uint8Array): number {
    let found = 0
    let at = 0
    while (at < chunk.length) {
      if (this.left > 0) {
        const step = Math.min(this.left, chunk.length - at)
        at += step
        this.left -= step
        continue
      }
      this.header[this.have++] = chunk[at++]
      if (this.have < 5) continue
      this.have = 0
      const type = this.header[0]
      this.left = ((this.header[1] << 24) | (this.header[2] << 16) | (this.header[3] << 8) | this.header[4]) - 4
      this.endsAfter = this.counted(type)
      if (this.endsAfter) found++
    }
    if (this.left > 0 || this.have > 0) this.endsAfter = false
    return found
  }
}

/**
 * A TCP connection to the database that is destroyed when a statement gets no
 * answer (not even its first byte) within `timeoutMs`. The driver then fails
 * the statement with a ConnectionError (answered 503) and the pool opens a
 * fresh connection, so a hung or partitioned database cannot hang requests.
 * An idle connection is never timed out; nor is one upgraded to TLS (its writes
 * bypass this socket's `write`), which keeps the driver's own behaviour.
 *
 * Statements are pipelined (several on the wire at once, each closed by its
 * own Sync and answered in order, each answer ending with ReadyForQuery), so
 * the connection counts the answers it is owed: when one ends and another is
 * still owed, the next statement's wait starts then. Its first byte stops the
 * clock, as before, so a stream of rows its reader holds back is not cut.
 */
export const watchedSocket = (host: string, port: number, timeoutMs: number) => (): Duplex => {
  const socket = connect({ host, port, noDelay: true })
  // When the statement at the head of the pipeline began waiting for its
  // first byte. One timer per connection checks it, re-armed only when it
  // fires: a timer set and cleared per statement cost more than the rest of
  // this wrapper on a busy server.
  let waitingSince: number | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  // ReadyForQuery messages still owed: one per Sync or simple query written, one for the start-up.
  let owed = 0
  // The first message of a connection has no type byte; after an SSLRequest the server answers with one bare byte.
  let startup = true
  let bareByte = false
  // Once TLS takes over (or the start-up is not one this wrapper knows), it falls back to "any byte answers".
  let counting = true
  const answers = new MessageCounter(readyForQuery)
  const requests = new MessageCounter(answeredMessage)
  const check = () => {
    timer = undefined
    if (waitingSince === undefined) return
    const left = waitingSince + timeoutMs - performance.now()
    if (left <= 0) socket.destroy(new Error(`database gave no answer within ${timeoutMs} ms`))
    else timer = setTimeout(check, left).unref()
  }
  const wait = () => {
    waitingSince = performance.now()
    // Unref'd: an open socket keeps the process alive by itself, and a closed one clears it.
    timer ??= setTimeout(check, timeoutMs).unref()
  }
  /** How many answers a written chunk asks for. */
  const asked = (chunk: Uint8Array): number => {
    if (!startup) return requests.count(chunk)
    startup = false
    const code = chunk.length >= 8 ? new DataView(chunk.buffer, chunk.byteOffset, 8).getInt32(4) : -1
    if (code === sslRequestCode) {
      startup = bareByte = true
      return 0
    }
    if (code === cancelRequestCode) return 0
    // A start-up message, written whole: the server answers it with ReadyForQuery once the session is ready.
    if (chunk.length !== new DataView(chunk.buffer, chunk.byteOffset, 4).getInt32(0)) counting = false
    return 1
  }
  const write = socket.write.bind(socket) as (...args: Array<unknown>) => boolean
  ;(socket as unknown as { write: (...args: Array<unknown>) => boolean }).write = (...args) => {
    const chunk = args[0]
    if (counting && chunk instanceof Uint8Array) {
      const before = owed
      const more = asked(chunk)
      owed += more
      // Behind a statement still answering, this one's wait starts when that answer ends.
      if (waitingSince === undefined && (before === 0 || more === 0)) wait()
    } else if (waitingSince === undefined) wait()
    return write(...args)
  }
  socket.on("data", (chunk: Uint8Array) => {
    if (counting && bareByte) {
      bareByte = false
      // "S": TLS follows, whose bytes this wrapper cannot read.
      if (chunk[0] !== 0x4e) counting = false
      chunk = chunk.subarray(1)
    }
    if (!counting) return void (waitingSince = undefined)
    owed = Math.max(0, owed - answers.count(chunk))
    if (answers.endsAfter && owed > 0) wait()
    else waitingSince = undefined
  })
  socket.on("close", () => {
    waitingSince = undefined
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  })
  return socket
}

/** Host and port of a TCP database URL; undefined for a Unix-socket one. */
const tcpTarget = (url: string): { host: string; port: number } | undefined => {
  const parsed = new URL(url)
  const hostParam = parsed.searchParams.get("host")
  if (parsed.hostname.length === 0 || (hostParam !== null && hostParam.startsWith("/"))) return undefined
  return { host: parsed.hostname.replace(/^\[|\]$/g, ""), port: Number(parsed.port || 5432) }
}

/** The database refused or dropped the connection (as opposed to refusing the statement). */
export const isConnectionFailure = (error: unknown): error is SqlError.SqlError =>
  SqlError.isSqlError(error) && error.cause._tag === "ConnectionError"

/**
 * PostgreSQL gave the transaction up so that others could go on: it was the
 * one chosen to break a deadlock (40P01), or it could not be serialised
 * (40001). Nothing it wrote was kept, and the same work may well succeed at once.
 */
export const isConflictAbort = (error: unknown): error is SqlError.SqlError =>
  SqlError.isSqlError(error) &&
  (error.cause._tag === "DeadlockError" || error.cause._tag === "SerializationError")

/** Whether a transaction ended on a conflict abort, failed or died with it (the callers turn SqlError into a defect). */
const abortedByConflict = (cause: Cause.Cause<unknown>): boolean =>
  !Cause.hasInterrupts(cause) &&
  cause.reasons.some((reason) =>
    (Cause.isFailReason(reason) && isConflictAbort(reason.error)) ||
    (Cause.isDieReason(reason) && isConflictAbort(reason.defect))
  )

/** Runs after the first: a deadlock that repeats this often is a lock-order bug to fix, not to wait out. */
export const conflictRetries = 4

/** 5-10 ms before the first re-run, doubling: the two sides of a deadlock start again apart. */
const conflictBackoffMs = (retry: number) => 5 * 2 ** retry * (1 + Math.random())

/**
 * `sql.withTransaction`, run again whole (at most `conflictRetries` more
 * times, after a short jittered pause) when PostgreSQL aborts it with 40P01 or
 * 40001. For the write paths that lock several rows, whose effects are all
 * statements of this transaction: a conflict abort rolls every one of them
 * back, so the re-run starts from what the database holds, as if the first
 * run had never been. A transaction that has already reached outside the
 * database (a provider called, a message sent) must not use it: the re-run
 * would repeat that call. `afterCommit` callbacks are safe, since they run
 * only once a run commits. Nested in another transaction it is a plain
 * savepoint: locks taken before it stay held, so only the outermost
 * transaction is re-run, and the inner abort reaches it.
 */
export const withConflictRetry = (sql: SqlClient.SqlClient) => <A, E, R>(self: Effect.Effect<A, E, R>) => {
  const once = sql.withTransaction(self)
  const attempt = (retry: number): Effect.Effect<A, E | SqlError.SqlError, R> =>
    Effect.flatMap(Effect.exit(once), (exit) => {
      if (Exit.isSuccess(exit)) return Effect.succeed(exit.value)
      if (retry >= conflictRetries || !abortedByConflict(exit.cause)) return Effect.failCause(exit.cause)
      return Effect.logWarning("transaction aborted by a database conflict; running it again").pipe(
        Effect.annotateLogs({ retry: retry + 1, cause: Cause.pretty(exit.cause) }),
        Effect.andThen(Effect.sleep(Duration.millis(conflictBackoffMs(retry)))),
        Effect.andThen(attempt(retry + 1))
      )
    })
  return Effect.flatMap(
    Effect.serviceOption(sql.transactionService),
    (outer) => Option.isSome(outer) ? once : attempt(0)
  )
}

/** How long start-up waits for an unreachable PostgreSQL: 30 tries, 2 s apart. */
const startupRetries = 29

/**
 * At start PostgreSQL may still be coming up (a container started beside this
 * one, a restart): while it refuses connections the service waits, saying so,
 * for about a minute, then gives up (main.ts prints one line). The embedded
 * database never refuses, so it is never rebuilt by this.
 */
const waitingForDatabase = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.unwrap(
    Layer.build(layer).pipe(
      Effect.tapError((error) =>
        isConnectionFailure(error)
          ? Effect.logWarning("database unreachable at start; retrying in 2 s").pipe(
            Effect.annotateLogs({ reason: String(error.cause.cause) })
          )
          : Effect.void
      ),
      Effect.retry({ while: isConnectionFailure, schedule: Schedule.spaced("2 seconds"), times: startupRetries }),
      Effect.map(Layer.succeedContext)
    )
  )

/** A client of the configured PostgreSQL server with its own pool of `maxConnections`. */
const postgresClient = (url: string, maxConnections: number, responseTimeoutMs: number) => {
  const target = tcpTarget(url)
  return PgClient.layer({
    ...clientOptions,
    url: Redacted.make(url),
    maxConnections,
    ...(target === undefined ? {} : { stream: watchedSocket(target.host, target.port, responseTimeoutMs) })
  })
}

/**
 * A second pool on the configured PostgreSQL for a subsystem that reserves
 * connections of its own (the workflow runner storage keeps one for its
 * locks, which on the app's pool of PG_MAX_CONNECTIONS=1 would starve every
 * other query). Only for PostgreSQL: the embedded PGlite is one session.
 */
export const dedicatedPostgresPool = (maxConnections: number) =>
  Layer.unwrap(Effect.gen(function*() {
    const config = yield* AppConfig
    const target = databaseTarget(config)
    if (target._tag !== "postgres") {
      return yield* Effect.die("dedicatedPostgresPool needs DATABASE_URL to be a PostgreSQL server")
    }
    return postgresClient(target.url, maxConnections, config.dbResponseTimeoutMs)
  }))

/**
 * Where the configured database lives: a PostgreSQL server, or the embedded
 * PGlite, in memory (no directory) or in DATA_DIR. The one reading of
 * DATABASE_URL for the pool, the workflow engine and the start-up line.
 */
export const databaseTarget = (config: Pick<AppConfigShape, "databaseUrl" | "dataDir">):
  | { readonly _tag: "postgres"; readonly url: string }
  | { readonly _tag: "pglite"; readonly dataDir: string | undefined } =>
{
  const url = Option.map(config.databaseUrl, Redacted.value)
  if (Option.isSome(url) && !url.value.startsWith("pglite:")) return { _tag: "postgres", url: url.value }
  return { _tag: "pglite", dataDir: Option.isSome(url) && url.value === "pglite://memory" ? undefined : config.dataDir }
}

const pgLayer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  const target = databaseTarget(config)
  if (target._tag === "postgres") return postgresClient(target.url, config.pgMaxConnections, config.dbResponseTimeoutMs)
  const reserveBytes = config.dataDirReserveMb * 1024 * 1024
  const durable = !config.pgliteUnsafeNoFsync
  if (!durable && target.dataDir !== undefined) {
    yield* Effect.logWarning(
      "PGLITE_UNSAFE_NO_FSYNC is set: writes are answered before they reach the disk; " +
        "an operating-system crash or power loss can lose them"
    )
  }
  const guard = target.dataDir === undefined ? Layer.empty : diskGuard(target.dataDir, reserveBytes)
  return Layer.unwrap(
    Effect.map(embeddedServer(target.dataDir, { durable, reserveBytes }), ({ port }) =>
      Layer.provideMerge(
        guard,
        PgClient.layer({
          ...clientOptions,
          host: "127.0.0.1",
          port,
          stream: watchedSocket("127.0.0.1", port, config.dbResponseTimeoutMs),
          username: "postgres",
          database: "postgres",
          // PGlite is one session: two pooled connections would interleave transactions.
          maxConnections: 1
        })
      ))
  )
}))

const migrate = PgMigrator.run({ loader: sqlFileLoader, table: "herald_migrations" }).pipe(
  // Two processes starting at once may race on creating the migrations table;
  // the loser retries and finds the work done.
  Effect.retry({ times: 3 }),
  Effect.provide(NodeServices.layer)
)

/** The SQL client with every migration applied. */
export const DatabaseLive = waitingForDatabase(
  Layer.effectDiscard(migrate).pipe(
    Layer.provideMerge(pgLayer)
  )
)
