import { NodeRuntime } from "@effect/platform-node"
import { Cause, Config, Data, Effect, Exit, Layer, Runtime } from "effect"
import { SqlError } from "effect/sql"
import { describeConfigError } from "./Config.ts"
import { App } from "./server/App.ts"

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

Layer.launch(App).pipe(
  Effect.catchIf(
    (error): error is Config.ConfigError => error instanceof Config.ConfigError,
    (error) =>
      Effect.andThen(
        Effect.sync(() => process.stderr.write(`Invalid configuration: ${describeConfigError(error)}\n`)),
        Effect.fail(new StartupRefused())
      )
  ),
  // The database still unreachable after start-up's wait, or refusing a migration.
  Effect.catchIf(SqlError.isSqlError, (error) =>
    Effect.andThen(
      Effect.sync(() => process.stderr.write(`Database unavailable at start: ${error.message} (${String(error.cause.cause)})\n`)),
      Effect.fail(new StartupRefused())
    )),
  NodeRuntime.runMain({ teardown })
)
