import { Layer } from "effect"
import { HealthServices } from "../health/Live.ts"
import { AssetRoutes } from "./Assets.ts"
import { PublicRoutes } from "./Public.ts"

/** The public pages and their assets. */
export const PagesLive = Layer.mergeAll(AssetRoutes, PublicRoutes).pipe(Layer.provide(HealthServices))
