import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { statusSection } from "./dashboard.ts"
import { Health } from "./Health.ts"

/** The health service, for the status page and the dashboard. */
export const HealthServices = Health.layer.pipe(Layer.provide(PlatformServices))

/** Health in the app: the service, the prober (which probes once before the server listens) and the status section. */
export const HealthLive = Layer.mergeAll(
  Health.prober,
  DashboardSections.register(Effect.map(Effect.service(Health), statusSection))
).pipe(
  Layer.provideMerge(HealthServices),
  Layer.provide(DashboardServices)
)
