import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { Customers } from "./Customers.ts"

/** Customers: accounts and their keys. */
export const CustomersLive = Customers.layer.pipe(Layer.provide(PlatformServices))
