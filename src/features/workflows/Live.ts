import { Effect, Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { AgentLive } from "../agent/Live.ts"
import { AnalyticsServices } from "../analytics/Live.ts"
import { ContentServices } from "../content/Live.ts"
import { CustomersLive } from "../customers/Live.ts"
import { DashboardSections } from "../dashboard/Dashboard.ts"
import { DashboardServices } from "../dashboard/Live.ts"
import { OnboardingLive } from "../onboarding/Live.ts"
import { ReportsServices } from "../reports/Live.ts"
import { ScanLive } from "../scan/Live.ts"
import { SocialServices } from "../social/Live.ts"
import { WorkflowDashboardRoutes, workflowsSection } from "./dashboard.ts"
import { WorkflowEngineLive } from "./Engine.ts"
import { RunLifecycle } from "./Lifecycle.ts"
import { workflowLoops } from "./Loops.ts"
import { OrchestratorRoutes } from "./Orchestrator.ts"
import { WorkflowsRepo } from "./Repo.ts"
import { HeraldRunLive } from "./Run.ts"
import { Workflows } from "./Workflows.ts"

/**
 * The durable engine, the run workflow registered on it and the service, over
 * the services the catalog's steps call: for the tools and the routes.
 */
export const WorkflowsServices = HeraldRunLive.pipe(
  Layer.provideMerge(Workflows.layer),
  Layer.provideMerge(RunLifecycle.layer),
  Layer.provideMerge(WorkflowsRepo.layer),
  Layer.provideMerge(WorkflowEngineLive),
  Layer.provide([
    AgentLive,
    AnalyticsServices,
    ContentServices,
    CustomersLive,
    OnboardingLive,
    ReportsServices,
    ScanLive,
    SocialServices,
    PlatformServices
  ])
)

/** Workflows in the app: the services, the background loops (cron, sweeps), the orchestrator, the dashboard's section and routes. */
export const WorkflowsLive = Layer.mergeAll(
  Layer.effectDiscard(Effect.flatMap(Workflows, workflowLoops)),
  OrchestratorRoutes,
  WorkflowDashboardRoutes,
  DashboardSections.register(Effect.map(Effect.service(Workflows), workflowsSection))
).pipe(
  Layer.provideMerge(WorkflowsServices),
  Layer.provide([ContentServices, DashboardServices, PlatformServices])
)
