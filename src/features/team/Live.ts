import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { Team } from "./Team.ts"

/** Team members and their keys. */
export const TeamLive = Team.layer.pipe(Layer.provide([CustomersLive, PlatformServices]))
