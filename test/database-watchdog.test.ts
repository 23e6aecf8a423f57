import { createServer, type Server, type Socket } from "node:net"
import type { Duplex } from "node:stream"
import { afterEach, assert, describe, it } from "vitest"
import { watchedSocket } from "../src/platform/Database.ts"

/**
 * The database connection's watchdog against a fake server that speaks just
 * enough of PostgreSQL's framing: what it answers, and how it splits the
 * bytes, is up to each test.
 */
const timeoutMs = 150

const message = (type: string, body: Uint8Array = new Uint8Array()) => {
  const out = Buffer.alloc(5 + body.length)
  out.write(type, 0, "latin1")
  out.writeInt32BE(4 + body.length, 1)
  out.set(body, 5)
  return out
}
const startup = () => {
  const params = Buffer.from("user\0postgres\0\0", "latin1")
  const out = Buffer.alloc(8 + params.length)
  out.writeInt32BE(out.length, 0)
  out.writeInt32BE(196608, 4)
  out.set(params, 8)
  return out
}
const sync = () => message("S")
const ready = () => message("Z", Buffer.from("I"))
const authenticated = () => Buffer.concat([message("R", Buffer.alloc(4)), ready()])
const completed = () => Buffer.concat([message("C", Buffer.from("SELECT 1\0")), ready()])
const row = () => message("D", Buffer.from([0, 1, 0, 0, 0, 1, 0x31]))

const servers: Array<Server> = []
const sockets: Array<Duplex> = []
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy()
  for (const server of servers.splice(0)) server.close()
})

/** A connected watched socket and the server side of it, past the start-up. */
const connected = async () => {
  const server = createServer()
  servers.push(server)
  const peer = new Promise<Socket>((resolve) => server.once("connection", resolve))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  const client = watchedSocket("127.0.0.1", port, timeoutMs)()
  sockets.push(client)
  const serverSide = await peer
  const closed = new Promise<string>((resolve) => client.once("close", () => resolve("closed")))
  client.on("error", () => undefined)
  const received = (bytes: number) =>
    new Promise<void>((resolve) => {
      let seen = 0
      const onData = (chunk: Buffer) => {
        seen += chunk.length
        if (seen < bytes) return
        serverSide.off("data", onData)
        resolve()
      }
      serverSide.on("data", onData)
    })
  const arrived = new Promise<void>((resolve) => client.once("data", () => resolve()))
  const started = startup()
  const got = received(started.length)
  client.write(started)
  await got
  serverSide.write(authenticated())
  await arrived
  return { client, serverSide, closed, received }
}

/** Whether the client side was closed within `ms`. */
const closedWithin = (closed: Promise<string>, ms: number) =>
  Promise.race([closed, new Promise<string>((resolve) => setTimeout(() => resolve("open"), ms))])

describe("database watchdog", () => {
  it("leaves an idle connection open once the start-up is answered", async () => {
    const { closed } = await connected()
    assert.strictEqual(await closedWithin(closed, timeoutMs * 3), "open")
  })

  it("drops the connection when the second of two pipelined statements gets no answer", async () => {
    const { client, closed, received, serverSide } = await connected()
    const got = received(10)
    client.write(Buffer.concat([sync(), sync()]))
    await got
    // The first answer ends exactly at its ReadyForQuery; the second never starts.
    serverSide.write(completed())
    assert.strictEqual(await closedWithin(closed, timeoutMs * 4), "closed")
  })

  it("keeps it while every pipelined statement is answered, however the bytes are split", async () => {
    const { client, closed, received, serverSide } = await connected()
    const got = received(15)
    client.write(Buffer.concat([sync(), sync(), sync()]))
    await got
    const answers = Buffer.concat([completed(), completed(), completed()])
    for (const byte of answers) {
      serverSide.write(Buffer.from([byte]))
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    assert.strictEqual(await closedWithin(closed, timeoutMs * 3), "open")
  })

  it("gives the next statement its own wait once the one ahead of it is answered", async () => {
    const { client, closed, received, serverSide } = await connected()
    const got = received(10)
    client.write(Buffer.concat([sync(), sync()]))
    await got
    // The first answer comes late but within the deadline, so the second's wait starts from it.
    await new Promise((resolve) => setTimeout(resolve, timeoutMs * 0.7))
    serverSide.write(completed())
    await new Promise((resolve) => setTimeout(resolve, timeoutMs * 0.7))
    serverSide.write(completed())
    assert.strictEqual(await closedWithin(closed, timeoutMs * 3), "open")
  })

  it("does not cut a statement whose answer has begun (rows its reader holds back)", async () => {
    const { client, closed, received, serverSide } = await connected()
    const got = received(5)
    client.write(sync())
    await got
    serverSide.write(row())
    assert.strictEqual(await closedWithin(closed, timeoutMs * 3), "open")
  })

  it("counts a statement written behind one that is answering from that answer's end", async () => {
    const { client, closed, received, serverSide } = await connected()
    const first = received(5)
    client.write(sync())
    await first
    serverSide.write(row())
    await new Promise((resolve) => setTimeout(resolve, 20))
    const second = received(5)
    client.write(sync())
    await second
    // The first ends; nothing ever comes for the second.
    serverSide.write(completed())
    assert.strictEqual(await closedWithin(closed, timeoutMs * 4), "closed")
  })
})
