import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { ContentLive } from "../content/Live.ts"
import { CustomersLive } from "../customers/Live.ts"
import { HealthServices } from "../health/Live.ts"
import { SettingsLive } from "../settings/Live.ts"
import { TeamLive } from "../team/Live.ts"
import { WebhooksServices } from "../webhooks/Live.ts"
import { Dashboard, DashboardSections } from "./Dashboard.ts"
import { DashboardRoutes } from "./pages.ts"
import { CoreSectionsLive } from "./sections.ts"
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

/** The dashboard in the app: its pages and its built-in sections. */
export const DashboardLive = Layer.mergeAll(DashboardRoutes, CoreSectionsLive).pipe(
  Layer.provideMerge(DashboardServices),
  Layer.provide([ContentLive, HealthServices, SettingsLive, TeamLive, WebhooksServices, PlatformServices])
)
