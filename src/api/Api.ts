import { HttpApi, OpenApi } from "effect/http-api"
import { AdminApi } from "./Admin.ts"
import { BillingApi, PaymentWebhookApi } from "./Billing.ts"
import { ChatApi } from "./Chat.ts"
import { ConnectedAppsApi } from "./ConnectedApps.ts"
import { ContentApi } from "./Content.ts"
import { CustomersApi } from "./Customers.ts"
import { DashboardApi } from "./Dashboard.ts"
import { DiscoveryApi } from "./Discovery.ts"
import { HealthApi } from "./Health.ts"
import { OnboardingApi } from "./Onboarding.ts"
import { ReportsApi } from "./Reports.ts"
import { ScanApi } from "./Scan.ts"
import { SettingsApi } from "./Settings.ts"
import { AnalyticsApi, ConnectionsApi, IntegrationApi, SocialApi } from "./Social.ts"
import { TeamApi } from "./Team.ts"
import { WebhooksApi } from "./Webhooks.ts"
import { WorkflowsApi } from "./Workflows.ts"

export class Api extends HttpApi.make("herald")
  .add(HealthApi)
  .add(CustomersApi)
  .add(TeamApi)
  .add(WebhooksApi)
  .add(AdminApi)
  .add(ContentApi)
  .add(SettingsApi)
  .add(SocialApi)
  .add(ConnectionsApi)
  .add(IntegrationApi)
  .add(AnalyticsApi)
  .add(BillingApi)
  .add(PaymentWebhookApi)
  .add(DashboardApi)
  .add(DiscoveryApi)
  .add(ScanApi)
  .add(OnboardingApi)
  .add(WorkflowsApi)
  .add(ChatApi)
  .add(ReportsApi)
  .add(ConnectedAppsApi)
  // Every failing field is reported, not only the first (an endpoint's own parse options still win).
  .annotate(HttpApi.ParseOptions, { errors: "all" })
  // Answers are encoded with the default options: an answer that does not fit its schema is a 500 however many of
  // its fields are wrong, and under the defaults effect encodes a struct without a generator per value.
  .annotate(HttpApi.SuccessParseOptions, {})
  .annotate(HttpApi.ErrorParseOptions, {})
  .annotateMerge(OpenApi.annotations({
    title: "Herald API",
    version: "1.0.0",
    description:
      "Herald is a managed AI marketing team exposed as an API. Every error answers with `{error, code, requestId}` and an `X-Request-ID` header; validation errors add `details`."
  }))
{}
