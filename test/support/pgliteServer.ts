/**
 * One in-memory PGlite served on a loopback port to many connections, for
 * tests that run several server processes on one database.
 *
 * PGlite is a single backend session. `@electric-sql/pglite-socket` queues
 * the connections' messages one by one, so the Parse/Bind/Execute/Sync of two
 * connections interleave and one connection's Execute runs (or misses, "portal
 * does not exist") another's portal. Here a connection's messages go to PGlite
 * a whole cycle at a time (up to its Sync or simple Query), and while a cycle
 * leaves the session in a transaction, or mid-cycle after a Flush, only that
 * connection's cycles run, as on a real server where the others would each
 * have a session of their own.
 */
import type { PGlite } from "@electric-sql/pglite"
import { createServer, type Server, type Socket } from "node:net"

const sslRequestCode = 80877103
const gssEncRequestCode = 80877104
const cancelRequestCode = 80877102

interface Cycle {
  readonly connection: Connection
  readonly bytes: Uint8Array
  /** Ends without a Sync (a Flush): the backend holds this connection's unnamed portal. */
  readonly open: boolean
  /** Puts the session back after its connection went away mid-transaction or mid-cycle. */
  readonly cleanup: boolean
}

interface Connection {
  readonly socket: Socket
  closed: boolean
}

const simpleQuery = (text: string): Buffer => {
  const body = Buffer.from(`${text}\0`)
  const header = Buffer.alloc(5)
  header.write("Q")
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}

const sync = Buffer.from([0x53, 0, 0, 0, 4])

export interface PgliteServer {
  readonly url: string
  readonly close: () => Promise<void>
}

export const servePglite = async (db: PGlite): Promise<PgliteServer> => {
  const queue: Array<Cycle> = []
  let owner: Connection | undefined
  let pumping = false

  const pump = async () => {
    if (pumping) return
    pumping = true
    try {
      for (;;) {
        const index = owner === undefined ? 0 : queue.findIndex((cycle) => cycle.connection === owner)
        if (queue.length === 0 || index === -1) break
        const [cycle] = queue.splice(index, 1)
        if (cycle.connection.closed && !cycle.cleanup) continue
        try {
          await db.runExclusive(() =>
            db.execProtocolRawStream(cycle.bytes, {
              onRawData: (data) => {
                if (!cycle.connection.closed) cycle.connection.socket.write(data)
              }
            })
          )
        } catch (error) {
          cycle.connection.socket.destroy(error instanceof Error ? error : new Error(String(error)))
        }
        owner = !cycle.cleanup && (cycle.open || db.isInTransaction()) ? cycle.connection : undefined
      }
    } finally {
      pumping = false
    }
  }

  const submit = (cycle: Cycle) => {
    queue.push(cycle)
    void pump()
  }

  const sockets = new Set<Socket>()

  const serve = (socket: Socket) => {
    sockets.add(socket)
    socket.setNoDelay(true)
    const connection: Connection = { socket, closed: false }
    let buffer: Buffer = Buffer.alloc(0)
    let started = false
    let pending: Array<Buffer> = []

    const close = () => {
      if (connection.closed) return
      connection.closed = true
      for (let index = queue.length - 1; index >= 0; index--) {
        if (queue[index].connection === connection) queue.splice(index, 1)
      }
      if (owner === connection) {
        queue.unshift({ connection, bytes: Buffer.concat([sync, simpleQuery("ROLLBACK")]), open: false, cleanup: true })
        void pump()
      }
    }
    socket.on("close", () => {
      sockets.delete(socket)
      close()
    })
    socket.on("error", () => socket.destroy())

    socket.on("data", (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return
          const length = buffer.readInt32BE(0)
          const code = buffer.readInt32BE(4)
          if (buffer.length < length) return
          const message = buffer.subarray(0, length)
          buffer = buffer.subarray(length)
          if (code === sslRequestCode || code === gssEncRequestCode) {
            socket.write("N")
            continue
          }
          if (code === cancelRequestCode) return void socket.destroy()
          started = true
          submit({ connection, bytes: Buffer.from(message), open: false, cleanup: false })
          continue
        }
        if (buffer.length < 5) return
        const length = 1 + buffer.readInt32BE(1)
        if (buffer.length < length) return
        const type = String.fromCharCode(buffer[0])
        const message = buffer.subarray(0, length)
        buffer = buffer.subarray(length)
        if (type === "X") return void socket.end()
        pending.push(Buffer.from(message))
        if (type === "S" || type === "Q" || type === "H") {
          submit({ connection, bytes: Buffer.concat(pending), open: type === "H", cleanup: false })
          pending = []
        }
      }
    })
  }

  const server: Server = createServer(serve)
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("PGlite server has no TCP address")
  return {
    url: `postgres://postgres@127.0.0.1:${address.port}/postgres`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
