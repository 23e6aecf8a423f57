/**
 * A local server speaking the parts of Stripe's API that Herald's Stripe
 * mode calls through the official SDK: `POST /v1/checkout/sessions`
 * (form-encoded, bracketed keys), `GET /v1/checkout/sessions/{id}` and
 * `DELETE /v1/subscriptions/{id}` (cancel a subscription a completed session made), with
 * Bearer secret-key authentication and Stripe's error shape. `complete`
 * plays the customer finishing the hosted page.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

export interface FakeStripeSession {
  id: string
  object: "checkout.session"
  mode: string
  status: "open" | "complete" | "expired"
  payment_status: "unpaid" | "paid" | "no_payment_required"
  url: string | null
  client_reference_id: string | null
  customer: string | null
  customer_email: string | null
  subscription: string | null
  metadata: Record<string, string>
  success_url: string
  cancel_url: string | null
  created: number
  livemode: false
}

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly authorization: string | undefined
  readonly idempotencyKey: string | undefined
  readonly contentType: string | undefined
  readonly form: Record<string, string>
}

export interface FakeStripe {
  readonly url: string
  readonly sessions: Map<string, FakeStripeSession>
  readonly requests: Array<RecordedRequest>
  readonly complete: (id: string) => FakeStripeSession
  /** Subscriptions cancelled through the API, by id. */
  readonly cancelled: Set<string>
  /** While set, every call answers 500 (the SDK retries, then gives up). */
  down: boolean
  readonly close: () => Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

const error = (res: ServerResponse, status: number, type: string, message: string, param?: string) => {
  res.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomBytes(6).toString("hex")}` })
  res.end(JSON.stringify({ error: { type, message, ...(param === undefined ? {} : { param }) } }))
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { "content-type": "application/json", "request-id": `req_${randomBytes(6).toString("hex")}` })
  res.end(JSON.stringify(body))
}

export const startFakeStripe = (secretKey: string, priceId: string): Promise<FakeStripe> =>
  new Promise((resolve) => {
    const sessions = new Map<string, FakeStripeSession>()
    const requests: Array<RecordedRequest> = []
    const byIdempotencyKey = new Map<string, FakeStripeSession>()
    const cancelled = new Set<string>()
    const state = { down: false }

    const server = createServer(async (req, res) => {
      const body = await readBody(req)
      const path = (req.url ?? "/").split("?")[0]
      const form = Object.fromEntries(new URLSearchParams(body))
      requests.push({
        method: req.method ?? "",
        path,
        authorization: req.headers.authorization,
        idempotencyKey: req.headers["idempotency-key"] as string | undefined,
        contentType: req.headers["content-type"],
        form
      })
      if (state.down) return error(res, 500, "api_error", "Something went wrong on Stripe's end.")
      if (req.headers.authorization !== `Bearer ${secretKey}`) {
        return error(res, 401, "invalid_request_error", "Invalid API Key provided")
      }
      if (req.method === "POST" && path === "/v1/checkout/sessions") {
        const key = req.headers["idempotency-key"] as string | undefined
        if (key !== undefined && byIdempotencyKey.has(key)) return json(res, byIdempotencyKey.get(key))
        if (form.mode !== "subscription") return error(res, 400, "invalid_request_error", "Missing mode", "mode")
        if (form["line_items[0][price]"] !== priceId) {
          return error(
            res,
            400,
            "invalid_request_error",
            `No such price: '${form["line_items[0][price]"]}'`,
            "line_items[0][price]"
          )
        }
        if (form.success_url === undefined) {
          return error(res, 400, "invalid_request_error", "Missing success_url", "success_url")
        }
        const id = `cs_test_${randomBytes(12).toString("hex")}`
        const metadata: Record<string, string> = {}
        for (const [name, value] of Object.entries(form)) {
          const match = /^metadata\[(.+)\]$/.exec(name)
          if (match !== null) {
            metadata[match[1]] = value
          }
        }
        const session: FakeStripeSession = {
          id,
          object: "checkout.session",
          mode: "subscription",
          status: "open",
          payment_status: "unpaid",
          url: `https://checkout.stripe.com/c/pay/${id}`,
          client_reference_id: form.client_reference_id ?? null,
          customer: null,
          customer_email: form.customer_email ?? null,
          subscription: null,
          metadata,
          success_url: form.success_url,
          cancel_url: form.cancel_url ?? null,
          created: Math.floor(Date.now() / 1000),
          livemode: false
        }
        sessions.set(id, session)
        if (key !== undefined) {
          byIdempotencyKey.set(key, session)
        }
        return json(res, session)
      }
      const retrieve = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path)
      if (req.method === "GET" && retrieve !== null) {
        const session = sessions.get(decodeURIComponent(retrieve[1]))
        if (session === undefined) {
          return error(res, 404, "invalid_request_error", `No such checkout.session: '${retrieve[1]}'`, "session")
        }
        return json(res, session)
      }
      const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)
      if (req.method === "DELETE" && subscription !== null) {
        const id = decodeURIComponent(subscription[1])
        if (![...sessions.values()].some((s) => s.subscription === id)) {
          return error(res, 404, "invalid_request_error", `No such subscription: '${id}'`, "id")
        }
        cancelled.add(id)
        return json(res, { id, object: "subscription", status: "canceled" })
      }
      return error(res, 404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${path}).`)
    })

    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const fake: FakeStripe = {
        url: `http://127.0.0.1:${port}`,
        sessions,
        requests,
        cancelled,
        complete: (id) => {
          const session = sessions.get(id)
          if (session === undefined) throw new Error(`no session ${id}`)
          session.status = "complete"
          session.payment_status = "no_payment_required"
          session.customer = `cus_${randomBytes(7).toString("hex")}`
          session.subscription = `sub_${randomBytes(7).toString("hex")}`
          session.url = null
          return session
        },
        get down() {
          return state.down
        },
        set down(value: boolean) {
          state.down = value
        },
        close: () => new Promise((done) => server.close(() => done()))
      }
      resolve(fake)
    })
  })
