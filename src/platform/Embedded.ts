import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { DurableNodeFS, pgliteStartParams, syncTree } from "./DurableFs.ts"

/*
 * The embedded PGlite itself: opening it (from the initdb snapshot when the
 * database is new) and serving it on a loopback port. Plain promises with no
 * Effect runtime, because this module is what the database worker thread
 * loads (see embeddedWorker.ts).
 */

/** Its package.json is not exported: found beside the entry point (dist/). */
const pgliteVersion = (JSON.parse(readFileSync(
  join(dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "..", "package.json"),
  "utf8"
)) as { version: string }).version

/**
 * What initdb leaves behind, kept once per machine and PGlite version. A
 * fresh embedded database (an empty DATA_DIR, or in memory) loads it instead
 * of running initdb, which is most of a first start (about 4 s of 5 on a quiet
 * machine). It is taken right after initdb, before any migration, so it holds
 * no table, no row and no secret of any database.
 */
export const pgliteSnapshotFile = join(tmpdir(), "herald-pglite", `initdb-${pgliteVersion}.tar.gz`)

const readSnapshot = (): Uint8Array | undefined => {
  try {
    return readFileSync(pgliteSnapshotFile)
  } catch {
    return undefined
  }
}

/** Written to a file of its own, then renamed: processes starting together never read half a snapshot. */
const saveSnapshot = async (db: PGlite) => {
  try {
    const tarball = new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer())
    mkdirSync(join(tmpdir(), "herald-pglite"), { recursive: true })
    const partial = `${pgliteSnapshotFile}.${process.pid}.${Date.now()}`
    writeFileSync(partial, tarball)
    renameSync(partial, pgliteSnapshotFile)
  } catch {
    // Only a cache: the next fresh start runs initdb again.
  }
}

/** Opens (or creates) the embedded database, creating a fresh one from the initdb snapshot when there is one. */
export const openPglite = async (dataDir: string | undefined, durable: boolean): Promise<PGlite> => {
  const create = (loadDataDir?: Blob) =>
    PGlite.create({
      ...(dataDir === undefined ? { dataDir: "memory://" } : { dataDir, fs: new DurableNodeFS(dataDir) }),
      startParams: pgliteStartParams(durable && dataDir !== undefined),
      ...(loadDataDir === undefined ? {} : { loadDataDir })
    })
  const fresh = dataDir === undefined || readdirSync(dataDir).length === 0
  if (!fresh) return create()
  const db = await createFresh(create, dataDir)
  if (durable && dataDir !== undefined) syncTree(dataDir)
  return db
}

/** A fresh database: from the initdb snapshot when there is a sound one, else by initdb (then kept as the snapshot). */
const createFresh = async (create: (loadDataDir?: Blob) => Promise<PGlite>, dataDir: string | undefined) => {
  const snapshot = readSnapshot()
  if (snapshot !== undefined) {
    try {
      return await create(new Blob([snapshot]))
    } catch {
      // A damaged snapshot: drop it and whatever it left, and run initdb.
      rmSync(pgliteSnapshotFile, { force: true })
      if (dataDir !== undefined) {
        for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true })
      }
    }
  }
  const db = await create()
  await saveSnapshot(db)
  return db
}

/** The database opened and served on a loopback port (`port` 0 picks a free one). */
export const serveEmbedded = async (dataDir: string | undefined, durable: boolean, port: number) => {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true })
  const db = await openPglite(dataDir, durable)
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port, maxConnections: 1 })
  try {
    await server.start()
  } catch (error) {
    await db.close().catch(() => undefined)
    throw error
  }
  const [, bound] = server.getServerConn().split(":")
  return { db, server, port: Number(bound) }
}
