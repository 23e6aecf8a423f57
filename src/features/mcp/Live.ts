import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { McpRoutes } from "./http.ts"

/** MCP in the app: its endpoints over the tool runner the app provides (App.ts). */
export const McpLive = McpRoutes.pipe(Layer.provide(PlatformServices))
