import { NodeHttpServer } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { ByteSize, Cause, Context, Duration, Effect, Layer, Option, Scope } from "effect"
import {
  HttpIncomingMessage,
  HttpRouter,
  HttpServer,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import { NetAddress } from "effect/net"
import { SqlClient } from "effect/sql"
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { AppConfig, type AppConfigShape } from "../../Config.ts"
import { statusCodes } from "../../domain/Errors.ts"
import { databaseTarget } from "../Database.ts"
import { WriteRefusal } from "../DiskGuard.ts"
import { compress } from "./Compression.ts"
import { causeToResponse, errorResponse, normalizeErrorResponse, transportErrors } from "./ErrorResponses.ts"
import { toHtmlError, wantsHtmlError } from "./Html.ts"
import { findJsonSyntaxError, malformedJsonMessage } from "./JsonSyntax.ts"
import { NodeRequest, requestTarget } from "./NodeRequest.ts"
import { OpenApiRoutes } from "./OpenApiDocument.ts"
import { makeOutageLog, outageCheckMs, outageLogIntervalMs } from "./OutageLog.ts"
import { CurrentRequest, pickRequestId, type RequestState } from "./RequestContext.ts"
import { type RouteFacts, routeFacts } from "./Routes.ts"
import { RouteTable, type TableRoute } from "./RouteTable.ts"
import { abandonResponse, teardownBody, writeResponse } from "./WriteResponse.ts"

export const maxBodyBytes = 1024 * 1024

/**
 * The client address: the socket's, or with `hops` trusted proxies the
 * `hops`-th `X-Forwarded-For` entry from the right (each proxy appends the
 * address it saw, so entries left of that were written by the client and
 * prove nothing). A shorter header than `hops` gives its leftmost entry.
 */
export const clientAddress = (forwardedFor: string | undefined, socket: string | undefined, hops: number): string => {
  if (hops > 0 && forwardedFor !== undefined) {
    const entries = forwardedFor.split(",").map((entry) => entry.trim())
    const chosen = entries[Math.max(0, entries.length - hops)]
    if (chosen) return chosen
  }
  return socket ?? "unknown"
}

/**
 * The path as logged: no query (it may hold tokens), and no checkout session
 * id (until its key is collected, the id is what collects it).
 */
export const pathOf = (url: string) => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  return path.replace(/^(\/api\/session|\/checkout)\/[^/]+/i, "$1/:sessionId")
}

/**
 * 404 / 405 / 413 decided before any handler or limit runs (the failure
 * order of docs/api-rules.md). Paths under a `hidden` prefix (the admin routes while
 * ADMIN_SECRET is unset) are unknown whatever the method.
 */
const unknownRoute: RouteFacts = { allowed: [], noStore: [] }

const precheck = (request: NodeRequest, requestId: string, facts: RouteFacts) => {
  const allowed = facts.allowed
  const method = request.method
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
  // Node's own header record: converting every request's headers for one field would cost more than the check.
  const length = Number(request.source.headers["content-length"] ?? 0)
  if (length > maxBodyBytes) {
    const [code, error] = statusCodes[413]
    return errorResponse(413, { error, code, requestId }, { connection: "close" })
  }
  return undefined
}

/** Every response: no MIME sniffing. */
export const baseSecurityHeaders = { "x-content-type-options": "nosniff" } as const

/** The one log line per request (at `info`; path only: query strings may hold tokens). */
export const requestLine = (requestId: string, method: string, url: string, status: number, start: number) =>
  Effect.logInfo("request").pipe(Effect.annotateLogs({
    requestId,
    method,
    path: pathOf(url),
    status,
    durationMs: Math.round((performance.now() - start) * 100) / 100
  }))

/** HTML pages load only our own scripts, styles and images, are never framed and leak no referrer. */
export const htmlSecurityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer"
} as const

/**
 * Headers the HTTP core adds to a response: `nosniff` always; on HTML a
 * restrictive CSP (unless the page set its own) and no referrer; `no-store`
 * on every answer of a route marked as showing keys or secrets.
 */
const securityHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  noStore: boolean
): Readonly<Record<string, string>> => {
  const contentType = response.body._tag === "Empty" ? response.headers["content-type"] : response.body.contentType
  const html = contentType !== undefined && contentType.startsWith("text/html")
  if (!html && !noStore) return baseSecurityHeaders
  return {
    ...baseSecurityHeaders,
    ...(html
      ? response.headers["content-security-policy"] === undefined
        ? htmlSecurityHeaders
        : { "referrer-policy": htmlSecurityHeaders["referrer-policy"] }
      : undefined),
    ...(noStore ? { "cache-control": "no-store" } : undefined)
  }
}

/**
 * The head's headers as Node's flat list, each name once: the answer's own,
 * then the security defaults (which leave out what a page set itself, its
 * stricter CSP), then those the request's steps added, then the request id;
 * a later one replaces an earlier one of the same name. Built by hand rather
 * than by spreading records: the answer's headers are a record of effect's
 * own kind, which a spread copies on V8's slow path.
 */
const headOf = (
  response: HttpServerResponse.HttpServerResponse,
  security: Readonly<Record<string, string>>,
  state: RequestState
): Array<string> => {
  const head: Array<string> = []
  const own = response.headers
  const added = state.responseHeaders
  // effect's Headers record has no enumerable field of its own but the headers.
  for (const name in own) {
    if (name !== "x-request-id" && !Object.hasOwn(security, name) && !Object.hasOwn(added, name)) {
      head.push(name, own[name]!)
    }
  }
  for (const name in security) if (!Object.hasOwn(added, name)) head.push(name, security[name]!)
  for (const name in added) if (name !== "x-request-id") head.push(name, added[name]!)
  head.push("x-request-id", state.requestId)
  return head
}

/** A malformed JSON body's 400, saying where the text goes wrong (the body was read already, so this reads the cache). */
const whereJsonFails = (
  request: HttpServerRequest.HttpServerRequest,
  requestId: string,
  fallback: HttpServerResponse.HttpServerResponse
) =>
  Effect.map(Effect.orElseSucceed(request.text, () => undefined), (text) => {
    const found = text === undefined ? undefined : findJsonSyntaxError(text)
    if (found === undefined) return fallback
    return errorResponse(400, { error: malformedJsonMessage(found), code: "E_MALFORMED_JSON", requestId })
  })

export const infoEnabled = (level: AppConfigShape["logLevel"]) =>
  level === "all" || level === "trace" || level === "debug" || level === "info"

/**
 * What every request goes through, in place of effect's Node adapter, router
 * and a middleware: request id, client address, early 404/405/413, the route,
 * the Error shape for every failure, added headers, the answer written to
 * Node and one structured log line per request (path only: query strings may
 * hold tokens). Each request runs as one fiber over the request fibers'
 * context with the request's own services laid on top (no copy of the app's
 * context per request). Returns Node's request listener.
 */
