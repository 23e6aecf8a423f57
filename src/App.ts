import { Effect, Layer, Logger, References } from "effect"
import { AppConfig } from "./Config.ts"
import { Billing } from "./features/billing/Billing.ts"
import { Budget } from "./features/settings/Budget.ts"
import { Content } from "./features/content/Content.ts"
import { Cursors } from "./platform/Cursor.ts"
import { Settings } from "./features/settings/Settings.ts"
import { DatabaseLive } from "./platform/Database.ts"
import { Customers } from "./features/customers/Customers.ts"
import { Events } from "./platform/Events.ts"
import { Health } from "./features/health/Health.ts"
import { Idempotency } from "./platform/Idempotency.ts"
import { Outbox } from "./platform/Outbox.ts"
import { httpServer } from "./platform/http/Server.ts"
import { Keys } from "./platform/Keys.ts"
import { ApiRoutes } from "./ApiRoutes.ts"
import { DiscoveryRoutes } from "./features/discovery/Discovery.ts"
import { CheckoutPages } from "./features/billing/pages.ts"
import { AssetRoutes } from "./features/pages/Assets.ts"
import { PublicPages } from "./features/pages/Public.ts"
import { Dashboard, DashboardSections } from "./features/dashboard/Dashboard.ts"
import { DashboardPages } from "./features/dashboard/pages.ts"
import { CoreSections } from "./features/dashboard/sections.ts"
import { DashboardAuth } from "./features/dashboard/Session.ts"
import { ToolsLive } from "./Tools.ts"
import { McpRoutes } from "./features/mcp/http.ts"
import { DocsRoutes } from "./features/docs/Docs.ts"
import { RateLimits } from "./platform/RateLimits.ts"
import { Team } from "./features/team/Team.ts"
import { WebhookDispatcher } from "./features/webhooks/Dispatcher.ts"
import { Webhooks } from "./features/webhooks/Webhooks.ts"
import { PageAdmission, PagePool } from "./platform/PagePool.ts"
import { ProcessPolicy } from "./platform/ProcessPolicy.ts"
import { Social } from "./features/social/Social.ts"
import { Links } from "./features/social/Links.ts"
import { SocialPublisher } from "./features/social/Publisher.ts"
import { PublishQueueLive } from "./features/social/Queue.ts"
import { SocialPages } from "./features/social/pages.ts"
import { SandboxProvider } from "./features/social/providers/sandbox.ts"
import { AyrshareProvider } from "./features/social/providers/ayrshare.ts"
import { Analytics } from "./features/analytics/Analytics.ts"
import { Scanner } from "./features/scan/Scanner.ts"
import { Onboarding } from "./features/onboarding/Onboarding.ts"
import { Workflows, WorkflowsLive } from "./features/workflows/Workflows.ts"
import { WorkflowDashboardRoutes, workflowsSection } from "./features/workflows/dashboard.ts"
import { SocialDashboardRoutes, socialSection } from "./features/social/dashboard.ts"
import { analyticsSection } from "./features/analytics/dashboard.ts"
import { LanguageModelLive, Writer } from "./features/agent/Agent.ts"
import { Reports } from "./features/reports/Reports.ts"
import { reportsSection } from "./features/reports/dashboard.ts"
import { OrchestratorRoutes } from "./features/workflows/Orchestrator.ts"
import { consoleJson } from "./platform/Logging.ts"

const LoggingLive = Layer.unwrap(Effect.map(AppConfig, (config) =>
  Layer.mergeAll(
    Logger.layer([consoleJson]),
    Layer.succeed(References.MinimumLogLevel, config.logLevel === "none" ? "None" : capitalize(config.logLevel)),
    // No tracer is exported: spans (one per Effect.fn call) would be timed and dropped.
    Layer.succeed(References.TracerEnabled, false)
  )
))

const capitalize = <S extends string>(s: S) => (s.charAt(0).toUpperCase() + s.slice(1)) as Capitalize<S>

/** The social provider SOCIAL_PROVIDER names: the local sandbox (default) or Ayrshare. */
const SocialProviderLive = Layer.unwrap(Effect.map(AppConfig, (config) =>
  config.socialProvider === "ayrshare" ? AyrshareProvider : SandboxProvider
))

/** Domain services shared by the HTTP routes and the background fibers. */
const DomainServices = Onboarding.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(Social.layer, Links.layer, Analytics.layer, Billing.layer, Scanner.layerLive)),
  Layer.provideMerge(SocialProviderLive),
  Layer.provideMerge(Layer.mergeAll(Team.layer, Content.layer, Webhooks.layer, Reports.layer)),
  // The queue charges ad spend, so it stands on the budget; content queues through it.
  Layer.provideMerge(PublishQueueLive),
  Layer.provideMerge(Budget.layer),
  Layer.provideMerge(Layer.mergeAll(Settings.layer, Cursors.layer)),
  Layer.provideMerge(Customers.layer),
  Layer.provideMerge(Keys.layer),
  Layer.provideMerge(Layer.mergeAll(Health.layer, Events.layer, Idempotency.layer, Outbox.layer)),
  Layer.provideMerge(Layer.mergeAll(DatabaseLive, RateLimits.layer, PagePool.layer, PageAdmission.layer))
)

/**
 * The domain services plus the language model (`LanguageModel.LanguageModel`,
 * chosen by LLM_PROVIDER) and the Writer over it, for every feature that writes
 * (workflows, chat, MCP).
 */
export const Services = Writer.layer.pipe(
  Layer.provideMerge(LanguageModelLive),
  Layer.provideMerge(DomainServices)
)

/**
 * The dashboard and its sections. A capability adds its own section with
 * `DashboardSections.register(...)` next to CoreSections (see docs/design/dashboard.md, "Sections").
 */
export const DashboardLive = Layer.mergeAll(Dashboard.layer, DashboardAuth.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(
    CoreSections,
    DashboardSections.register(Effect.map(Effect.service(Workflows), workflowsSection)),
    DashboardSections.register(Effect.map(Effect.service(Social), socialSection)),
    DashboardSections.register(Effect.map(Effect.service(Analytics), analyticsSection)),
    DashboardSections.register(Effect.map(Effect.service(Reports), reportsSection))
  )),
  Layer.provideMerge(DashboardSections.layer)
)

/** The whole service: probes once before it listens, then serves. */
export const AppWithoutConfig = httpServer(Layer.mergeAll(ApiRoutes, DiscoveryRoutes, CheckoutPages, AssetRoutes, PublicPages, DashboardPages, WorkflowDashboardRoutes, SocialDashboardRoutes, SocialPages, McpRoutes, OrchestratorRoutes, DocsRoutes)).pipe(
  Layer.provideMerge(DashboardLive),
  Layer.provide(ToolsLive),
  // The durable workflow engine, the catalog's runs and cron (after the domain services).
  Layer.provideMerge(WorkflowsLive),
  Layer.provide(Health.prober),
  Layer.provide(WebhookDispatcher),
  Layer.provide(SocialPublisher),
  Layer.provide(Idempotency.sweeper),
  Layer.provide(Billing.trialSweeper),
  Layer.provideMerge(Services),
  Layer.provideMerge(LoggingLive),
  Layer.provideMerge(ProcessPolicy)
)

