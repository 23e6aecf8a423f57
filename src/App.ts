import { Effect, Layer, Logger, References } from "effect"
import { ApiRoutes } from "./ApiRoutes.ts"
import { AppConfig } from "./Config.ts"
import { AgentLive } from "./features/agent/Live.ts"
import { AnalyticsLive, AnalyticsServices } from "./features/analytics/Live.ts"
import { BillingLive, BillingServices } from "./features/billing/Live.ts"
import { ContentLive, ContentServices } from "./features/content/Live.ts"
import { CustomersLive } from "./features/customers/Live.ts"
import { DashboardLive } from "./features/dashboard/Live.ts"
import { DiscoveryLive } from "./features/discovery/Live.ts"
import { DocsLive } from "./features/docs/Live.ts"
import { HealthLive, HealthServices } from "./features/health/Live.ts"
import { McpLive } from "./features/mcp/Live.ts"
import { OauthLive } from "./features/oauth/Live.ts"
import { OnboardingLive } from "./features/onboarding/Live.ts"
import { PagesLive } from "./features/pages/Live.ts"
import { ReportsLive, ReportsServices } from "./features/reports/Live.ts"
import { ScanLive } from "./features/scan/Live.ts"
import { SettingsLive, SettingsServices } from "./features/settings/Live.ts"
import { SocialLive, SocialServices } from "./features/social/Live.ts"
import { PublishQueueLive } from "./features/social/Queue.ts"
import { TeamLive, TeamServices } from "./features/team/Live.ts"
import { WebhooksLive, WebhooksServices } from "./features/webhooks/Live.ts"
import { WorkflowsLive } from "./features/workflows/Live.ts"
import { RouteTableLive } from "./platform/http/RouteTable.ts"
import { httpServer } from "./platform/http/Server.ts"
import { consoleJson } from "./platform/Logging.ts"
import { PlatformLive, PlatformServices } from "./platform/Platform.ts"
import { ProcessPolicyLive } from "./platform/ProcessPolicy.ts"
import { ToolsLive } from "./Tools.ts"

const LoggingLive = Layer.unwrap(Effect.map(AppConfig, (config) =>
  Layer.mergeAll(
    Logger.layer([consoleJson]),
    Layer.succeed(References.MinimumLogLevel, config.logLevel === "none" ? "None" : capitalize(config.logLevel)),
    // No tracer is exported: spans (one per Effect.fn call) would be timed and dropped.
    Layer.succeed(References.TracerEnabled, false)
  )))

const capitalize = <S extends string>(s: S) => (s.charAt(0).toUpperCase() + s.slice(1)) as Capitalize<S>

/**
 * Every feature, each with the services it stands on, its background loops,
 * its routes and its dashboard section (its `Live.ts`). Order does not
 * matter: a layer used by several features (the platform, customers, the
 * dashboard's registry of sections) is one value, built once.
 */
const Features = Layer.mergeAll(
  AgentLive,
  AnalyticsLive,
  BillingLive,
  ContentLive,
  CustomersLive,
  DashboardLive,
  DiscoveryLive,
  DocsLive,
  HealthLive,
  McpLive,
  OauthLive,
  OnboardingLive,
  PagesLive,
  ReportsLive,
  ScanLive,
  SettingsLive,
  SocialLive,
  TeamLive,
  WebhooksLive,
  WorkflowsLive
)

/**
 * What the features stand on without owning: the platform, and the two
 * surfaces over several features. The publish queue is the platform's port
 * that social implements and content queues through; the tool runner serves
 * MCP, chat and discovery.
 */
const Ports = Layer.mergeAll(ToolsLive, PlatformLive).pipe(Layer.provideMerge(PublishQueueLive))

/**
 * The features' services without their loops and routes, on the platform:
 * for tests and scripts that drive services directly.
 */
export const Services = Layer.mergeAll(
  AgentLive,
  AnalyticsServices,
  BillingServices,
  ContentServices,
  CustomersLive,
  HealthServices,
  OnboardingLive,
  ReportsServices,
  ScanLive,
  SettingsServices,
  SocialServices,
  TeamServices,
  WebhooksServices
).pipe(Layer.provideMerge(PublishQueueLive), Layer.provideMerge(PlatformServices))

/** The whole service: the REST API and the features' routes, built (the prober's first probe included) before it listens. */
export const AppLive = httpServer(ApiRoutes).pipe(
  Layer.provideMerge(Features),
  Layer.provideMerge(Ports),
  Layer.provideMerge(RouteTableLive),
  Layer.provideMerge(LoggingLive),
  Layer.provideMerge(ProcessPolicyLive)
)
