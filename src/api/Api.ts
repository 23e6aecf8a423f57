import { HttpApi, OpenApi } from "effect/http-api"
import { AdminApi } from "./Admin.ts"
import { ContentApi } from "./Content.ts"
import { SettingsApi } from "./Settings.ts"
import { CustomersApi } from "./Customers.ts"
import { HealthApi } from "./Health.ts"
import { TeamApi } from "./Team.ts"
import { WebhooksApi } from "./Webhooks.ts"

export class Api extends HttpApi.make("herald")
  .add(HealthApi)
  .add(CustomersApi)
  .add(TeamApi)
  .add(WebhooksApi)
  .add(AdminApi)
  .add(ContentApi)
  .add(SettingsApi)
  .annotateMerge(OpenApi.annotations({
    title: "Herald API",
    version: "1.0.0",
    description:
      "Herald is a managed AI marketing team exposed as an API. Every error answers with `{error, code, requestId}` and an `X-Request-ID` header; validation errors add `details`."
  }))
{}
