import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { reportsSection } from "./dashboard.ts"
import { Reports } from "./Reports.ts"

/** The reports service, for tests that drive it directly. */
export const ReportsServices = Reports.layer.pipe(Layer.provide(PlatformServices))

/** Reports in the app: the service and its dashboard section. */
export const ReportsLive = DashboardSections.register(Effect.map(Effect.service(Reports), reportsSection)).pipe(
  Layer.provideMerge(ReportsServices),
  Layer.provide(DashboardServices)
)
