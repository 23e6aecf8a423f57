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
/** The current fill as hex digits, 32 per id. */
let digits = ""
let nextId = idsPerFill

/**
 * `req_` + 32 hex digits (128 random bits). The random bytes are drawn 4 KiB
 * at a time and turned into hex in one call, and each id is `req_` before a
 * slice of that text: one call into Node per 256 ids rather than one per id.
 */
const freshRequestId = () => {
  if (nextId === idsPerFill) {
    randomFillSync(entropy)
    digits = entropy.toString("hex")
    nextId = 0
  }
  const start = 32 * nextId++
  return "req_" + digits.slice(start, start + 32)
}

/**
 * The current request's state. Route-level code cannot name CurrentRequest as
 * a requirement (the router only provides its own services), so it is read
 * optionally; outside a request a throwaway state is returned.
 */
export const currentRequest: Effect.Effect<RequestState> = Effect.map(
  Effect.serviceOption(CurrentRequest),
  (state) => state._tag === "Some" ? state.value : throwawayState()
)

/** The request's state in a context already read (a throwaway outside a request), as `currentRequest` answers it. */
export const requestStateIn = (context: Context.Context<never>): RequestState =>
  Context.getOrUndefined(context, CurrentRequest) ?? throwawayState()

const throwawayState = (): RequestState => ({
  requestId: pickRequestId(undefined),
  clientIp: "unknown",
  responseHeaders: {}
})

export const addResponseHeaders = (headers: Record<string, string>) =>
  Effect.serviceOption(CurrentRequest).pipe(
    Effect.map((state) => {
      if (state._tag === "Some") Object.assign(state.value.responseHeaders, headers)
    })
  )
