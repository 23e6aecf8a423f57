import { parentPort, workerData } from "node:worker_threads"
import { serveEmbedded } from "./Embedded.ts"

/**
 * The embedded database's thread: PGlite runs PostgreSQL compiled to
 * WebAssembly, and every statement it runs is synchronous CPU work. On the
 * service's own thread a slow statement stalled every request, health checks
 * included; here it only delays the statements queued behind it.
 *
 * Messages to the parent: `{ready, port}` once it serves, `{failed, message}`
 * when it could not start, `{stopped}` after a `"stop"` request.
 */
interface Start {
  readonly dataDir: string | undefined
  readonly durable: boolean
  readonly port: number
}

const start = workerData as Start
const port = parentPort!

serveEmbedded(start.dataDir, start.durable, start.port).then(
  ({ db, server, port: bound }) => {
    port.postMessage({ ready: true, port: bound })
    port.on("message", (message) => {
      if (message !== "stop") return
      void server.stop().catch(() => undefined)
        .then(() => db.close().catch(() => undefined))
        .then(() => port.postMessage({ stopped: true }))
    })
  },
  (error: unknown) => {
    port.postMessage({ failed: true, message: error instanceof Error ? error.message : String(error) })
  }
)
