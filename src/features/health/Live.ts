import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { Health } from "./Health.ts"

/** The health service, for the status page and the dashboard. */
export const HealthServices = Health.layer.pipe(Layer.provide(PlatformServices))

/** Health in the app: the service and the prober, which probes once before the server listens. */
export const HealthLive = Health.prober.pipe(Layer.provideMerge(HealthServices))
