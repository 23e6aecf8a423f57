import { Effect } from "effect"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { verifyServiceSignature, verifyStandardSignature } from "../../src/domain/WebhookSignature.ts"

export interface Received {
  readonly webhookId: string
  readonly timestamp: number
  readonly body: string
  readonly json: any
  readonly headers: http.IncomingHttpHeaders
  readonly verified: boolean
  readonly at: number
}

/** What the receiver does with the next request: answer with a status, drop the connection, or never answer. */
export type Behaviour =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly delayMs?: number }
  | "drop"
  | "hang"

/**
 * A real webhook endpoint: verifies both signatures with the secret it was
 * given (401 on mismatch, as the spec's receiver does), records every request,
 * and answers as `script` says (then 200 once the script is spent).
 */
export const startReceiver = Effect.acquireRelease(
  Effect.promise(async () => {
    const state = {
      secret: "",
      script: [] as Array<Behaviour>,
      received: [] as Array<Received>,
      /** Overrides the script when set: decides from the request and all requests so far. */
      decide: undefined as ((request: Received, all: ReadonlyArray<Received>) => Behaviour) | undefined,
      /** Requests being answered now, by webhook-id; `maxParallel` is the most ever seen for one id. */
      inFlight: new Map<string, number>(),
      maxParallel: 0
    }
    const hanging = new Set<http.ServerResponse>()
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        const header = (name: string) => req.headers[name] as string | undefined
        const verified = verifyServiceSignature(state.secret, body, header("x-service-signature")) &&
          verifyStandardSignature({
            secret: state.secret,
            id: header("webhook-id"),
            timestamp: header("webhook-timestamp"),
            signature: header("webhook-signature"),
            body,
            nowSeconds: Math.floor(Date.now() / 1000)
          })
        let json: unknown
        try {
          json = JSON.parse(body)
        } catch {
          json = undefined
        }
        const request: Received = {
          webhookId: header("webhook-id") ?? "",
          timestamp: Number(header("webhook-timestamp")),
          body,
          json,
          headers: req.headers,
          verified,
          at: Date.now()
        }
        state.received.push(request)
        const next = state.decide?.(request, state.received) ?? state.script.shift() ?? { status: 200 }
        if (next === "drop") return req.socket.destroy()
        if (next === "hang") return void hanging.add(res)
        const parallel = (state.inFlight.get(request.webhookId) ?? 0) + 1
        state.inFlight.set(request.webhookId, parallel)
        state.maxParallel = Math.max(state.maxParallel, parallel)
        setTimeout(() => {
          state.inFlight.set(request.webhookId, (state.inFlight.get(request.webhookId) ?? 1) - 1)
          if (!verified) return res.writeHead(401).end("bad signature")
          res.writeHead(next.status, next.headers).end("ok")
        }, next.delayMs ?? 0)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    return { url, state, server, hanging }
  }),
  ({ hanging, server }) =>
    Effect.promise(() => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    })
)

/** Polls until `predicate` holds on the received requests, or fails after `timeoutMs`. */
export const waitFor = (
  received: ReadonlyArray<Received>,
  predicate: (received: ReadonlyArray<Received>) => boolean,
  timeoutMs = 10_000
) =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMs
    while (!predicate(received)) {
      if (Date.now() > deadline) throw new Error(`timed out; received ${received.length} requests`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })
