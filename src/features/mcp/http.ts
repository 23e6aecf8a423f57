import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Effect, Option, Queue, Stream } from "effect"
import { HttpEffect, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import {
  Forbidden,
  MalformedJson,
  NotFound,
  RateLimited,
  SessionNotFound,
  ValidationError
} from "../../domain/Errors.ts"
import { statusCodes } from "../../domain/Errors.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import { defaultsFor } from "../../platform/http/ErrorResponses.ts"
import { currentRequest } from "../../platform/http/RequestContext.ts"
import { openedAtOnce, openingComment } from "../../platform/http/Sse.ts"
import { ToolRunner } from "../../platform/tools/ToolRunner.ts"
import { type Authenticated, credentialOf, makeGate, refuse } from "./Gate.ts"
import { makeMcpServer, negotiatedVersion, protocolVersions, withinProtocolRange } from "./McpServer.ts"
import { isModernRequest, makeModernHandler } from "./Modern.ts"
import { SseSessionTransport } from "./SseTransport.ts"

/** Paths of the MCP transports (also listed in src/platform/http/Routes.ts and the discovery documents). */
export const mcpPaths = { sse: "/mcp/sse", message: "/mcp/message", streamable: "/mcp" } as const

/** A full session table frees up as clients leave: ask them to come back after one limit window. */
const fullRetrySeconds = 60

/**
 * A session runs its tools as the key that opened it: any other key, even
 * another key of the same customer (a team member's with a lesser role),
 * is refused rather than lent that key's role.
 */
const notTheSessionsKey = () =>
  refuse(new Forbidden({ error: "This key did not open this session: open a session with it" }))

interface SseSession {
  readonly customerId: CustomerId
  /** The key the session was opened with: re-checked on every message (revoked, customer suspended). */
  readonly key: string
  readonly keyId: string
  readonly transport: SseSessionTransport
  /** The revision its initialize settled on. */
  version: string
}

interface HttpSession {
  readonly customerId: CustomerId
  /** The key that opened it: its tools run with that key's role, so no other key may drive it. */
  readonly keyId: string
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly server: Server
  /** When a request or stream of it last began or ended. */
  lastSeen: number
  /** Requests in flight and streams open: a busy session is never idle. */
  busy: number
  /** The revision its initialize settled on. */
  version: string
}

const unsupportedMediaType = Effect.flatMap(currentRequest, ({ requestId }) => {
  const [code, error] = statusCodes[415]
  return Effect.fail(HttpServerResponse.jsonUnsafe({ error, code, requestId }, { status: 415 }))
})

const isJsonMedia = (contentType: string | undefined) => {
  const media = (contentType ?? "").split(";")[0].trim().toLowerCase()
  return media === "application/json" || media.endsWith("+json")
}

/** A POST's JSON body (the core middleware already limits its size). */
const readJson = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (!isJsonMedia(request.headers["content-type"])) return yield* unsupportedMediaType
    const text = yield* Effect.orElseSucceed(request.text, () => undefined)
    if (text === undefined) return yield* refuse(new MalformedJson(), 400)
    try {
      return JSON.parse(text) as unknown
    } catch {
      return yield* refuse(new MalformedJson(), 400)
    }
  })

interface SdkRefusal {
  readonly status: number
  readonly error: { readonly _tag: string; readonly error: string; readonly code: string }
  readonly headers: Record<string, string>
}

/**
 * The SDK answers its own refusals (406 for a wrong Accept, 400, 415...) as
 * JSON-RPC errors: they are answered in the one Error shape, with the SDK's
 * message, the code of their status and their headers (an `Allow` stays).
 */
const sdkRefusal = async (answer: Response): Promise<SdkRefusal | undefined> => {
  if (answer.status < 400 || !(answer.headers.get("content-type") ?? "").includes("json")) return undefined
  const json: unknown = await answer.clone().json().catch(() => undefined)
  const rpcError = typeof json === "object" && json !== null && "error" in json ? json.error : undefined
  const message = typeof rpcError === "object" && rpcError !== null && "message" in rpcError
    ? rpcError.message
    : undefined
  const [code, fallback] = defaultsFor(answer.status)
  const headers: Record<string, string> = {}
  answer.headers.forEach((value, name) => {
    if (name !== "content-type" && name !== "content-length") headers[name] = value
  })
  return {
    status: answer.status,
    error: { _tag: "McpRefusal", error: typeof message === "string" ? message : fallback, code },
    headers
  }
}

