import { PgClient } from "@effect/sql-pg"
import { Cause, Clock, Context, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { createServer } from "node:net"
import { AppLive } from "../../src/App.ts"
import { AppConfig, appConfig, type AppConfigShape } from "../../src/Config.ts"

// Vite exports BASE_URL="/" into the environment; the app reads BASE_URL as its own.
delete process.env.BASE_URL

/**
 * The running application under test: its base URL, its config, its own SQL
 * client (to check what it stored) and its services (to drive one directly,
 * e.g. under a test clock).
 */
export class TestServer extends Context.Service<TestServer, {
  readonly url: string
  readonly config: AppConfigShape
  readonly sql: SqlClient.SqlClient
  readonly services: Context.Context<Layer.Success<typeof AppLive>>
}>()("test/TestServer") {}

/** The PostgreSQL URL of the suite run, when it runs against a real server. */
export const externalDatabaseUrl = (): string | undefined => {
  const url = process.env.DATABASE_URL
  return url !== undefined && url.startsWith("postgres") ? url : undefined
}

/** A fresh, empty schema on the external PostgreSQL for one test file. */
export const freshSchemaUrl = (baseUrl: string) =>
  Effect.gen(function*() {
    const schema = `t_${randomBytes(6).toString("hex")}`
    const run = (statement: string) =>
      Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        yield* sql.unsafe(statement).raw
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(baseUrl), maxConnections: 1 })), Effect.orDie)
    yield* Effect.acquireRelease(run(`CREATE SCHEMA ${schema}`), () =>
      run(`DROP SCHEMA ${schema} CASCADE`).pipe(Effect.ignore))
    const url = new URL(baseUrl)
    url.searchParams.set("options", `-c search_path=${schema}`)
    return url.toString()
  })

/**
 * A free loopback TCP port for a server that binds it later (a child process, a restart on the
 * same port). Drawn below the kernel's ephemeral range (32768 and up on Linux): a port the kernel
 * handed out by `listen(0)` and took back could be handed out again, to another test's server or
 * to an outgoing connection, in the seconds before the child binds it. Below the range only
 * another pick from this function can collide, and the probe's bind rules out one already bound.
 */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0;; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    const bound = await new Promise<boolean>((resolve) => {
      const probe = createServer()
      probe.once("error", () => resolve(false))
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)))
    })
    if (bound) return port
    if (attempt >= 50) throw new Error("no free loopback port found in 50 tries")
  }
}

/** The database a test app should use: a fresh PG schema, or an in-memory PGlite. */

export const testDatabaseUrl = Effect.suspend(() => {
  const external = externalDatabaseUrl()
  return external === undefined ? Effect.succeed("pglite://memory") : freshSchemaUrl(external)
})

/** The settings of an app under test on `port` over `databaseUrl`, with `overrides` applied. */
export const testConfig = (databaseUrl: string, port: number, overrides: Partial<AppConfigShape> = {}) =>
  Effect.map(appConfig.pipe(Effect.orDie), (base): AppConfigShape => ({
    ...base,
    port,
    host: "127.0.0.1",
    baseUrl: `http://127.0.0.1:${port}`,
    logLevel: "none",
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    redisUrl: Option.none(),
    adminSecret: Option.some(Redacted.make("test-admin-secret")),
    allowPrivateTargets: true,
    // One process per test app: its workflow runners in memory. The SQL runner storage takes PostgreSQL
    // advisory locks, which are database-wide, so apps of test files running side by side on their own
    // schemas would hold each other's shards (the multi-process tests start real processes with SQL runners).
    workflowRunnerStorage: Option.some("memory"),
    ...overrides
  }))

/**
 * Starts the whole application on a random loopback port. `overrides` replace
 * settings; `databaseUrl` (default: a fresh database) may point elsewhere.
 */
export const testApp = (overrides: Partial<AppConfigShape> & { readonly database?: string } = {}) =>
  Layer.effect(
    TestServer,
    Effect.gen(function*() {
      const databaseUrl = overrides.database ?? (yield* testDatabaseUrl)
      const { database: _, ...rest } = overrides
      const scope = yield* Scope.Scope
      // The port is chosen first so the app's own BASE_URL (in links, the OpenAPI servers and
      // WWW-Authenticate) is the address the tests call. Another process can take it before the app
      // listens (start-up takes a while): then the app is started again on another port.
      for (let attempt = 1;; attempt++) {
        const config = yield* testConfig(databaseUrl, yield* Effect.promise(freePort), rest)
        const child = yield* Scope.fork(scope)
        // @effect/vitest hands layers a TestClock; the app's prober, dispatcher and
        // rate-limit windows must run on real time, whatever the test file asks for.
        const built = yield* Effect.exit(
          Layer.buildWithScope(
            AppLive.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config))),
            child
          ).pipe(Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()))
        )
        if (Exit.isFailure(built)) {
          yield* Scope.close(child, built)
          if (attempt < 3 && Cause.pretty(built.cause).includes("EADDRINUSE")) continue
          return yield* Effect.failCause(built.cause)
        }
        const context = built.value
        const server = Context.get(context, HttpServer.HttpServer)
        const address = server.address
        if (address._tag === "UnixPathAddress") return yield* Effect.die("expected an internet address")
        return {
          url: `http://127.0.0.1:${address.port}`,
          config,
          sql: Context.get(context, SqlClient.SqlClient),
          services: context
        }
      }
    })
  )

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

export interface CallOptions {
  readonly headers?: Record<string, string>
  readonly body?: unknown
  /** Send `body` as is rather than as JSON (bytes as given when it is a Uint8Array). */
  readonly raw?: boolean
}

/** One HTTP request to the app under test. */
export const call = (method: string, path: string, options: CallOptions = {}) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    return yield* Effect.promise(() => send(url, method, path, options))
  })

export const send = async (
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {}
): Promise<Reply> => {
  const headers: Record<string, string> = { ...options.headers }
  let body: string | Uint8Array | undefined
  if (options.body !== undefined) {
    body = options.raw !== true
      ? JSON.stringify(options.body)
      : options.body instanceof Uint8Array
      ? options.body
      : String(options.body)
    if (options.raw !== true && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
      headers["content-type"] = "application/json"
    }
  }
  const response = await fetch(baseUrl + path, {
    method,
    headers,
    redirect: "manual",
    ...(body === undefined ? {} : { body })
  })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}
