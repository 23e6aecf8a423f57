/**
 * Pieces the bench scripts share: the app started in-process, a bare
 * `node:http` server beside it, autocannon runs and the script's ending.
 */
import { Context, Effect, Layer, Option, Scope } from "effect"
import { HttpServer } from "effect/http"
import { createServer, type RequestListener } from "node:http"
import { createRequire } from "node:module"
import { AppLive } from "../../src/App.ts"
import { AppConfig, appConfig, type AppConfigShape } from "../../src/Config.ts"

// autocannon ships no type declarations.
const autocannon = createRequire(import.meta.url)("autocannon") as (
  options: Record<string, unknown>,
  callback: (error: unknown, result: any) => void
) => unknown

/** One autocannon run, reduced to the figures the benches print. */
export interface Result {
  readonly name: string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  readonly total: number
}

/** Runs autocannon with `options` (url, connections, duration, ...) and labels the result `name`. */
export const load = (name: string, options: Record<string, unknown>) =>
  Effect.promise(() =>
    new Promise<Result>((resolve, reject) => {
      autocannon(options, (error, result) => {
        if (error) return reject(error)
        resolve({
          name,
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          total: result.requests.total
        })
      })
    })
  )

/**
 * Starts the whole app in this process on a random loopback port, without
 * Redis and with no log lines unless `overrides` say otherwise. Returns its
 * services, the settings it runs with and its URL; it stops with the scope.
 */
export const startApp = (overrides: Partial<AppConfigShape>) =>
  Effect.gen(function*() {
    const base = yield* Effect.orDie(appConfig)
    const config: AppConfigShape = {
      ...base,
      port: 0,
      host: "127.0.0.1",
      logLevel: "none",
      redisUrl: Option.none(),
      ...overrides
    }
    const context = yield* Layer.buildWithScope(
      AppLive.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config))),
      yield* Scope.Scope
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") return yield* Effect.die("expected an internet address")
    return { context, config, url: `http://127.0.0.1:${address.port}` }
  })

/** Listens `handler` on a random loopback port until the scope closes; returns its URL. */
export const listenBare = (handler: RequestListener) =>
  Effect.gen(function*() {
    const server = createServer(handler)
    yield* Effect.acquireRelease(
      Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))),
      () => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
    )
    const address = server.address()
    return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
  })

/** Runs the script's program in a scope, then exits: 0, or 1 after printing the error. */
export const runScript = <E>(program: Effect.Effect<void, E, Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(program)).then(
    () => process.exit(0),
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
