/**
 * A loopback proxy in front of PostgreSQL that counts the statements its
 * clients run, whatever their driver: simple queries ('Q') and executions of
 * prepared statements ('E') in the frontend protocol. Transaction control
 * (BEGIN, COMMIT) counts as statements, as PostgreSQL runs them as such.
 */
import { createConnection, createServer, type Socket } from "node:net"

export interface StatementCounter {
  readonly port: number
  readonly statements: () => number
  /** Statements run since the last reset, by their text (whitespace folded). */
  readonly byText: () => ReadonlyMap<string, number>
  readonly reset: () => void
  readonly close: () => Promise<void>
}

// Protocol codes of the untyped packets a session may send before its startup message.
const sslRequest = 80877103
const gssEncRequest = 80877104

export const startStatementCounter = async (targetHost: string, targetPort: number): Promise<StatementCounter> => {
  let count = 0
  let texts = new Map<string, number>()
  const tally = (text: string) => {
    count++
    const key = text.replace(/\s+/g, " ").trim()
    texts.set(key, (texts.get(key) ?? 0) + 1)
  }
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = createConnection({ host: targetHost, port: targetPort })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => socket.destroy())
    }
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
    upstream.pipe(client)
    let started = false
    // Prepared statements by name, and portals by the statement they bind.
    const prepared = new Map<string, string>()
    const portals = new Map<string, string>()
    const cString = (buffer: Buffer, from: number) => {
      const end = buffer.indexOf(0, from)
      return { text: buffer.toString("utf8", from, end), next: end + 1 }
    }
    let pending: Buffer = Buffer.alloc(0)
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk)
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      let at = 0
      while (true) {
        if (!started) {
          if (pending.length - at < 8) break
          const length = pending.readInt32BE(at)
          if (pending.length - at < length) break
          const code = pending.readInt32BE(at + 4)
          if (code !== sslRequest && code !== gssEncRequest) started = true
          at += length
          continue
        }
        if (pending.length - at < 5) break
        const length = pending.readInt32BE(at + 1)
        if (pending.length - at < 1 + length) break
        const type = pending[at]
        if (type === 0x51) tally(cString(pending, at + 5).text)
        else if (type === 0x50) {
          const name = cString(pending, at + 5)
          prepared.set(name.text, cString(pending, name.next).text)
        } else if (type === 0x42) {
          const portal = cString(pending, at + 5)
          portals.set(portal.text, prepared.get(cString(pending, portal.next).text) ?? "?")
        } else if (type === 0x45) tally(portals.get(cString(pending, at + 5).text) ?? "?")
        at += 1 + length
      }
      pending = pending.subarray(at)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const address = server.address()
  return {
    port: typeof address === "object" && address !== null ? address.port : 0,
    statements: () => count,
    byText: () => texts,
    reset: () => {
      count = 0
      texts = new Map()
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
