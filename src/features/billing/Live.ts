import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { Billing } from "./Billing.ts"
import { CheckoutRoutes } from "./pages.ts"

/** The billing service, for tests that drive it directly. */
export const BillingServices = Billing.layer.pipe(Layer.provide([CustomersLive, PlatformServices]))

/** Billing in the app: the service, the sweep of ended trials and the checkout pages. */
export const BillingLive = Layer.mergeAll(Billing.trialSweeper, CheckoutRoutes).pipe(
  Layer.provideMerge(BillingServices)
)