const makeDispatch = Effect.gen(function*() {
  const config = yield* AppConfig
  const table = yield* RouteTable
  const bodyLimit = ByteSize.bytes(maxBodyBytes)
  // Decided once: below `info` the request line is never built (the hot path of a busy server).
  const logRequests = infoEnabled(config.logLevel)
  const hidden = Option.isNone(config.adminSecret) ? ["/api/admin/"] : []
  const hops = config.trustProxy === true ? 1 : config.trustProxy === false ? 0 : config.trustProxy
  const refusal = yield* WriteRefusal
  const sql = yield* SqlClient.SqlClient
  const outages = yield* makeOutageLog({
    intervalMs: outageLogIntervalMs,
    checkMs: outageCheckMs,
    // Back means reads and writes: a database that answers but refuses writes is still out for them.
    probe: Effect.map(
      sql<{ ro: string }>`SELECT current_setting('transaction_read_only') AS ro`,
      (rows) => rows[0]?.ro === "off" && refusal.current() === undefined
    )
  })
  const services = Context.add(
    requestServices(yield* Effect.context<never>()),
    HttpIncomingMessage.MaxBodySize,
    bodyLimit
  )
  const literals = literalRoutes(table, hidden)
  const answerFailure = (
    cause: Cause.Cause<unknown>,
    requestId: string,
    request: HttpServerRequest.HttpServerRequest
  ) =>
    Effect.flatMap(
      causeToResponse(cause, requestId, request.url, refusal.current),
      ([response, kind]) =>
        kind === undefined
          ? Effect.succeed(response)
          : kind._tag === "MalformedJson"
          ? whereJsonFails(request, requestId, response)
          : kind._tag === "Outage"
          ? Effect.as(outages.report(kind.cause, requestId), response)
          : Effect.as(Effect.logError("unhandled failure", cause).pipe(Effect.annotateLogs({ requestId })), response)
    )
  const finish = (
    request: NodeRequest,
    state: RequestState,
    facts: RouteFacts,
    start: number,
    raw: HttpServerResponse.HttpServerResponse
  ) => {
    let response = normalizeErrorResponse(raw, state.requestId)
    if (response.status >= 400 && wantsHtmlError(request.url, request.source.headers.accept)) {
      response = toHtmlError(response, state.requestId)
    }
    response = compress(response, request.source.headers["accept-encoding"])
    const head = headOf(
      response,
      securityHeaders(response, facts.noStore.length > 0 && facts.noStore.includes(request.method)),
      state
    )
    // Written now (the head, and the whole of an answer held in memory); a stream's body follows the line,
    // which says what the client was answered, whenever the stream ends.
    const written = writeResponse(request.method, response, request.response, head)
    if (!logRequests) return written
    return Effect.andThen(requestLine(state.requestId, request.method, request.url, response.status, start), written)
  }
  const reportDefect = (cause: Cause.Cause<unknown>, requestId: string) =>
    Effect.runForkWith(services)(
      Effect.logError("response not written", cause).pipe(Effect.annotateLogs({ requestId }))
    )

  return (source: IncomingMessage, node: ServerResponse): void => {
    // Read only for the request line's duration.
    const start = logRequests ? performance.now() : 0
    const target = requestTarget(source)
    const request = new NodeRequest(source, node, target.url, target.headers)
    const state = new DispatchState(pickRequestId(firstValue(source.headers["x-request-id"])), source, hops)
    const url = request.url
    // A path the routes name literally, without a query: its facts and routes were found when the server started.
    const literal = literals.get(url)
    const facts = literal !== undefined ? literal.facts : pathFacts(url, hidden)
    const early = precheck(request, state.requestId, facts)
    const scope = Scope.makeUnsafe()
    let context = Context.add(services, Scope.Scope, scope)
    const respond = (response: HttpServerResponse.HttpServerResponse) => finish(request, state, facts, start, response)
    let program: Effect.Effect<void, unknown, unknown>
    if (early !== undefined) {
      // Written inside the fiber, as every answer is: a write that throws is a defect the fiber reports.
      program = Effect.flatMap(Effect.succeed(early), respond)
    } else {
      const method = request.method
      const route = literal?.routes.get(method)
      const found = route !== undefined
        ? { handler: route, params: {}, searchParams: {} }
        : findRoute(table, method, url)
      if (found === undefined) {
        program = Effect.flatMap(answerFailure(Cause.fail(routeNotFound(request)), state.requestId, request), respond)
      } else {
        const route = found.handler.route
        context = Context.add(context, HttpServerRequest.HttpServerRequest, request)
        context = Context.add(context, HttpServerRequest.ParsedSearchParams, found.searchParams)
        context = Context.add(context, HttpRouter.RouteContext, { route, params: found.params })
        context = Context.add(context, CurrentRequest, state)
        let handler = route.handler as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
        // A body of unannounced length is read (and cached) before anything else
        // runs, so that one over the limit is 413 ahead of 429/401, as a
        // Content-Length over the limit is.
        if (source.headers["transfer-encoding"] !== undefined && source.headers["content-length"] === undefined) {
          handler = Effect.andThen(request.arrayBuffer, handler)
        }
        if (route.uninterruptible) handler = Effect.uninterruptible(handler)
        // One frame for both outcomes: the answer, or the failure's answer, is written by `finish`.
        program = Effect.matchCauseEffect(handler, {
          onSuccess: respond,
          onFailure: (cause) => Effect.flatMapEager(answerFailure(cause, state.requestId, request), respond)
        })
      }
    }
    // Only a request that may carry a body can leave one unread. Prepended so
    // it runs before Node's own `finish` listener drains or dumps the body.
    if (mayHaveBody(source)) node.prependListener("finish", () => teardownBody(source, node))
    const fiber = Effect.runForkWith(context as Context.Context<never>)(program as Effect.Effect<void>)
    fiber.addObserver((exit) => {
      // The request's scope closes once its fiber has ended (the answer written, or the fiber interrupted);
      // most requests leave no finalizer in it, and then nothing more runs.
      const finalizers = Scope.closeUnsafe(scope, exit)
      if (finalizers !== undefined) Effect.runForkWith(services)(Effect.uninterruptible(finalizers))
      if (exit._tag === "Success" || Cause.hasInterruptsOnly(exit.cause)) return
      abandonResponse(node)
      reportDefect(exit.cause, state.requestId)
    })
    if (fiber.pollUnsafe() === undefined) {
      node.on("close", () => {
        if (!node.writableEnded) fiber.interruptUnsafe()
      })
    }
  }
})

