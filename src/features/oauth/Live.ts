import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { connectedAppsSection } from "./dashboard.ts"
import { OAuthRoutes } from "./http.ts"
import { AccessTokensLive, CodeSweepLive, OAuth } from "./OAuth.ts"

/** The authorization server's service, for tests that drive it directly. */
export const OauthServices = OAuth.layer.pipe(Layer.provide(PlatformServices))

/**
 * Sign-in for assistants in the app: the service, its endpoints and consent
 * page, the token resolver the request pipeline asks, the hourly sweep of
 * codes that are over, and the dashboard's "Connected apps" section.
 */
export const OauthLive = Layer.mergeAll(
  OAuthRoutes,
  AccessTokensLive,
  CodeSweepLive,
  DashboardSections.register(Effect.map(Effect.service(OAuth), connectedAppsSection))
).pipe(Layer.provideMerge(OauthServices), Layer.provide([DashboardServices, PlatformServices]))
