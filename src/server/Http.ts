import { NodeHttpServer } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { ByteSize, type Cause, Context, Effect, Layer, Option, type Scope } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import type { unhandled } from "effect/Types"
import { createServer, ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { AppConfig, type AppConfigShape } from "../Config.ts"
import { statusCodes } from "../domain/Errors.ts"
import { causeToResponse, errorResponse, normalizeErrorResponse } from "./ErrorResponses.ts"
import { ApiRoutes } from "./ApiRoutes.ts"
import { DiscoveryRoutes } from "./Discovery.ts"
import { OpenApiRoute } from "./OpenApiDocument.ts"
import { CurrentRequest, pickRequestId, type RequestState } from "./RequestContext.ts"
import { allowedMethods } from "./Routes.ts"

export const maxBodyBytes = 1024 * 1024

const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  if (trustProxy) {
    const forwarded = request.headers["x-forwarded-for"]?.split(",")[0]?.trim()
    if (forwarded) return forwarded
  }
  return request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "unknown"
}

const pathOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/**
 * 404 / 405 / 413 decided before any handler or limit runs (CONTRACT
 * precedence). Paths under a `hidden` prefix (the admin routes while
 * ADMIN_SECRET is unset) are unknown whatever the method.
 */
const precheck = (request: HttpServerRequest.HttpServerRequest, requestId: string, hidden: ReadonlyArray<string>) => {
  const allowed = hidden.some((prefix) => request.url.startsWith(prefix)) ? [] : allowedMethods(request.url)
  const method = request.method.toUpperCase()
  if (allowed.length === 0) {
    const [code, error] = statusCodes[404]
    return errorResponse(404, { error, code, requestId })
  }
  if (method === "OPTIONS" && !allowed.includes("OPTIONS")) {
    // No route of its own: say which methods the path answers (RFC 9110 §9.3.7).
    return HttpServerResponse.empty({ status: 204, headers: { allow: [...allowed, "OPTIONS"].join(", ") } })
  }
  if (!allowed.includes(method)) {
    const [code, error] = statusCodes[405]
    const allow = allowed.includes("OPTIONS") ? allowed : [...allowed, "OPTIONS"]
    return errorResponse(405, { error: `${error}: ${method}`, code, requestId }, { allow: allow.join(", ") })
  }
  const length = Number(request.headers["content-length"] ?? 0)
  if (length > maxBodyBytes) {
    const [code, error] = statusCodes[413]
    return errorResponse(413, { error, code, requestId }, { connection: "close" })
  }
  return undefined
}

const infoEnabled = (level: AppConfigShape["logLevel"]) =>
  level === "all" || level === "trace" || level === "debug" || level === "info"

const hasKeys = (record: Record<string, string>) => {
  for (const _ in record) return true
  return false
}

/**
 * The one cross-cutting middleware: request id, client address, early
 * 404/405/413, the Error shape for every failure, added headers and one
 * structured log line per request (path only: query strings may hold tokens).
 */
export const CoreMiddleware = HttpRouter.middleware<{ provides: CurrentRequest; handles: unknown }>()(Effect.gen(function*() {
  const config = yield* AppConfig
  const bodyLimit = ByteSize.bytes(maxBodyBytes)
  // Decided once: below `info` the request line is never built (the hot path of a busy server).
  const logRequests = infoEnabled(config.logLevel)
  const hidden = Option.isNone(config.adminSecret) ? ["/api/admin/"] : []
  const answerFailure = (cause: Cause.Cause<unknown>, requestId: string) =>
    Effect.flatMap(causeToResponse(cause, requestId), ([response, isDefect]) =>
      isDefect
        ? Effect.as(Effect.logError("unhandled failure", cause).pipe(Effect.annotateLogs({ requestId })), response)
        : Effect.succeed(response))
  // Plain combinators rather than a generator: this runs for every request.
  // Every failure is answered here; `unhandled` is how the router's types say so.
  return (httpEffect): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, HttpServerRequest.HttpServerRequest> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const start = performance.now()
      const requestId = pickRequestId(request.headers["x-request-id"])
      const state: RequestState = {
        requestId,
        clientIp: clientAddress(request, config.trustProxy),
        responseHeaders: {}
      }
      const early = precheck(request, requestId, hidden)
      // A body of unannounced length is read (and cached) before anything else
      // runs, so that one over the limit is 413 ahead of 429/401, as a
      // Content-Length over the limit is.
      const body = request.headers["transfer-encoding"] !== undefined && request.headers["content-length"] === undefined
        ? Effect.andThen(request.arrayBuffer, httpEffect)
        : httpEffect
      const handled = early !== undefined ? Effect.succeed(early) : body.pipe(
        // Overlays rather than a merge: merging copies every service of the app per request.
        Effect.updateContext((context: Context.Context<never>) =>
          Context.add(Context.add(context, CurrentRequest, state), HttpIncomingMessage.MaxBodySize, bodyLimit)),
        Effect.catchCause((cause) => answerFailure(cause, requestId))
      )
      return Effect.flatMap(handled, (raw) => {
        let response = normalizeErrorResponse(raw, requestId)
        response = hasKeys(state.responseHeaders)
          ? HttpServerResponse.setHeaders(response, { ...state.responseHeaders, "x-request-id": requestId })
          : HttpServerResponse.setHeader(response, "x-request-id", requestId)
        if (!logRequests) return Effect.succeed(response)
        return Effect.as(
          Effect.logInfo("request").pipe(Effect.annotateLogs({
            requestId,
            method: request.method,
            path: pathOf(request.url),
            status: response.status,
            durationMs: Math.round((performance.now() - start) * 100) / 100
          })),
          response
        )
      })
    })
}), { global: true })

