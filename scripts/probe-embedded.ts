/**
 * Durability probe of the default install (embedded PGlite in DATA_DIR):
 *
 * - kill -9: four writers provision customers (each acknowledged 200 is a
 *   committed write); the process is killed with SIGKILL mid-load, restarted
 *   on the same DATA_DIR, and every acknowledged write is looked for. ROUNDS
 *   times; prints writes acknowledged, lost, and the restart time.
 * - SIGTERM: the same load, then SIGTERM; prints the time to exit, the exit
 *   code, whether every request sent before the signal was answered, and the
 *   acknowledged writes lost.
 * - throughput: acknowledged writes/s of the four writers with fsync (the
 *   default) and with PGLITE_UNSAFE_NO_FSYNC=true.
 *
 * Bounded: each load phase lasts LOAD_MS (default 2000), ROUNDS defaults to 5.
 *   npm run probe:embedded [-- ROUNDS=5 LOAD_MS=2000]
 */
import { PGlite } from "@electric-sql/pglite"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startService } from "./support/service-process.ts"

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`${name}=`))
  return found === undefined ? fallback : Number(found.slice(name.length + 1))
}
const rounds = arg("ROUNDS", 5)
const loadMs = arg("LOAD_MS", 2000)
const writers = 4
const secret = "probe-admin-secret"

/** The service on `dataDir` (embedded database), with admin provisioning open to the probe's writers. */
const start = (dataDir: string, extra: Record<string, string> = {}) =>
  startService({
    DATA_DIR: dataDir,
    LOG_LEVEL: "error",
    ADMIN_SECRET: secret,
    // Each writer's requests come from addresses of their own: the admin limit is not what is probed.
    TRUST_PROXY: "1",
    RATE_LIMIT_ADMIN_PER_MIN: "1000000",
    ...extra
  })

interface Load {
  readonly acknowledged: Array<string>
  sentBeforeStop: number
  answeredBeforeStop: number
  stopped: boolean
  readonly done: Promise<void>
}

/** Four writers provisioning customers until the server goes away (or `stopAfter` ms, then they stop by themselves). */
const load = (url: string, stopAfter?: number): Load => {
  const state: Load = {
    acknowledged: [],
    sentBeforeStop: 0,
    answeredBeforeStop: 0,
    stopped: false,
    done: Promise.resolve()
  }
  const deadline = stopAfter === undefined ? Infinity : performance.now() + stopAfter
  const writer = async (index: number) => {
    for (let n = 0; performance.now() < deadline; n++) {
      const email = `probe-${index}-${randomUUID()}@example.com`
      const before = !state.stopped
      if (before) state.sentBeforeStop++
      try {
        const res = await fetch(`${url}/api/admin/provision`, {
          method: "POST",
          headers: {
            "x-admin-secret": secret,
            "content-type": "application/json",
            "x-forwarded-for": `10.${index}.${(n >> 8) & 255}.${n & 255}`
          },
          body: JSON.stringify({ email })
        })
        await res.arrayBuffer()
        if (before) state.answeredBeforeStop++
        if (res.status === 200) state.acknowledged.push(email)
      } catch {
        return
      }
    }
  }
  ;(state as { done: Promise<void> }).done = Promise.all(Array.from({ length: writers }, (_, i) => writer(i))).then(
    () => undefined
  )
  return state
}

/** Acknowledged emails missing from the database in `dataDir` (opened once the server is gone). */
const lost = async (dataDir: string, acknowledged: ReadonlyArray<string>) => {
  const db = await PGlite.create(dataDir)
  try {
    const rows = await db.query<{ email: string }>("SELECT email FROM customers")
    const stored = new Set(rows.rows.map((r) => r.email))
    return acknowledged.filter((email) => !stored.has(email)).length
  } finally {
    await db.close()
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const throughput = async (label: string, extra: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "herald-probe-"))
  try {
    const server = await start(dataDir, extra)
    const run = load(server.url, loadMs)
    await run.done
    server.child.kill("SIGTERM")
    await server.exited
    const perSecond = run.acknowledged.length / (loadMs / 1000)
    console.log(`throughput ${label}: ${perSecond.toFixed(0)} acknowledged writes/s (${writers} writers, ${loadMs} ms)`)
    return perSecond
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const killProbe = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "herald-probe-"))
  let acknowledged = 0
  const restarts: Array<number> = []
  try {
    const all: Array<string> = []
    for (let round = 1; round <= rounds; round++) {
      const server = await start(dataDir)
      if (round > 1) restarts.push(server.startMs)
      const run = load(server.url)
      await sleep(loadMs)
      server.child.kill("SIGKILL")
      await server.exited
      await run.done
      all.push(...run.acknowledged)
      acknowledged += run.acknowledged.length
    }
    const lostWrites = await lost(dataDir, all)
    console.log(
      `kill -9: ${rounds} rounds, ${acknowledged} writes acknowledged, ${lostWrites} lost; ` +
        `restart after kill -9: median ${median(restarts).toFixed(0)} ms (max ${
          Math.max(0, ...restarts).toFixed(0)
        } ms)`
    )
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const termProbe = async () => {
  const exits: Array<number> = []
  let unanswered = 0
  let lostWrites = 0
  let acknowledged = 0
  const codes = new Set<string>()
  for (let round = 1; round <= rounds; round++) {
    const dataDir = mkdtempSync(join(tmpdir(), "herald-probe-"))
    try {
      const server = await start(dataDir)
      const run = load(server.url)
      await sleep(loadMs)
      run.stopped = true
      const signalled = performance.now()
      server.child.kill("SIGTERM")
      const exit = await server.exited
      exits.push(performance.now() - signalled)
      codes.add(exit.signal ?? String(exit.code))
      await run.done
      unanswered += run.sentBeforeStop - run.answeredBeforeStop
      acknowledged += run.acknowledged.length
      lostWrites += await lost(dataDir, run.acknowledged)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
  console.log(
    `SIGTERM under load: ${rounds} rounds, exit in median ${median(exits).toFixed(0)} ms (max ${
      Math.max(...exits).toFixed(0)
    } ms), ` +
      `exit codes ${[...codes].join(",")}, ${unanswered} requests sent before the signal unanswered, ` +
      `${acknowledged} writes acknowledged, ${lostWrites} lost`
  )
}

const began = performance.now()
await throughput("fsync on (default)", {})
await throughput("PGLITE_UNSAFE_NO_FSYNC=true", { PGLITE_UNSAFE_NO_FSYNC: "true" })
await killProbe()
await termProbe()
console.log(`probe took ${((performance.now() - began) / 1000).toFixed(0)} s`)
