import { PGlite } from "@electric-sql/pglite"
import { NodeFS } from "@electric-sql/pglite/nodefs"
import { closeSync, fdatasyncSync, fstatSync, fsyncSync, openSync, readdirSync } from "node:fs"
import { join } from "node:path"

interface NodeStream {
  readonly nfd: number
}

interface EmscriptenModule {
  readonly FS: { readonly filesystems: { readonly NODEFS: { readonly stream_ops: Record<string, unknown> } } }
}

/**
 * PGlite's files in DATA_DIR, synced to the disk when PostgreSQL asks.
 * Emscripten's Node file system has no fsync of its own (PostgreSQL's fsync
 * calls return without doing anything), so this one gives it one: a regular
 * file is flushed with fdatasync (its data and size: what PostgreSQL's own
 * default does on Linux), a directory with fsync (its new entries).
 */
export class DurableNodeFS extends NodeFS {
  /** How many syncs reached the disk: what the durability probe reads. */
  syncs = 0

  override async init(pg: PGlite, opts: Parameters<NodeFS["init"]>[1]) {
    const result = await super.init(pg, opts)
    const preRun = result.emscriptenOpts.preRun ?? []
    return {
      emscriptenOpts: {
        ...result.emscriptenOpts,
        preRun: [...(Array.isArray(preRun) ? preRun : [preRun]), (module: EmscriptenModule) => {
          module.FS.filesystems.NODEFS.stream_ops.fsync = (stream: NodeStream) => {
            if (fstatSync(stream.nfd).isDirectory()) fsyncSync(stream.nfd)
            else fdatasyncSync(stream.nfd)
            this.syncs++
            return 0
          }
        }]
      }
    }
  }
}

/**
 * PGlite's start-up options: its defaults turn fsync off (`-F`). Durable, it
 * is on, and the write-ahead log is synced with fsync() rather than
 * fdatasync(), which Emscripten turns into a no-op (the file system above
 * makes the fsync an fdatasync again).
 */
export const pgliteStartParams = (durable: boolean): Array<string> =>
  durable
    ? [...PGlite.defaultStartParams.filter((param) => param !== "-F"), "-c", "fsync=on", "-c", "wal_sync_method=fsync"]
    : [...PGlite.defaultStartParams]

/**
 * Syncs every file and directory under `dir`, children first. A fresh
 * database's files are unpacked from the initdb snapshot by plain writes that
 * PostgreSQL never syncs (they are not its dirty pages); until they are on the
 * disk, a power loss could leave a log of acknowledged writes with no base to
 * replay it on.
 */
export const syncTree = (dir: string): void => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) syncTree(path)
    else if (entry.isFile()) syncPath(path)
  }
  syncPath(dir)
}

const syncPath = (path: string) => {
  const fd = openSync(path, "r")
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