/** A request's state; its client address is worked out when first asked for (public routes mostly never ask). */
class DispatchState implements RequestState {
  readonly requestId: string
  readonly responseHeaders: Record<string, string> = {}
  private readonly source: IncomingMessage
  private readonly hops: number
  private address: string | undefined = undefined

  constructor(requestId: string, source: IncomingMessage, hops: number) {
    this.requestId = requestId
    this.source = source
    this.hops = hops
  }

  get clientIp(): string {
    return this.address ??= clientAddress(
      firstValue(this.source.headers["x-forwarded-for"]),
      this.source.socket?.remoteAddress,
      this.hops
    )
  }
}

/** The methods a path answers and which are `no-store`; paths under a `hidden` prefix answer none. */
const pathFacts = (url: string, hidden: ReadonlyArray<string>): RouteFacts =>
  hidden.some((prefix) => url.startsWith(prefix)) ? unknownRoute : routeFacts(url)

/** The route a method finds on a path; HEAD falls back to GET's. */
const findRoute = (table: RouteTable["Service"], method: string, url: string) =>
  table.find(method, url) ?? (method === "HEAD" ? table.find("GET", url) : undefined)

/** What a literal path leads to: its facts, and per method the route it finds when that route takes no parameter. */
interface LiteralRoute {
  readonly facts: RouteFacts
  readonly routes: ReadonlyMap<string, TableRoute>
}

/**
 * The route table's literal paths, each looked up once: a request for one of
 * them (the exact text, no query) then needs neither the route facts nor the
 * router. A method whose route on that path takes parameters (a literal
 * segment filling `:id`) is left to the router, as is every other path.
 */
const literalRoutes = (
  table: RouteTable["Service"],
  hidden: ReadonlyArray<string>
): ReadonlyMap<string, LiteralRoute> => {
  const known = new Map<string, LiteralRoute>()
  for (const path of table.literalPaths()) {
    const facts = pathFacts(path, hidden)
    const routes = new Map<string, TableRoute>()
    for (const method of facts.allowed) {
      const found = findRoute(table, method, path)
      if (found === undefined || Object.keys(found.params).length > 0 || Object.keys(found.searchParams).length > 0) {
        continue
      }
      routes.set(method, found.handler)
    }
    known.set(path, { facts, routes })
  }
  return known
}

/** A body follows the head: announced with a length above zero, or chunked. */
const mayHaveBody = (source: IncomingMessage): boolean => {
  const length = source.headers["content-length"]
  return source.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

const firstValue = (value: string | Array<string> | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value

const routeNotFound = (request: HttpServerRequest.HttpServerRequest) =>
  new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request }) })

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
  const [code, text] = transportErrors[status]
  const body = JSON.stringify({ error: text, code, requestId })
  socket.end(
    `HTTP/1.1 ${status} ${
      STATUS_CODES[status]
    }\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`
  )
}

/** A request before the routes are ready or after they are gone: 503 in the Error shape. */
const answerUnavailable = (response: ServerResponse) => {
  const [code, error] = statusCodes[503]
  const requestId = pickRequestId(undefined)
  const body = JSON.stringify({ error, code, requestId })
  response.shouldKeepAlive = false
  response.writeHead(503, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "retry-after": "1",
    "x-request-id": requestId,
    ...baseSecurityHeaders
  })
  response.end(body)
}

