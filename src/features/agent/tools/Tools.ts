import { Layer } from "effect"
import { Ga4 } from "./Ga4.ts"
import {
  aiSeoAuditTool,
  analyzeBrandUrlTool,
  askCmoTool,
  checkAiVisibilityTool,
  croAuditTool,
  generateLeadMagnetTool,
  publishToSocialTool,
  queryGa4Tool,
  runContentCreationTool,
  runResearchTool,
  scheduleContentTool,
  trackRevenueTool
} from "./handlers.ts"
import { ToolRunner } from "./Registry.ts"
import { ToolsRepo } from "./Repo.ts"

/**
 * The tools this server runs: all twelve. Each entry names the services its
 * handler calls (taken once, when the runner is built). A tool left out of
 * this list would still be listed by discovery (not available) and answer
 * E_TOOL_UNAVAILABLE. To add one:
 * `implement(definition, Effect.gen(function*() { const s = yield* Service; return (input, ctx) => ... }))`
 * in handlers.ts, append it here, and provide its service to `ToolsLive`.
 */
export const runnableTools = [
  runResearchTool,
  runContentCreationTool,
  askCmoTool,
  scheduleContentTool,
  publishToSocialTool,
  generateLeadMagnetTool,
  aiSeoAuditTool,
  croAuditTool,
  queryGa4Tool,
  trackRevenueTool,
  checkAiVisibilityTool,
  analyzeBrandUrlTool
] as const

/**
 * The registry's runner with the services of the tools above. Ga4 and the
 * tools' own repository are provided here; the domain services (Content,
 * Social, Links, Scanner, Onboarding, Settings, Customers), the language model
 * and Workflows come from the app (App.ts `Services` and `WorkflowsLive`).
 */
export const ToolsLive = ToolRunner.make(runnableTools).pipe(
  Layer.provide(Layer.mergeAll(Ga4.layer, ToolsRepo.layer))
)
