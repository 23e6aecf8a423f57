import { Effect, Layer, Logger, References } from "effect"
import { AppConfig } from "../Config.ts"
import { Budget } from "./Budget.ts"
import { Content } from "./Content.ts"
import { Cursors } from "./Cursor.ts"
import { Settings } from "./Settings.ts"
import { DatabaseLive } from "./Database.ts"
import { Customers } from "./Customers.ts"
import { Events } from "./Events.ts"
import { Health } from "./Health.ts"
import { Idempotency } from "./Idempotency.ts"
import { Outbox } from "./Outbox.ts"
import { HttpServerLive } from "./Http.ts"
import { RateLimits } from "./RateLimits.ts"
import { Team } from "./Team.ts"
import { WebhookDispatcher } from "./WebhookDispatcher.ts"
import { Webhooks } from "./Webhooks.ts"

const LoggingLive = Layer.unwrap(Effect.map(AppConfig, (config) =>
  Layer.mergeAll(
    Logger.layer([Logger.consoleJson]),
    Layer.succeed(References.MinimumLogLevel, config.logLevel === "none" ? "None" : capitalize(config.logLevel)),
    // No tracer is exported: spans (one per Effect.fn call) would be timed and dropped.
    Layer.succeed(References.TracerEnabled, false)
  )
))

const capitalize = <S extends string>(s: S) => (s.charAt(0).toUpperCase() + s.slice(1)) as Capitalize<S>

/** Domain services shared by the HTTP routes and the background fibers. */
export const Services = Layer.mergeAll(Team.layer, Content.layer, Budget.layer, Webhooks.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(Settings.layer, Cursors.layer)),
  Layer.provideMerge(Customers.layer),
  Layer.provideMerge(Layer.mergeAll(Health.layer, Events.layer, Idempotency.layer, Outbox.layer)),
  Layer.provideMerge(Layer.mergeAll(DatabaseLive, RateLimits.layer))
)

/** The whole service: probes once before it listens, then serves. */
export const AppWithoutConfig = HttpServerLive.pipe(
  Layer.provide(Health.prober),
  Layer.provide(WebhookDispatcher),
  Layer.provide(Idempotency.sweeper),
  Layer.provideMerge(Services),
  Layer.provideMerge(LoggingLive)
)

export const App = AppWithoutConfig.pipe(Layer.provide(AppConfig.layer))
