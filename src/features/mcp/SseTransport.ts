import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"

/**
 * The 2024-11-05 HTTP+SSE transport for one session, written against the
 * SDK's Transport interface so that the stream is an Effect response: the
 * core middleware then logs its real status and keeps X-Request-ID and the
 * rate-limit headers, and the client going away interrupts the stream and
 * closes the session. `emit` writes one SSE frame; `end` ends the stream.
 */
export class SseSessionTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined
  private closed = false
  readonly sessionId: string
  private readonly endpoint: string
  private readonly emit: (frame: string) => void
  private readonly end: () => void

  constructor(sessionId: string, endpoint: string, emit: (frame: string) => void, end: () => void) {
    this.sessionId = sessionId
    this.endpoint = endpoint
    this.emit = emit
    this.end = end
  }

  start(): Promise<void> {
    this.emit(`event: endpoint\ndata: ${this.endpoint}\n\n`)
    return Promise.resolve()
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error("Not connected"))
    this.emit(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
    return Promise.resolve()
  }

  /** A POSTed message: false when it is not a JSON-RPC message. */
  receive(body: unknown): boolean {
    const parsed = JSONRPCMessageSchema.safeParse(body)
    if (!parsed.success) return false
    this.onmessage?.(parsed.data)
    return true
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.closed = true
    this.end()
    this.onclose?.()
    return Promise.resolve()
  }
}
