import { Layer } from "effect"
import { AgentLive } from "./features/agent/Live.ts"
import { askCmoTool } from "./features/agent/tools.ts"
import { Ga4 } from "./features/analytics/Ga4.ts"
import { OwnFiguresRepo } from "./features/analytics/OwnFiguresRepo.ts"
import { queryGa4Tool } from "./features/analytics/tools.ts"
import { ContentServices } from "./features/content/Live.ts"
import { runContentCreationTool } from "./features/content/tools.ts"
import { CustomersLive } from "./features/customers/Live.ts"
import { OnboardingLive } from "./features/onboarding/Live.ts"
import { analyzeBrandUrlTool } from "./features/onboarding/tools.ts"
import { ReportsServices } from "./features/reports/Live.ts"
import { ScanLive } from "./features/scan/Live.ts"
import { aiSeoAuditTool, checkAiVisibilityTool, croAuditTool } from "./features/scan/tools.ts"
import { SettingsServices } from "./features/settings/Live.ts"
import { SocialServices } from "./features/social/Live.ts"
import { publishToSocialTool, scheduleContentTool, trackRevenueTool } from "./features/social/tools.ts"
import { WorkflowsServices } from "./features/workflows/Live.ts"
import { generateLeadMagnetTool, runResearchTool } from "./features/workflows/tools.ts"
import { PlatformServices } from "./platform/Platform.ts"
import { ToolRunner } from "./platform/tools/ToolRunner.ts"

/**
 * The tools this server runs: all twelve, each handled by the feature that
 * owns what it does (a feature's `tools.ts`, as its `http.ts` holds its REST
 * handlers). A tool left out of this list is still listed by discovery (not
 * available) and answers E_TOOL_UNAVAILABLE. To add one: its definition in
 * `api/tools/definitions.ts`, `implement(definition, ...)` in the feature's
 * `tools.ts`, an entry here.
 */
export const runnableTools = [
  runResearchTool,
  runContentCreationTool,
  // ask_cmo's model may call the read-only tools named here, never ask_cmo itself.
  askCmoTool([queryGa4Tool]),
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
 * The runner over the tools above, for MCP, chat and discovery, with the
 * services its handlers call (Ga4 and the analytics figures repository are
 * the tools' own).
 */
export const ToolsLive = ToolRunner.make(runnableTools).pipe(
  Layer.provide(Layer.mergeAll(Ga4.layer, OwnFiguresRepo.layer)),
  Layer.provide([
    AgentLive,
    ContentServices,
    CustomersLive,
    OnboardingLive,
    ReportsServices,
    ScanLive,
    SettingsServices,
    SocialServices,
    WorkflowsServices,
    PlatformServices
  ])
)
