import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { TeamDashboardRoutes, teamSection } from "./dashboard.ts"
import { Team } from "./Team.ts"

/** Team members and their keys. */
export const TeamServices = Team.layer.pipe(Layer.provide([CustomersLive, PlatformServices]))

/** The team in the app: the service, its dashboard section and the invitation form's route. */
export const TeamLive = Layer.mergeAll(
  TeamDashboardRoutes,
  DashboardSections.register(Effect.map(Effect.service(Team), teamSection))
).pipe(
  Layer.provideMerge(TeamServices),
  Layer.provide([DashboardServices, PlatformServices])
)
