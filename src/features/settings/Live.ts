import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { Budget } from "./Budget.ts"
import { SettingsDashboardRoutes, settingsSection } from "./dashboard.ts"
import { Settings } from "./Settings.ts"

/** Settings and the spending budget that stands on them, for the features that read or spend. */
export const SettingsServices = Budget.layer.pipe(
  Layer.provideMerge(Settings.layer),
  Layer.provide([CustomersLive, PlatformServices])
)

/** Settings in the app: the services, the autonomy and budget section and its forms' routes. */
export const SettingsLive = Layer.mergeAll(
  SettingsDashboardRoutes,
  DashboardSections.register(Effect.map(Effect.service(Settings), settingsSection))
).pipe(
  Layer.provideMerge(SettingsServices),
  Layer.provide([DashboardServices, PlatformServices])
)
