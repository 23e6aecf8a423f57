import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { SettingsLive } from "../settings/Live.ts"
import { Content } from "./Content.ts"

/**
 * Content. It queues pieces through the platform's publish queue, which the
 * social feature implements: the app provides that (App.ts), since social
 * itself stands on content.
 */
export const ContentLive = Content.layer.pipe(Layer.provide([SettingsLive, PlatformServices]))