/**
 * The MCP transports: the legacy HTTP+SSE pair (GET /mcp/sse, POST
 * /mcp/message) and Streamable HTTP at /mcp, each session with its own SDK
 * server instance bound to the customer that opened it.
 */
export const McpRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const runner = yield* ToolRunner
    const gate = yield* makeGate
    const context = yield* Effect.context<never>()
    const modern = makeModernHandler(runner, context, config.mcpKeepAliveMs)
    const sseSessions = new Map<string, SseSession>()
    const httpSessions = new Map<string, HttpSession>()
    // Behind a proxy, a session id names the instance holding the session, so the proxy can route its requests there.
    const newSessionId = Option.match(config.instanceTag, {
      onNone: () => randomUUID,
      onSome: (tag) => () => `${tag}.${randomUUID()}`
    })
    // Open sessions per customer: opening the SSE stream costs no MCP budget, so this bounds what one key can hold open.
    const openByCustomer = new Map<string, number>()
    const countOpen = (customerId: CustomerId, delta: 1 | -1) => {
      const next = (openByCustomer.get(customerId) ?? 0) + delta
      if (next > 0) openByCustomer.set(customerId, next)
      else openByCustomer.delete(customerId)
    }
    const addSse = (id: string, session: SseSession) => {
      sseSessions.set(id, session)
      countOpen(session.customerId, 1)
    }
    const dropSse = (id: string) => {
      const session = sseSessions.get(id)
      if (session === undefined) return
      sseSessions.delete(id)
      countOpen(session.customerId, -1)
    }
    const addHttp = (id: string, session: HttpSession) => {
      httpSessions.set(id, session)
      countOpen(session.customerId, 1)
    }
    const dropHttp = (id: string) => {
      const session = httpSessions.get(id)
      if (session === undefined) return undefined
      httpSessions.delete(id)
      countOpen(session.customerId, -1)
      return session
    }
    const closeHttp = (id: string) => {
      const session = dropHttp(id)
      if (session !== undefined) void session.server.close()
    }
    /**
     * At the cap, the customer's least recently used idle session (no request
     * in flight, no open stream) is closed to make room: clients often leave
     * without ending their session, and one that reconnects must not be
     * refused for the sessions it abandoned. Only when every session is in
     * use is the new one refused, as a limit like any other (429 "Rate limit
     * exceeded" with Retry-After); the cap is MCP_MAX_SESSIONS_PER_CUSTOMER.
     */
    const makeRoom = (customerId: CustomerId) =>
      Effect.suspend(() => {
        if ((openByCustomer.get(customerId) ?? 0) < config.mcpMaxSessionsPerCustomer) return Effect.void
        let oldest: [string, HttpSession] | undefined
        for (const entry of httpSessions) {
          const session = entry[1]
          if (
            session.customerId === customerId && session.busy === 0 &&
            (oldest === undefined || session.lastSeen < oldest[1].lastSeen)
          ) {
            oldest = entry
          }
        }
        if (oldest === undefined) return refuse(new RateLimited(), 429, { "retry-after": String(fullRetrySeconds) })
        closeHttp(oldest[0])
        return Effect.void
      })

    // Streamable HTTP clients may leave without DELETE: sessions idle for MCP_SESSION_IDLE_MS are closed.
    const sweep = setInterval(() => {
      const cutoff = Date.now() - config.mcpSessionIdleMs
      for (const [id, session] of httpSessions) {
        if (session.busy === 0 && session.lastSeen < cutoff) closeHttp(id)
      }
    }, Math.min(60_000, Math.max(250, Math.floor(config.mcpSessionIdleMs / 4))))
    sweep.unref()
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        clearInterval(sweep)
        await modern.close()
        const servers = [...httpSessions.values()].map((s) => s.server)
        for (const id of [...httpSessions.keys()]) dropHttp(id)
        // Ending the SSE streams lets their responses finish rather than hold a graceful shutdown open.
        const streams = [...sseSessions.values()].map((s) => s.transport)
        await Promise.allSettled([
          ...servers.map((server) => server.close()),
          ...streams.map((transport) => transport.close())
        ])
      })
    )

    /** One SSE session: the endpoint event first, then the server's messages and keep-alive comments. */
    const sseStream = (auth: Authenticated) =>
      Stream.callback<string>((queue) =>
        Effect.acquireRelease(
          Effect.promise(async () => {
            Queue.offerUnsafe(queue, openingComment)
            const sessionId = newSessionId()
            const transport = new SseSessionTransport(
              sessionId,
              `${mcpPaths.message}?sessionId=${sessionId}`,
              (frame) => void Queue.offerUnsafe(queue, frame),
              () => void Queue.endUnsafe(queue)
            )
            const session: SseSession = {
              customerId: auth.principal.customerId,
              key: auth.key,
              keyId: auth.principal.keyId,
              transport,
              version: protocolVersions[protocolVersions.length - 1]
            }
            const server = makeMcpServer(runner, auth.principal, context, () => sessionId, () => session.version)
            addSse(sessionId, session)
            // Each session's keep-alives start at a random offset, so thousands of sessions opened together do not write in one burst.
            let keepAlive: ReturnType<typeof setTimeout> = setTimeout(() => {
              keepAlive = setInterval(() => Queue.offerUnsafe(queue, ": keep-alive\n\n"), config.mcpKeepAliveMs).unref()
              Queue.offerUnsafe(queue, ": keep-alive\n\n")
            }, Math.floor(Math.random() * config.mcpKeepAliveMs)).unref()
            transport.onclose = () => {
              clearTimeout(keepAlive)
              clearInterval(keepAlive)
              dropSse(sessionId)
            }
            await server.connect(transport)
            return server
          }),
          (server) => Effect.promise(() => server.close())
        )
      ).pipe(Stream.encodeText)

    yield* router.add("GET", mcpPaths.sse, (request) =>
      Effect.gen(function*() {
        const auth = yield* gate.authenticate(credentialOf(request), false)
        yield* gate.countMcp(auth.principal.customerId, false)
        yield* gate.checkOrigin(request)
        yield* makeRoom(auth.principal.customerId)
        return HttpServerResponse.stream(sseStream(auth), {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" }
        })
      }).pipe(Effect.catch(Effect.succeed)))

    yield* router.add("POST", mcpPaths.message, (request) =>
      Effect.gen(function*() {
        const q = request.url.indexOf("?")
        const params = new URLSearchParams(q === -1 ? "" : request.url.slice(q + 1))
        const credential = credentialOf(request)
        // A key on the message must be valid and the one that opened the session.
        const caller = credential._tag === "Missing" ? undefined : yield* gate.authenticate(credential, false)
        const session = sseSessions.get(params.get("sessionId") ?? "")
        if (session === undefined) return yield* refuse(new SessionNotFound(), 400)
        if (caller !== undefined && caller.principal.keyId !== session.keyId) return yield* notTheSessionsKey()
        // The session's own key, re-checked as REST checks a key on every request (once, when the message carries it).
        const owner = caller?.key === session.key ?
          caller :
          yield* gate.authenticate({ _tag: "Key", key: session.key }, false).pipe(
            Effect.tapError(() => Effect.promise(() => session.transport.close()))
          )
        yield* gate.countMcp(owner.principal.customerId, true)
        yield* gate.checkOrigin(request)
        const body = yield* readJson(request)
        session.version = negotiatedVersion(body) ?? session.version
        if (!session.transport.receive(withinProtocolRange(body))) {
          return yield* refuse(new ValidationError({ error: "Invalid body: not a JSON-RPC 2.0 message" }), 400)
        }
        return HttpServerResponse.text("Accepted", { status: 202 })
      }).pipe(Effect.catch(Effect.succeed)))

    const streamable = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const auth = yield* gate.authenticate(credentialOf(request), true)
        const customerId = auth.principal.customerId
        const isPost = request.method === "POST"
        yield* gate.countMcp(customerId, isPost)
        // The failure order of docs/api-rules.md: 429 and 401 before the 403 of a refused Origin.
        yield* gate.checkOrigin(request)
        const body = isPost ? withinProtocolRange(yield* readJson(request)) : undefined
        if (isPost && (yield* Effect.promise(() => isModernRequest(request.headers, body)))) {
          // Stateless: no session, so no cap and nothing to reclaim; the answer is the revision's own (errors included).
          let refused:
            | { readonly status: number; readonly body: unknown; readonly headers: Record<string, string> }
            | undefined
          const answer = yield* HttpEffect.fromWebHandler(async (web) => {
            const answer = await modern.serve(web, body, auth.principal)
            if (answer.status >= 400) {
              const headers: Record<string, string> = {}
              answer.headers.forEach((value, name) => {
                if (name !== "content-type" && name !== "content-length") headers[name] = value
              })
              refused = { status: answer.status, body: await answer.clone().json().catch(() => undefined), headers }
            }
            return openedAtOnce(answer)
          })
          // A refusal is answered as a JSON body the error middleware can read (and so leaves as the JSON-RPC error it is).
          return refused?.body === undefined
            ? answer
            : HttpServerResponse.jsonUnsafe(refused.body, { status: refused.status, headers: refused.headers })
        }
        const sessionId = request.headers["mcp-session-id"]
        let session: HttpSession | undefined
        if (sessionId !== undefined) {
          session = httpSessions.get(sessionId)
          if (session === undefined) {
            // 404 tells a Streamable HTTP client to start a new session.
            return yield* refuse(
              new NotFound({ error: "Session not found — send initialize to /mcp for a new session" }),
              404
            )
          }
          if (session.keyId !== auth.principal.keyId) return yield* notTheSessionsKey()
        } else if (!isPost) {
          return yield* refuse(new ValidationError({ error: "Invalid header.mcp-session-id: required" }), 400)
        } else {
          yield* makeRoom(customerId)
          session = newHttpSession(auth, negotiatedVersion(body) ?? protocolVersions[0])
        }
        const { transport } = session
        const tracked = session
        let refusal: SdkRefusal | undefined
        tracked.busy++
        tracked.lastSeen = Date.now()
        let done = false
        const settled = () => {
          if (done) return
          done = true
          tracked.busy--
          tracked.lastSeen = Date.now()
        }
        const response = yield* HttpEffect.fromWebHandler(async (web) => {
          const answer = await transport.handleRequest(web, { parsedBody: body }).catch((error: unknown) => {
            settled()
            throw error
          })
          refusal = await sdkRefusal(answer)
          // A stream (the standing GET stream, or a POST answered as events) keeps the session busy until it ends.
          return openedAtOnce(answer, settled)
        }).pipe(Effect.onInterrupt(() => Effect.sync(settled)))
        if (sessionId === undefined && transport.sessionId === undefined) {
          // Not an initialize request: the SDK refused it and no session began.
          yield* Effect.promise(() => session.server.close())
        }
        if (refusal !== undefined) return yield* refuse(refusal.error, refusal.status, refusal.headers)
        return response
      }).pipe(Effect.catch((error) =>
        HttpServerResponse.isHttpServerResponse(error) ? Effect.succeed(error) : Effect.die(error)
      ))

    const newHttpSession = (auth: Authenticated, version: string): HttpSession => {
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: newSessionId,
        keepAliveMs: config.mcpKeepAliveMs,
        onsessioninitialized: (id) =>
          addHttp(id, session),
        onsessionclosed: (id) => void dropHttp(id)
      })
      const server: Server = makeMcpServer(runner, auth.principal, context, () =>
        transport.sessionId, () =>
        session.version)
      const session: HttpSession = {
        customerId: auth.principal.customerId,
        keyId: auth.principal.keyId,
        transport,
        server,
        lastSeen: Date.now(),
        busy: 0,
        version
      }
      transport.onclose = () => {
        if (transport.sessionId !== undefined) {
          dropHttp(transport.sessionId)
        }
      }
      void server.connect(transport)
      return session
    }

    for (const method of ["GET", "POST", "DELETE"] as const) {
      yield* router.add(method, mcpPaths.streamable, streamable)
    }
  })
)
