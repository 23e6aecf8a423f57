import { Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "./api/Api.ts"
import { AdminHandlers } from "./features/admin/http.ts"
import { AnalyticsHandlers } from "./features/analytics/http.ts"
import {
  BillingHandlers,
  PaymentSignatureLive,
  PaymentWebhookHandlers,
  SignupLimitsLive
} from "./features/billing/http.ts"
import { ChatHandlers } from "./features/chat/http.ts"
import { ContentHandlers } from "./features/content/http.ts"
import { CustomersHandlers } from "./features/customers/http.ts"
import { DashboardHandlers } from "./features/dashboard/http.ts"
import { DiscoveryHandlers } from "./features/discovery/http.ts"
import { HealthHandlers } from "./features/health/http.ts"
import { ConnectedAppsHandlers } from "./features/oauth/api.ts"
import { OnboardingHandlers } from "./features/onboarding/http.ts"
import { ReportsHandlers } from "./features/reports/http.ts"
import { ScanHandlers } from "./features/scan/http.ts"
import { SettingsHandlers } from "./features/settings/http.ts"
import { ConnectionsHandlers, IntegrationHandlers, SocialHandlers } from "./features/social/http.ts"
import { TeamHandlers } from "./features/team/http.ts"
import { WebhooksHandlers } from "./features/webhooks/http.ts"
import { WorkflowsHandlers } from "./features/workflows/http.ts"
import { AdminAuthenticationLive, AuthenticationLive } from "./platform/Security.ts"

/** Every HttpApi group's handlers; a new group adds its handlers layer here. */
export const ApiRoutes = HttpApiBuilder.layer(Api).pipe(
  Layer.provide([
    HealthHandlers,
    CustomersHandlers,
    TeamHandlers,
    WebhooksHandlers,
    AdminHandlers,
    ContentHandlers,
    SettingsHandlers,
    SocialHandlers,
    ConnectionsHandlers,
    IntegrationHandlers,
    AnalyticsHandlers,
    BillingHandlers,
    PaymentWebhookHandlers,
    DashboardHandlers,
    DiscoveryHandlers,
    ScanHandlers,
    OnboardingHandlers,
    WorkflowsHandlers,
    ChatHandlers,
    ReportsHandlers,
    ConnectedAppsHandlers
  ]),
  Layer.provide([AuthenticationLive, AdminAuthenticationLive, SignupLimitsLive, PaymentSignatureLive])
)
