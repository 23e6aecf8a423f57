/**
 * The faults the soak injects and how it times recovery: a Redis of its own
 * (stopped and started again on its port), the PostgreSQL cluster behind
 * DATABASE_URL restarted through Debian's pg_ctlcluster, and a probe whose
 * log says when requests succeeded again after each fault.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { findExecutable, stopChild } from "./cluster-kit.ts"
import { freePort } from "./service-process.ts"

export interface OwnRedis {
  readonly url: string
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
}

/** A redis-server on a loopback port, without persistence: nobody else's Redis is disturbed by its faults. */
export const startOwnRedis = async (): Promise<OwnRedis> => {
  const binary = findExecutable("redis-server")
  if (binary === undefined) throw new Error("redis-server is not installed (Debian: apt-get install -y redis-server)")
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore"
    })
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      try {
        if (
          execFileSync("redis-cli", ["-p", String(port), "ping"], {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "ignore"]
          }).trim() === "PONG"
        ) return
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error("redis-server did not start")
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop: async () => {
      if (child !== undefined) await stopChild(child, "SIGKILL")
    }
  }
}

/** The Debian cluster (`version name`) serving PostgreSQL on `port`, from pg_lsclusters. */
export const postgresClusterOn = (port: number): { version: string; name: string } | undefined => {
  if (findExecutable("pg_lsclusters") === undefined) return undefined
  for (const line of execFileSync("pg_lsclusters", ["--no-header"], { encoding: "utf8" }).split("\n")) {
    const [version, name, clusterPort] = line.trim().split(/\s+/)
    if (version !== undefined && name !== undefined && Number(clusterPort) === port) return { version, name }
  }
  return undefined
}

export const restartPostgres = (cluster: { version: string; name: string }) =>
  execFileSync("pg_ctlcluster", [cluster.version, cluster.name, "restart"], { stdio: "ignore" })

/** One probe's outcome at `at` (ms since the soak began). */
export interface ProbeSample {
  readonly at: number
  readonly ok: boolean
}

/**
 * How long after `faultAt` requests succeeded again: the time to the first
 * success after the last failure that precedes a run of `streak` successes.
 * Zero when no probe failed after the fault; undefined when they never recovered.
 */
export const recoveryMs = (samples: ReadonlyArray<ProbeSample>, faultAt: number, streak = 10): number | undefined => {
  const after = samples.filter((s) => s.at >= faultAt)
  if (after.every((s) => s.ok)) return 0
  let run = 0
  for (let i = 0; i < after.length; i++) {
    run = after[i]!.ok ? run + 1 : 0
    if (run === streak) {
      const first = after[i - streak + 1]!
      return after.slice(0, i - streak + 1).some((s) => !s.ok) ? first.at - faultAt : 0
    }
  }
  return undefined
}
