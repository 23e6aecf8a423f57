import { Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { isUtf8 } from "node:buffer"
import { MalformedJson } from "../../domain/Errors.ts"
import { errorResponse } from "./ErrorResponses.ts"
import { currentRequest } from "./RequestContext.ts"

const bodyMethods = new Set(["POST", "PUT", "PATCH"])

/** Read as JSON by the API: a JSON media type, or none at all. */
const readsAsJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return true
  const media = contentType.split(";")[0].trim().toLowerCase()
  return media === "application/json" || media.endsWith("+json")
}

/**
 * A JSON body must be UTF-8 (RFC 8259 §8.1). The platform decodes bodies
 * leniently, turning bad bytes into U+FFFD, so a body of invalid bytes would
 * be stored as replacement characters rather than refused as malformed JSON.
 * Runs inside the authentication middlewares: 401 and 403 come first.
 */
export const requireUtf8Json = <E, R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  /** The request being answered: its callers, the authentication middlewares, hold it already. */
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  if (!bodyMethods.has(request.method) || !readsAsJson(request.headers["content-type"])) return effect
  // A body that cannot be read fails the same way when the handler reads it.
  return Effect.flatMap(Effect.result(request.arrayBuffer), (read) => {
    if (read._tag === "Failure" || isUtf8(read.success)) return effect
    const { error, code } = new MalformedJson()
    return Effect.map(currentRequest, ({ requestId }) => errorResponse(400, { error, code, requestId }))
  })
}
