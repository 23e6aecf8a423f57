/**
 * Start-up time of `node src/main.ts` with the embedded database: from spawn
 * to the "listening" log line, then checked with GET /api/health. Prints the
 * median of RUNS starts on an empty DATA_DIR ("fresh") and of RUNS restarts on
 * a migrated one ("restart"); targets: fresh < 4 s, restart < 2 s.
 *   npm run bench:startup [-- RUNS=5] [--cold]
 * `--cold` first removes the cached initdb snapshot, so the first fresh start
 * shows what a machine's very first start costs (initdb, then the snapshot is kept).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pgliteSnapshotFile } from "../src/platform/Embedded.ts"
import { freePort, root, serviceEnv } from "./support/service-process.ts"

const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5)
const cold = process.argv.includes("--cold")

/** Milliseconds from spawn to the listening line (the server answering health is then checked). */
const startOnce = async (dataDir: string): Promise<number> => {
  const port = await freePort()
  const env = serviceEnv(port, { DATA_DIR: dataDir, LOG_LEVEL: "info" })
  const started = performance.now()
  const child = spawn(process.execPath, ["src/main.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  const ms = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("\"listening on ")) resolve(performance.now() - started)
    })
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.on("exit", (code) => reject(new Error(`exited ${code} before listening:\n${output}`)))
  })
  const health = await fetch(`http://127.0.0.1:${port}/api/health`)
  if (health.status !== 200) throw new Error(`health answered ${health.status}`)
  await new Promise<void>((resolve) => {
    child.removeAllListeners("exit")
    child.on("exit", () => resolve())
    child.kill("SIGTERM")
  })
  return ms
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const dirs: Array<string> = []
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "herald-startup-"))
  dirs.push(dir)
  return dir
}

try {
  if (cold) {
    rmSync(pgliteSnapshotFile, { force: true })
    console.log(`first start on this machine (no initdb snapshot): ${seconds(await startOnce(fresh()))}`)
  }
  const freshTimes: Array<number> = []
  for (let i = 0; i < runs; i++) freshTimes.push(await startOnce(fresh()))
  const dataDir = dirs[dirs.length - 1]
  const restartTimes: Array<number> = []
  for (let i = 0; i < runs; i++) restartTimes.push(await startOnce(dataDir))
  console.log(
    `fresh (empty DATA_DIR):   median ${seconds(median(freshTimes))} of ${runs} [${
      freshTimes.map(seconds).join(", ")
    }]  target < 4 s`
  )
  console.log(
    `restart (same DATA_DIR):  median ${seconds(median(restartTimes))} of ${runs} [${
      restartTimes.map(seconds).join(", ")
    }]  target < 2 s`
  )
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
}
