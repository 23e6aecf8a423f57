import { Context, Effect } from "effect"
import { randomFillSync } from "node:crypto"

/**
 * Per-request state shared by the cross-cutting middleware and anything deeper
 * (security, rate limits): the request id, the client address and headers to
 * add to whatever response is finally sent, error responses included.
 */
export interface RequestState {
  readonly requestId: string
  readonly clientIp: string
  readonly responseHeaders: Record<string, string>
}

export class CurrentRequest
  extends Context.Service<CurrentRequest, RequestState>()("herald/platform/http/CurrentRequest")
{}

const validRequestId = /^[A-Za-z0-9._-]{8,128}$/

/** Echo a well-formed incoming id so callers can correlate; otherwise mint one. */
export const pickRequestId = (incoming: string | undefined): string =>
  incoming !== undefined && validRequestId.test(incoming) ? incoming : freshRequestId()

/** Ids made from one fill of random bytes: 16 bytes each. */
const idsPerFill = 256
const entropy = Buffer.alloc(16 * idsPerFill)
/** The ids of the current fill as text, `req_` and 32 hex digits each, end to end. */
const spelled = Buffer.alloc(36 * idsPerFill)
for (let i = 0; i < idsPerFill; i++) spelled.write("req_", 36 * i, "latin1")
const hexDigits = Buffer.from("0123456789abcdef", "latin1")
let nextId = idsPerFill

/**
 * `req_` + 32 hex digits (128 random bits). The random bytes are drawn 4 KiB
 * at a time and spelled out in one pass, and each id is one slice of that
 * text: a flat string made in one step, where joining pieces per request made
 * a string that Node flattened again when it wrote the header.
 */
const freshRequestId = () => {
  if (nextId === idsPerFill) {
    randomFillSync(entropy)
    for (let i = 0; i < entropy.length; i++) {
      const at = 36 * (i >> 4) + 4 + 2 * (i & 15)
      spelled[at] = hexDigits[entropy[i]! >> 4]!
      spelled[at + 1] = hexDigits[entropy[i]! & 15]!
    }
    nextId = 0
  }
  const start = 36 * nextId++
  return spelled.toString("latin1", start, start + 36)
}

/**
 * The current request's state. Route-level code cannot name CurrentRequest as
 * a requirement (the router only provides its own services), so it is read
 * optionally; outside a request a throwaway state is returned.
 */
export const currentRequest: Effect.Effect<RequestState> = Effect.map(
  Effect.serviceOption(CurrentRequest),
  (state) =>
    state._tag === "Some"
      ? state.value
      : { requestId: pickRequestId(undefined), clientIp: "unknown", responseHeaders: {} }
)

export const addResponseHeaders = (headers: Record<string, string>) =>
  Effect.serviceOption(CurrentRequest).pipe(
    Effect.map((state) => {
      if (state._tag === "Some") Object.assign(state.value.responseHeaders, headers)
    })
  )
