import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { WebhookDispatcherLive } from "./Dispatcher.ts"
import { Webhooks } from "./Webhooks.ts"

/** The webhooks service, for the features that read or change endpoints. */
export const WebhooksServices = Webhooks.layer.pipe(Layer.provide([CustomersLive, PlatformServices]))

/** Webhooks in the app: the service and the dispatcher that delivers the outbox's events. */
export const WebhooksLive = WebhookDispatcherLive.pipe(
  Layer.provideMerge(WebhooksServices),
  Layer.provide(PlatformServices)
)
