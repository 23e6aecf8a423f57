import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { Budget } from "./Budget.ts"
import { Settings } from "./Settings.ts"

/** Settings and the spending budget that stands on them. */
export const SettingsLive = Budget.layer.pipe(
  Layer.provideMerge(Settings.layer),
  Layer.provide([CustomersLive, PlatformServices])
)
