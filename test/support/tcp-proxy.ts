import { Effect } from "effect"
import { createConnection, createServer, type Server, type Socket } from "node:net"

/**
 * A TCP proxy on a loopback port in front of a database, for tests that take
 * the database away and give it back while the app keeps running.
 */
export interface TcpProxy {
  readonly port: number
  /** Destroys every open connection and closes each new one at once (the port stays taken). */
  readonly cut: () => Promise<void>
  /** Stops listening for good. */
  readonly close: () => Promise<void>
  /**
   * A network partition: connections stay open (and new ones are accepted)
   * but nothing is forwarded either way, so the database simply stops answering.
   */
  readonly stall: () => void
  /** Forwards as before (after `cut` or `stall`). */
  readonly restore: () => Promise<void>
  /** Connections currently piped through. */
  readonly openConnections: () => number
}

const listen = (server: Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject)
      const address = server.address()
      resolve(typeof address === "object" && address !== null ? address.port : port)
    })
  })

export const startTcpProxy = async (targetHost: string, targetPort: number): Promise<TcpProxy> => {
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => socket.destroy())
  }
  let stalled = false
  // A cut keeps the port: were it closed, another test's listener could take the freed port and the app
  // would reach a database that is not its own. Connections are refused by closing them at once instead.
  let refusing = false
  const makeServer = () =>
    createServer((client) => {
      if (refusing) {
        client.destroy()
        return
      }
      if (stalled) {
        track(client)
        return
      }
      const upstream = createConnection({ host: targetHost, port: targetPort })
      track(client)
      track(upstream)
      client.on("close", () => upstream.destroy())
      upstream.on("close", () => client.destroy())
      client.pipe(upstream)
      upstream.pipe(client)
    })

  const server = makeServer()
  const port = await listen(server, 0)

  const dropAll = () => {
    for (const socket of sockets) socket.destroy()
    sockets.clear()
  }
  const cut = async () => {
    refusing = true
    dropAll()
  }
  const close = async () => {
    refusing = true
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    dropAll()
    await closed
  }
  const stall = () => {
    stalled = true
    for (const socket of sockets) {
      socket.unpipe()
      socket.pause()
    }
  }
  const restore = async () => {
    // What was in flight while stalled is lost, as after a real partition.
    if (stalled) dropAll()
    stalled = false
    refusing = false
  }
  return { port, cut, stall, restore, close, openConnections: () => sockets.size / 2 }
}

/** The proxy as a scoped resource: cut for good when the scope closes. */
export const tcpProxy = (targetHost: string, targetPort: number) =>
  Effect.acquireRelease(
    Effect.promise(() => startTcpProxy(targetHost, targetPort)),
    (proxy) => Effect.promise(() => proxy.close().catch(() => undefined))
  )