/**
 * Node's server, stopping the way a stop (SIGTERM) should: once closing it
 * accepts no connection, closes the idle keep-alive ones at once, answers the
 * requests already sent on open ones with `Connection: close` (so under load
 * the connections end with their current request rather than carrying new
 * ones), and after `graceMs` closes whatever is still open (long streams:
 * SSE, chat).
 */
const makeNodeServer = (dispatcher: Dispatcher, graceMs: number) => {
  const server = createServer().on("clientError", answerClientError)
  let closing = false
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (closing) response.shouldKeepAlive = false
    const dispatch = dispatcher.current
    if (dispatch !== undefined) return dispatch(request, response)
    // Listening starts a moment before the routes are handed over, and a stop ends with them gone.
    answerUnavailable(response)
  })
  const close = server.close.bind(server)
  server.close = ((callback?: (error?: Error) => void) => {
    closing = true
    // Connections busy now go idle once their answer is sent: swept until the server has closed.
    const sweep = setInterval(() => server.closeIdleConnections(), 25).unref()
    const cutOff = setTimeout(() => server.closeAllConnections(), graceMs).unref()
    close((error) => {
      clearInterval(sweep)
      clearTimeout(cutOff)
      callback?.(error)
    })
    return server
  }) as typeof server.close
  return server
}

/**
 * Keys request fibers never read: the app's services and the database clients
 * are taken by the layers that use them when those are built (handlers through
 * leanGroup, whose types enforce it).
 */
const buildTimeOnly = (key: string) =>
  key.startsWith("herald/") || key === SqlClient.SqlClient.key || key === PgClient.PgClient.key

/** The context request fibers start from: what the server was built in, less what only layers read. */
const requestServices = (all: Context.Context<never>): Context.Context<never> => {
  const kept = new Map(all.mapUnsafe)
  for (const key of kept.keys()) if (buildTimeOnly(key)) kept.delete(key)
  return Context.makeUnsafe<never>(kept)
}

/** Where Node's requests go once the routes are built (the server listens a moment before). */
interface Dispatcher {
  current: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
}

/** The routes built into the route table, then the dispatcher over them handed to Node's server. */
const serve = <E, R>(routes: Layer.Layer<never, E, R>, dispatcher: Dispatcher) =>
  Layer.unwrap(Effect.gen(function*() {
    const context = yield* Layer.build(routes)
    const serving = Layer.effectDiscard(Effect.gen(function*() {
      yield* HttpServer.HttpServer
      dispatcher.current = yield* makeDispatch
      yield* Effect.addFinalizer(() => Effect.sync(() => void (dispatcher.current = undefined)))
    }))
    return Layer.merge(serving, Layer.succeedContext(context))
  }))

/** Which database the service runs on, for the start-up line (never the URL: it may hold a password). */
export const databaseKind = (config: AppConfigShape): { readonly database: string; readonly dataDir?: string } => {
  const target = databaseTarget(config)
  if (target._tag === "postgres") return { database: "postgresql" }
  return target.dataDir === undefined
    ? { database: "pglite (in memory)" }
    : { database: "pglite", dataDir: target.dataDir }
}

/** One line once the server accepts connections: where, on which database, with which data directory. */
const listening = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  const server = yield* HttpServer.HttpServer
  const address = NetAddress.formatUrlUnsafe(server.address)
  yield* Effect.logInfo(`listening on ${address}`).pipe(Effect.annotateLogs({ address, ...databaseKind(config) }))
}))

/**
 * The HTTP server for the given routes (the REST API) and those the features
 * added to the router (`RouteTableLive`) while they were built, with the OpenAPI
 * document and the core middleware every route goes through. Everything it is
 * given is built before it listens.
 */
export const httpServer = <E, R>(routes: Layer.Layer<never, E, R>) =>
  Layer.unwrap(Effect.gen(function*() {
    const config = yield* AppConfig
    const dispatcher: Dispatcher = { current: undefined }
    return Layer.merge(serve(Layer.mergeAll(routes, OpenApiRoutes), dispatcher), listening).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => makeNodeServer(dispatcher, config.shutdownGraceMs), {
        port: config.port,
        host: config.host,
        // The server closes every connection at the grace's end; this only bounds a close that still hangs.
        gracefulShutdownTimeout: Duration.millis(config.shutdownGraceMs + 500)
      }))
    )
  }))
