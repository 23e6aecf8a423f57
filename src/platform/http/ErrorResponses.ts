import { Cause, Effect, SchemaIssue } from "effect"
import { Headers, HttpServerError, HttpServerResponse } from "effect/http"
import { HttpApiSchemaError } from "effect/http-api/HttpApiError"
import type { HttpServerResponse as Response } from "effect/http/HttpServerResponse"
import { isSqlError } from "effect/sql/SqlError"
import { statusCodes } from "../../domain/Errors.ts"
import { describeIssues, invalidText } from "./ValidationMessages.ts"

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

/** Answers to requests Node's HTTP parser refuses before any route runs (src/platform/http/Server.ts). */
export const transportErrors: Record<number, readonly [code: string, error: string]> = {
  400: ["E_BAD_REQUEST", "Malformed HTTP request"],
  408: ["E_TIMEOUT", "Request timed out"],
  431: ["E_HEADERS_TOO_LARGE", "Request headers too large"]
}

/** The code and text of a status when nothing more specific is known. */
export const defaultsFor = (status: number): readonly [string, string] =>
  statusCodes[status] ?? (status >= 500 ? statusCodes[500] : ["E_HTTP_" + status, "Request failed"])

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const slotNames: Record<string, string> = {
  Params: "path",
  Query: "query",
  Headers: "header",
  Payload: "body"
}

/** Query parameters the URL gives more than once. */
const repeatedParameters = (url: string): ReadonlySet<string> => {
  const q = url.indexOf("?")
  const repeated = new Set<string>()
  if (q === -1) return repeated
  const seen = new Set<string>()
  for (const [name] of new URLSearchParams(url.slice(q + 1))) {
    if (seen.has(name)) repeated.add(name)
    seen.add(name)
  }
  return repeated
}

const isMalformedJson = (error: HttpApiSchemaError): boolean =>
  formatIssues(error.cause.issue).issues[0]?.message === "Expected a valid JSON body"

