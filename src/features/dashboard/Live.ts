import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { accountSection } from "./account.ts"
import { Dashboard, DashboardSections } from "./Dashboard.ts"
import { DashboardRoutes } from "./pages.ts"
import { DashboardAuth } from "./Session.ts"

/**
 * The dashboard's page, its sign-in and the one registry of sections, for
 * the features that add a section (`DashboardSections.register`) or a route
 * behind the dashboard's session.
 */
export const DashboardServices = Layer.mergeAll(Dashboard.layer, DashboardAuth.layer).pipe(
  Layer.provideMerge(DashboardSections.layer),
  Layer.provide([CustomersLive, PlatformServices])
)

/** The dashboard in the app: its pages and the account section, which no capability owns. */
export const DashboardLive = Layer.mergeAll(DashboardRoutes, DashboardSections.register(Effect.succeed(accountSection)))
  .pipe(
    Layer.provideMerge(DashboardServices),
    Layer.provide(PlatformServices)
  )
