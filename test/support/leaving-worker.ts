import { closeSync, existsSync, openSync, writeFileSync } from "node:fs"

/**
 * Page pool workers for the test of a worker that goes while idle: the
 * first one started (it takes the marker file in LEAVING_WORKER_DIR) waits
 * until another worker is ready, says it is ready too, then closes its
 * channel and lingers without exiting, as a worker does between its channel
 * closing and its exit being seen. Every other worker is the pool's own.
 */
const dir = process.env["LEAVING_WORKER_DIR"]!

const takeMarker = () => {
  try {
    closeSync(openSync(`${dir}/leaver`, "wx"))
    return true
  } catch {
    return false
  }
}

if (takeMarker()) {
  while (!existsSync(`${dir}/other-ready`)) await new Promise((resolve) => setTimeout(resolve, 20))
  process.send!({ ready: true })
  await new Promise((resolve) => setTimeout(resolve, 300))
  process.disconnect()
  writeFileSync(`${dir}/left`, "")
  // Lingers until the pool, closing, kills it.
  setTimeout(() => undefined, 60_000)
} else {
  await import("../../src/platform/pageWorker.ts")
  writeFileSync(`${dir}/other-ready`, "")
}
