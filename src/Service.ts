import { NodeRuntime } from "@effect/platform-node"
import { Cause, Config, Data, Effect, Exit, Layer, Runtime } from "effect"
import { SqlError } from "effect/sql"
import { AppConfig, appConfig, describeConfigError } from "./Config.ts"
import { DataDirFull } from "./platform/DiskGuard.ts"

/** Start-up refused for a reason already printed; exits 1 without a stack dump. */
class StartupRefused extends Data.TaggedError("StartupRefused") {
  override readonly [Runtime.errorReported] = false
}

/**
 * SIGTERM / SIGINT interrupt the server, which then drains and closes: that
 * is the normal way to stop, so it exits 0 (the default would be 130).
 */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

/** The listening socket's error, when start-up failed on it (port in use, no permission). */
const listenFailure = (error: unknown): NodeJS.ErrnoException | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") return current as NodeJS.ErrnoException
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

const listenMessage = (
  error: NodeJS.ErrnoException,
  { port, host }: { readonly port: number; readonly host: string }
): string => {
  return error.code === "EADDRINUSE"
    ? `Port ${port} is already in use on ${host}: stop the process using it or set PORT to another port\n`
    : error.code === "EACCES"
    ? `Port ${port} on ${host} needs privileges this process lacks: set PORT above 1023\n`
    : `Cannot listen on ${host}:${port}: the address is not available here (set HOST)\n`
}

/**
 * Starts the service and runs it until SIGTERM/SIGINT. `extra` is what a test
 * entry point adds (test/support/crash-main.ts); `src/main.ts` adds nothing.
 */
export const runService = async (extra: Layer.Layer<never> = Layer.empty) => {
  // Settings are checked before the application's modules load (most of start-up
  // on a busy machine): a bad one stops the process at once, with one line.
  const configured = await Effect.runPromiseExit(appConfig)
  if (Exit.isFailure(configured)) {
    const error = Cause.findErrorOption(configured.cause)
    process.stderr.write(
      `Invalid configuration: ${
        error._tag === "Some" ? describeConfigError(error.value) : Cause.pretty(configured.cause)
      }\n`
    )
    process.exit(1)
  }
  const { AppLive } = await import("./App.ts")
  // The settings read above are the app's: the environment is not read a second time.
  const App = AppLive.pipe(Layer.provide(Layer.succeed(AppConfig, configured.value)), Layer.provide(extra))

  Layer.launch(App).pipe(
    Effect.catchIf(
      (error) => listenFailure(error) !== undefined,
      (error) =>
        Effect.andThen(
          Effect.sync(() => process.stderr.write(listenMessage(listenFailure(error)!, configured.value))),
          Effect.fail(new StartupRefused())
        )
    ),
    Effect.catchIf(
      (error): error is Config.ConfigError => error instanceof Config.ConfigError,
      (error) =>
        Effect.andThen(
          Effect.sync(() => process.stderr.write(`Invalid configuration: ${describeConfigError(error)}\n`)),
          Effect.fail(new StartupRefused())
        )
    ),
    Effect.catchIf(
      (error): error is DataDirFull => error instanceof DataDirFull,
      (error) =>
        Effect.andThen(Effect.sync(() => process.stderr.write(`${error.message}\n`)), Effect.fail(new StartupRefused()))
    ),
    // The database still unreachable after start-up's wait, or refusing a migration.
    Effect.catchIf(SqlError.isSqlError, (error) =>
      Effect.andThen(
        Effect.sync(() =>
          process.stderr.write(`Database unavailable at start: ${error.message} (${String(error.cause.cause)})\n`)
        ),
        Effect.fail(new StartupRefused())
      )),
    NodeRuntime.runMain({ teardown })
  )
}
