import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { Scanner } from "./Scanner.ts"

/** The site scanner, over its repository and the page pool's browser. */
export const ScanLive = Scanner.layerLive.pipe(Layer.provide(PlatformServices))
