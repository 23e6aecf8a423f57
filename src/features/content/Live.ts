import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { SettingsServices } from "../settings/Live.ts"
import { Content } from "./Content.ts"
import { ContentDashboardRoutes, queueSection, recentSection } from "./dashboard.ts"

/**
 * Content, for the features that write or read pieces. It queues pieces
 * through the platform's publish queue, which the social feature implements:
 * the app provides that (App.ts), since social itself stands on content.
 */
export const ContentServices = Content.layer.pipe(Layer.provide([SettingsServices, PlatformServices]))

/** Content in the app: the service, the approval queue and recent content on the dashboard, and the review form's route. */
export const ContentLive = Layer.mergeAll(
  ContentDashboardRoutes,
  DashboardSections.register(Effect.map(Effect.service(Content), queueSection)),
  DashboardSections.register(Effect.map(Effect.service(Content), recentSection))
).pipe(
  Layer.provideMerge(ContentServices),
  Layer.provide([DashboardServices, PlatformServices])
)
