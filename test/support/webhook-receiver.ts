import { Effect } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"

/**
 * Verification written here, independent of src/: the Standard Webhooks
 * reference library for `webhook-signature`, and a plain HMAC for the hex
 * signature header, so a signing bug in src/ cannot verify its own output.
 */
export const hexHmac = (secret: string, body: string): string =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("hex")

/** `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the base64-decoded part after `whsec_`. */
export const standardV1 = (secret: string, id: string, timestamp: string, body: string): string =>
  "v1," + createHmac("sha256", Buffer.from(secret.replace(/^whsec_/, ""), "base64"))
    .update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

export const verifyWithLibrary = (secret: string, body: string, headers: http.IncomingHttpHeaders): boolean => {
  try {
    new Webhook(secret).verify(body, {
      "webhook-id": String(headers["webhook-id"] ?? ""),
      "webhook-timestamp": String(headers["webhook-timestamp"] ?? ""),
      "webhook-signature": String(headers["webhook-signature"] ?? "")
    })
    return true
  } catch {
    return false
  }
}

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
  /** 200 and then a body that never ends (64 KiB every 5 ms) until the client goes away. */
  | "endless"

/**
 * A real webhook endpoint: verifies both signatures with the secret it was
 * given (401 on mismatch, as a customer's receiver would), records every request,
 * and answers as `script` says (then 200 once the script is spent).
 */
export const startReceiver = Effect.acquireRelease(
  Effect.promise(async () => {
    const state = {
      secret: "",
      /** When false, answers as scripted whether or not the signatures verify (`verified` still says). */
      enforce: true,
      script: [] as Array<Behaviour>,
      received: [] as Array<Received>,
      /** Overrides the script when set: decides from the request and all requests so far. */
      decide: undefined as ((request: Received, all: ReadonlyArray<Received>) => Behaviour) | undefined,
      /** Requests being answered now, by webhook-id; `maxParallel` is the most ever seen for one id. */
      inFlight: new Map<string, number>(),
      maxParallel: 0,
      /** Requests being answered now (any webhook-id), and the most ever at once. */
      active: 0,
      maxActive: 0,
      /** The same per request path (query included): one path per subscription. */
      activeByPath: new Map<string, number>(),
      maxByPath: new Map<string, number>()
    }
    const hanging = new Set<http.ServerResponse>()
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        const header = (name: string) => req.headers[name] as string | undefined
        const verified = state.secret !== "" &&
          sameText(hexHmac(state.secret, body), header("x-service-signature") ?? "") &&
          verifyWithLibrary(state.secret, body, req.headers) &&
          (header("webhook-signature") ?? "").split(" ")[0] ===
            standardV1(state.secret, header("webhook-id") ?? "", header("webhook-timestamp") ?? "", body)
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
        if (next === "endless") {
          res.writeHead(200, { "content-type": "application/octet-stream" })
          const chunk = Buffer.alloc(64 * 1024, 120)
          const timer = setInterval(() => {
            if (res.destroyed || res.writableEnded) return clearInterval(timer)
            res.write(chunk)
          }, 5)
          res.on("close", () => clearInterval(timer))
          return void hanging.add(res)
        }
        const parallel = (state.inFlight.get(request.webhookId) ?? 0) + 1
        state.inFlight.set(request.webhookId, parallel)
        state.maxParallel = Math.max(state.maxParallel, parallel)
        state.active++
        state.maxActive = Math.max(state.maxActive, state.active)
        const path = req.url ?? ""
        const onPath = (state.activeByPath.get(path) ?? 0) + 1
        state.activeByPath.set(path, onPath)
        state.maxByPath.set(path, Math.max(state.maxByPath.get(path) ?? 0, onPath))
        setTimeout(() => {
          state.active--
          state.activeByPath.set(path, (state.activeByPath.get(path) ?? 1) - 1)
          state.inFlight.set(request.webhookId, (state.inFlight.get(request.webhookId) ?? 1) - 1)
          if (!verified && state.enforce) return res.writeHead(401).end("bad signature")
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