/**
 * Requests Node's parser refuses (unknown method, bad request line, oversized
 * headers) never reach the router; they are answered here in the same Error
 * shape with a request id, then the connection is closed.
 */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const status = error.code === "HPE_HEADER_OVERFLOW"
    ? 431
    : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? 408
    : 400
  const requestId = pickRequestId(undefined)
  const body = JSON.stringify({
    error: status === 431 ? "Request headers too large" : status === 408 ? "Request timed out" : "Malformed HTTP request",
    code: status === 431 ? "E_HEADERS_TOO_LARGE" : status === 408 ? "E_TIMEOUT" : "E_BAD_REQUEST",
    requestId
  })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`
  )
}

/**
 * Node's response with its Content-Length self-check left off. Effect's
 * adapter turns the check on for every response, and Node then sends each one
 * as a two-buffer writev (the second empty) rather than one write: about a
 * twentieth of the cost of a small JSON answer. Every length Herald sends is
 * the byte length of the body it goes with, computed by effect, so the check
 * has nothing to catch here.
 */
class UncheckedResponse extends ServerResponse {}
Object.defineProperty(UncheckedResponse.prototype, "strictContentLength", { get: () => false, set: () => {} })

const makeNodeServer = () => createServer({ ServerResponse: UncheckedResponse }).on("clientError", answerClientError)

export const AppRoutes = Layer.mergeAll(ApiRoutes, OpenApiRoute, DiscoveryRoutes, CoreMiddleware)

/**
 * Keys request fibers never read: the app's services and the database clients
 * are taken by the layers that use them when those are built (handlers through
 * leanGroup, whose types enforce it).
 */
const buildTimeOnly = (key: string) =>
  key.startsWith("herald/") || key === SqlClient.SqlClient.key || key === PgClient.PgClient.key

/**
 * HttpRouter.serve with a leaner context for request fibers. Node's adapter
 * gives every request fiber the context `serve` ran in, and each request
 * copies it at least once (its first lookups flatten it; HttpApiBuilder merges
 * into it), so every service of the app cost a copy per request.
 */
const serve = <E, R>(routes: Layer.Layer<never, E, R>) =>
  Layer.unwrap(Effect.gen(function*() {
    const context = yield* Layer.build(Layer.provideMerge(
      routes,
      Layer.provide(HttpRouter.layer, Layer.succeed(HttpRouter.RouterConfig)({ ignoreTrailingSlash: true }))
    ))
    const app = Context.get(context, HttpRouter.HttpRouter).asHttpEffect()
    const serving = Layer.effectDiscard(Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      yield* server.serve(app).pipe(
        Effect.updateContext((all: Context.Context<Scope.Scope>) => {
          const kept = new Map(all.mapUnsafe)
          for (const key of kept.keys()) if (buildTimeOnly(key)) kept.delete(key)
          return Context.makeUnsafe<Scope.Scope>(kept)
        })
      )
    }))
    return Layer.merge(serving, Layer.succeedContext(context))
  }))

export const HttpServerLive = Layer.unwrap(Effect.map(AppConfig, (config) =>
  serve(AppRoutes).pipe(
    Layer.provideMerge(NodeHttpServer.layer(makeNodeServer, {
      port: config.port,
      host: config.host,
      gracefulShutdownTimeout: "10 seconds"
    }))
  )
))