/** A decode failure of the request as a 400 naming every offending field. */
const validationBody = (error: HttpApiSchemaError, requestId: string, repeated: ReadonlySet<string>): ErrorBody => {
  const slot = slotNames[error.kind] ?? "request"
  const details = describeIssues(error.cause.issue).map((issue) => ({
    path: [slot, ...issue.path.map(String)].join("."),
    // A query parameter given twice arrives as a list, which no parameter takes: say so rather than "must be a string".
    message: slot === "query" && issue.path.length === 1 && repeated.has(String(issue.path[0]))
      ? "is repeated: give it once"
      : issue.message
  }))
  return {
    error: invalidText(details),
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
const isDatabaseUnreachable = (value: unknown): boolean => isSqlError(value) && value.reason._tag === "ConnectionError"

/**
 * Why the database refuses every write, when a statement failed for that
 * reason: it is read-only (SQLSTATE 25006: the embedded database does this
 * itself while its disk is nearly full) or its disk is full (53100). The
 * service answers 503 rather than 500: nothing is wrong with the request.
 */
const writesRefusedCauses: Record<string, string> = {
  "25006": "database refuses writes (read-only)",
  "53100": "no space left on the database's disk"
}

const writesRefused = (value: unknown): string | undefined => {
  if (!isSqlError(value)) return undefined
  const code = (value.reason.cause as { code?: unknown } | undefined)?.code
  return typeof code === "string" ? writesRefusedCauses[code] : undefined
}

/**
 * Why the database cannot serve a failed statement, when that is the reason
 * (unreachable, or refusing writes): an outage answered 503, never a bug.
 * Other surfaces than REST (the tool runner) answer the same way with it.
 */
export const databaseOutage = (value: unknown): string | undefined =>
  isDatabaseUnreachable(value) ? outageCause(value) : writesRefused(value)

/**
 * What an outage is put down to, for grouping its log lines: the network
 * error code somewhere down the cause chain (ECONNREFUSED, ETIMEDOUT...),
 * else the reason's message. Never a statement or a parameter.
 */
const outageCause = (value: unknown): string => {
  let current: unknown = isSqlError(value) ? value.reason.cause : undefined
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string") return code
    current = (current as { cause?: unknown }).cause
  }
  return (isSqlError(value) ? value.reason.message : undefined) ?? "database connection failed"
}

/** The database is out (unreachable, or refusing every write): answered 503 and counted in the outage log. */
export const isDatabaseOutage = (value: unknown): boolean =>
  isDatabaseUnreachable(value) || writesRefused(value) !== undefined

/** How a failure is logged: a defect with its cause, an expected outage grouped by cause, or not at all. */
export type FailureKind =
  | { readonly _tag: "Defect" }
  | { readonly _tag: "Outage"; readonly cause: string }
  /** The body is not JSON: the HTTP core says where, from the (already read) body. */
  | { readonly _tag: "MalformedJson" }
  | undefined

/**
 * Turns a failure that escaped every handler into the Error shape. Returns the
 * response and whether the cause is a defect worth logging as one.
 */
export const causeToResponse = (
  cause: Cause.Cause<unknown>,
  requestId: string,
  url = "",
  /** Why the service itself refuses writes now (a nearly full DATA_DIR), for the log line. */
  writeRefusal: () => string | undefined = () => undefined
): Effect.Effect<readonly [Response, FailureKind]> =>
  Effect.gen(function*() {
    for (const reason of cause.reasons) {
      const value = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
      if (value === undefined) continue
      if (HttpServerResponse.isHttpServerResponse(value)) return [value, undefined] as const
      if (HttpApiSchemaError.is(value) && value.kind !== "Body" && value.kind !== "ResponseHeaders") {
        if (isMalformedJson(value)) {
          const body = { error: "Request body is not valid JSON", code: "E_MALFORMED_JSON", requestId }
          return [errorResponse(400, body), { _tag: "MalformedJson" }] as const
        }
        return [errorResponse(400, validationBody(value, requestId, repeatedParameters(url))), undefined] as const
      }
      if (isBodyTooLarge(value)) {
        const [code, error] = defaultsFor(413)
        return [errorResponse(413, { error, code, requestId }), undefined] as const
      }
      if (isDatabaseUnreachable(value)) {
        const [code, error] = defaultsFor(503)
        return [errorResponse(503, { error, code, requestId }), { _tag: "Outage", cause: outageCause(value) }] as const
      }
      const refused = writesRefused(value)
      if (refused !== undefined) {
        const [code, error] = defaultsFor(503)
        return [errorResponse(503, { error, code, requestId }), {
          _tag: "Outage",
          cause: writeRefusal() ?? refused
        }] as const
      }
      if (HttpServerError.isHttpServerError(value) && value.reason._tag === "RouteNotFound") {
        const [code, error] = defaultsFor(404)
        return [errorResponse(404, { error, code, requestId }), undefined] as const
      }
    }
    if (Cause.hasInterruptsOnly(cause)) {
      const [code, error] = defaultsFor(503)
      return [errorResponse(503, { error, code, requestId }), undefined] as const
    }
    const [code, error] = defaultsFor(500)
    return [errorResponse(500, { error, code, requestId }), { _tag: "Defect" }] as const
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
  // HTML pages answer their errors as HTML, so a browser shows a page rather than JSON.
  if (response.body._tag === "Uint8Array" && response.body.contentType.startsWith("text/html")) return response
  const json = readJsonBody(response) as Record<string, unknown> | undefined
  const [defaultCode, defaultError] = defaultsFor(response.status)
  if (json !== undefined && json.requestId === requestId && !("_tag" in json)) return response
  // The stateless MCP revision answers its refusals as JSON-RPC errors with an HTTP status; its clients read them so.
  if (json !== undefined && json.jsonrpc === "2.0" && typeof json.error === "object") return response
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
