import { Context, Effect } from "effect"
import { randomUUID } from "node:crypto"

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

/** `req_` + 32 hex digits: a v4 UUID without its dashes (at fixed places, so sliced out). */
const freshRequestId = () => {
  const u = randomUUID()
  return `req_${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}`
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
