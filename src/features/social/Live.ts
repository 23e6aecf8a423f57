import { Effect, Layer } from "effect"
import { AppConfig } from "../../Config.ts"
import { PlatformServices } from "../../platform/Platform.ts"
import { ContentServices } from "../content/Live.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { SettingsServices } from "../settings/Live.ts"
import { SocialDashboardRoutes, socialSection } from "./dashboard.ts"
import { Links } from "./Links.ts"
import { SocialPageRoutes } from "./pages.ts"
import { AyrshareProviderLive } from "./providers/ayrshare.ts"
import { SandboxProviderLive } from "./providers/sandbox.ts"
import { SocialPublisherLive } from "./Publisher.ts"
import { Social } from "./Social.ts"

/** The social provider SOCIAL_PROVIDER names: the local sandbox (default) or Ayrshare. */
const SocialProviderLive = Layer.unwrap(
  Effect.map(AppConfig, (config) => config.socialProvider === "ayrshare" ? AyrshareProviderLive : SandboxProviderLive)
)

/** Social accounts, posting through the provider, and tracked links, for the features that post. */
export const SocialServices = Layer.mergeAll(Social.layer, Links.layer).pipe(
  Layer.provideMerge(SocialProviderLive),
  Layer.provide([ContentServices, SettingsServices, PlatformServices])
)

/** Social in the app: its services, the publisher, the sandbox and link pages, and its dashboard section and routes. */
export const SocialLive = Layer.mergeAll(
  SocialPublisherLive,
  SocialPageRoutes,
  SocialDashboardRoutes,
  DashboardSections.register(Effect.map(Effect.service(Social), socialSection))
).pipe(
  Layer.provideMerge(SocialServices),
  Layer.provide([ContentServices, DashboardServices, PlatformServices])
)
