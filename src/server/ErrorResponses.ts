import { Cause, Effect, SchemaIssue } from "effect"
import { Headers, HttpServerError, HttpServerResponse } from "effect/http"
import type { HttpServerResponse as Response } from "effect/http/HttpServerResponse"
import { HttpApiSchemaError } from "effect/http-api/HttpApiError"
import { isSqlError } from "effect/sql/SqlError"
import { statusCodes } from "../domain/Errors.ts"

export interface ErrorBody {
  readonly error: string
  readonly code: string
  readonly requestId: string
  readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }>
}

export const errorResponse = (
  status: number,
  body: ErrorBody,
  headers?: Record<string, string>
): Response => HttpServerResponse.jsonUnsafe(body, { status, headers })

const defaultsFor = (status: number): readonly [string, string] =>
  statusCodes[status] ?? (status >= 500 ? statusCodes[500] : ["E_HTTP_" + status, "Request failed"])

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const slotNames: Record<string, string> = {
  Params: "path",
  Query: "query",
  Headers: "header",
  Payload: "body"
}

/** A decode failure of the request as a 400 naming the offending fields. */
const validationBody = (error: HttpApiSchemaError, requestId: string): ErrorBody => {
  const issues = formatIssues(error.cause.issue).issues
  const first = issues[0]
  if (first !== undefined && first.message === "Expected a valid JSON body") {
    return { error: "Request body is not valid JSON", code: "E_MALFORMED_JSON", requestId }
  }
  const slot = slotNames[error.kind] ?? "request"
  const details = issues.map((issue) => ({
    path: [slot, ...(issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p))].join("."),
    message: issue.message
  }))
  const head = details[0]
  return {
    error: head === undefined ? "Invalid request" : `Invalid ${head.path}: ${head.message}`,
    code: "E_VALIDATION",
    requestId,
    details
  }
}

const isBodyTooLarge = (defect: unknown): boolean =>
  HttpServerError.isHttpServerError(defect) &&
  defect.reason._tag === "RequestParseError" &&
  defect.reason.reason === "BodyTooLarge"

/** The database could not be reached (refused, reset, timed out): a 503, not a bug. */
const isDatabaseUnreachable = (value: unknown): boolean =>
  isSqlError(value) && value.reason._tag === "ConnectionError"

/**
 * Turns a failure that escaped every handler into the Error shape. Returns the
 * response and whether the cause is a defect worth logging as one.
 */
export const causeToResponse = (
  cause: Cause.Cause<unknown>,
  requestId: string
): Effect.Effect<readonly [Response, boolean]> =>
  Effect.gen(function*() {
    for (const reason of cause.reasons) {
      const value = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
      if (value === undefined) continue
      if (HttpServerResponse.isHttpServerResponse(value)) return [value, false] as const
      if (HttpApiSchemaError.is(value) && value.kind !== "Body" && value.kind !== "ResponseHeaders") {
        return [errorResponse(400, validationBody(value, requestId)), false] as const
      }
      if (isBodyTooLarge(value)) {
        const [code, error] = defaultsFor(413)
        return [errorResponse(413, { error, code, requestId }), false] as const
      }
      if (isDatabaseUnreachable(value)) {
        const [code, error] = defaultsFor(503)
        return [errorResponse(503, { error, code, requestId }), true] as const
      }
      if (HttpServerError.isHttpServerError(value) && value.reason._tag === "RouteNotFound") {
        const [code, error] = defaultsFor(404)
        return [errorResponse(404, { error, code, requestId }), false] as const
      }
    }
    if (Cause.hasInterruptsOnly(cause)) {
      const [code, error] = defaultsFor(503)
      return [errorResponse(503, { error, code, requestId }), false] as const
    }
    const [code, error] = defaultsFor(500)
    return [errorResponse(500, { error, code, requestId }), true] as const
  })

const readJsonBody = (response: Response): unknown => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.includes("json")) return undefined
  try {
    return JSON.parse(body.text ?? new TextDecoder().decode(body.body))
  } catch {
    return undefined
  }
}

/**
 * Rewrites any 4xx/5xx the framework produced (encoded domain errors carry a
 * class tag; router and media-type failures carry no body) into the one Error
 * shape with the request id, keeping the status and headers.
 */
export const normalizeErrorResponse = (response: Response, requestId: string): Response => {
  if (response.status < 400) return response
  const json = readJsonBody(response) as Record<string, unknown> | undefined
  const [defaultCode, defaultError] = defaultsFor(response.status)
  if (json !== undefined && json.requestId === requestId && !("_tag" in json)) return response
  // Keep whatever else the error carries (a readiness body keeps its status).
  const { _tag: _, ...rest } = json ?? {}
  const body: Record<string, unknown> = {
    ...rest,
    error: typeof json?.error === "string" ? json.error : defaultError,
    code: typeof json?.code === "string" ? json.code : defaultCode,
    requestId
  }
  // The body is rewritten as JSON: the original's content headers no longer apply.
  const headers = Headers.removeMany(response.headers, ["content-type", "content-length"])
  return HttpServerResponse.jsonUnsafe(body, { status: response.status, headers })
}
