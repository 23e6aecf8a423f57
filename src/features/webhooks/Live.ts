import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { WebhooksDashboardRoutes, webhooksSection } from "./dashboard.ts"
import { WebhookDispatcherLive } from "./Dispatcher.ts"
import { Webhooks } from "./Webhooks.ts"

/** The webhooks service, for the features that read or change endpoints. */
export const WebhooksServices = Webhooks.layer.pipe(Layer.provide([CustomersLive, PlatformServices]))

/**
 * Webhooks in the app: the service, the dispatcher that delivers the
 * outbox's events, the dashboard's section and its recovery form's route.
 */
export const WebhooksLive = Layer.mergeAll(
  WebhookDispatcherLive,
  WebhooksDashboardRoutes,
  DashboardSections.register(Effect.map(Effect.service(Webhooks), webhooksSection))
).pipe(
  Layer.provideMerge(WebhooksServices),
  Layer.provide([DashboardServices, PlatformServices])
)
