import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { SettingsServices } from "../settings/Live.ts"
import { LanguageModelLive, Writer } from "./Agent.ts"

/** The language model LLM_PROVIDER names, charged to the budget, and the Writer over it. */
export const AgentLive = Writer.layer.pipe(
  Layer.provideMerge(LanguageModelLive),
  Layer.provide([SettingsServices, PlatformServices])
)
