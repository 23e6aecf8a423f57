import { Effect, Latch, Stream } from "effect"
import { Cookies, type HttpServerResponse } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"

/**
 * Writes an answer to Node's response: one `writeHead` and one `end` for
 * every answer held in memory (all of Herald's but the event streams), so a
 * small JSON answer leaves in a single socket write. Streams are written
 * chunk by chunk, waiting for the socket to drain.
 *
 * `head` holds the head's headers as Node's flat list (name, value, name,
 * value…), each name once but `set-cookie`: Node writes such a list as it
 * is, where a record costs an enumeration and a lookup per field.
 *
 * Fails only with defects (a header Node rejects, a stream that breaks
 * midway); the server then ends or destroys the response.
 */
export const writeResponse = (
  method: string,
  response: HttpServerResponse.HttpServerResponse,
  node: ServerResponse,
  head: Array<string>
): Effect.Effect<void> => {
  if (node.writableEnded || node.destroyed) return cancelBody(response.body)
  const headers = headersOf(response, head)
  const status = response.status
  if (method === "HEAD" || status === 204 || status === 205 || status === 304) {
    writeHead(node, status, response.statusText, headers, false)
    node.end()
    return cancelBody(response.body)
  }
  const body = response.body
  switch (body._tag) {
    case "Empty": {
      writeHead(node, status, response.statusText, headers, false)
      node.end()
      return Effect.void
    }
    case "Uint8Array": {
      writeHead(node, status, response.statusText, headers, false)
      // Text is written as text: Node then sends the head and the body in one write.
      node.end(body.text ?? body.body)
      return Effect.void
    }
    case "Raw": {
      const raw = body.body
      if (raw instanceof Readable) {
        writeHead(node, status, response.statusText, headers, true)
        return Effect.orDie(Effect.tryPromise((signal) => pipeline(raw, node, { signal })))
      }
      writeHead(node, status, response.statusText, headers, false)
      node.end(raw as string | Uint8Array | undefined)
      return Effect.void
    }
    case "FormData":
      return Effect.die(new Error("form-data answers are not sent"))
    case "Stream": {
      writeHead(node, status, response.statusText, headers, true)
      const drained = Latch.makeUnsafe()
      node.on("drain", () => drained.openUnsafe())
      return body.stream.pipe(
        Stream.orDie,
        Stream.runForEachArray((chunks) => {
          const chunk = chunks.length > 1 ? Buffer.concat(chunks) : chunks[0]
          if (node.write(chunk)) return Effect.void
          drained.closeUnsafe()
          return drained.await
        }),
        Effect.interruptible,
        Effect.andThen(Effect.sync(() => node.end()))
      )
    }
  }
}

/** The head's headers as Node takes them: without a length on 204 and 205, with the answer's cookies. */
const headersOf = (response: HttpServerResponse.HttpServerResponse, head: Array<string>): Array<string> => {
  let headers = head
  if (response.status === 204 || response.status === 205) {
    headers = []
    for (let i = 0; i < head.length; i += 2) {
      if (head[i] !== "content-length") headers.push(head[i]!, head[i + 1]!)
    }
  }
  if (!Cookies.isEmpty(response.cookies)) {
    for (const cookie of Cookies.toSetCookieHeaders(response.cookies)) headers.push("set-cookie", cookie)
  }
  return headers
}

const writeHead = (
  node: ServerResponse,
  status: number,
  statusText: string | undefined,
  headers: Array<string>,
  streaming: boolean
) => {
  if (status < 200 || status > 599) throw new RangeError(`Invalid final response status: ${status}`)
  if (closesConnection(node.req, streaming)) headers.push("connection", "close")
  node.writeHead(status, statusText, headers)
}

const cancelBody = (body: HttpServerResponse.HttpServerResponse["body"]): Effect.Effect<void> => {
  const raw = body._tag === "Raw" ? body.body : undefined
  return raw instanceof Readable ? Effect.sync(() => raw.destroy()) : Effect.void
}

/**
 * An answer that cannot be written (a defect while writing): a response whose
 * head is out is cut off, so a partial body never looks complete; otherwise a
 * plain 500 goes out. The defect is the caller's to report.
 */
export const abandonResponse = (node: ServerResponse): void => {
  if (node.writableEnded) return
  if (node.headersSent) {
    node.destroy()
    return
  }
  try {
    node.writeHead(500, { "content-length": "0" })
    node.end()
  } catch {
    node.destroy()
  }
}

/** An unread request body past this is not drained after the answer: the connection closes instead. */
const maxDrainBytes = 256 * 1024

/** Time a client gets to read an answer after the FIN, before the socket is destroyed. */
const closeGraceMs = 500

/**
 * Whether the answer must close the connection, decided while `Connection:
 * close` can still be sent: an unread body too large to drain (a streamed
 * answer may still read it).
 */
const closesConnection = (request: IncomingMessage, streaming: boolean): boolean => {
  if (request.complete || streaming) return false
  const length = request.headers["content-length"]
  return length !== undefined && Number(length) > maxDrainBytes
}

/**
 * After the answer, an unread request body is drained (up to `maxDrainBytes`)
 * so the connection can carry the next request, or the socket is ended with a
 * grace period: destroying it while body bytes are still arriving would reset
 * the connection and could lose the answer already sent.
 */
export const teardownBody = (request: IncomingMessage, response: ServerResponse): void => {
  if (request.complete || request.destroyed) return
  const socket = request.socket
  if ((response as unknown as { _last: boolean })._last) {
    // Keeps Node's own `finish` listener from dumping the body while the socket closes.
    ;(request as unknown as { _consuming: boolean })._consuming = true
    ;(response as unknown as { _last: boolean })._last = false
    closeSocket(socket)
    return
  }
  let bytes = 0
  request.on("data", (chunk: Buffer) => {
    bytes += chunk.length
    if (bytes > maxDrainBytes) {
      request.pause()
      closeSocket(socket)
    }
  })
  request.resume()
}

const closeSocket = (socket: Socket): void => {
  if (socket.destroyed) return
  socket.end()
  const timer = setTimeout(() => socket.destroy(), closeGraceMs)
  socket.once("close", () => clearTimeout(timer))
}
