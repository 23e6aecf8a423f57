import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { Analytics } from "./Analytics.ts"
import { analyticsSection } from "./dashboard.ts"

/** The analytics service, for the features that report figures. */
export const AnalyticsServices = Analytics.layer.pipe(Layer.provide(PlatformServices))

/** Analytics in the app: the service and its dashboard section. */
export const AnalyticsLive = DashboardSections.register(Effect.map(Effect.service(Analytics), analyticsSection)).pipe(
  Layer.provideMerge(AnalyticsServices),
  Layer.provide(DashboardServices)
)
