import { Effect, Layer, Option, Redacted } from "effect"
import { Services } from "../../src/App.ts"
import { AppConfig, appConfig } from "../../src/Config.ts"
import { testDatabaseUrl } from "./harness.ts"

/**
 * The domain services (and their SqlClient) on a fresh database, without the
 * HTTP server: for the methods later features call directly (agent-created
 * content, publishing, budget charges).
 */
export const testServices = Layer.unwrap(Effect.gen(function*() {
  const databaseUrl = yield* testDatabaseUrl
  const base = yield* appConfig.pipe(Effect.orDie)
  return Services.pipe(Layer.provideMerge(Layer.succeed(AppConfig, {
    ...base,
    logLevel: "none",
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    redisUrl: Option.none()
  })))
}))
