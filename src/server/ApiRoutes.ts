import { Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { AdminHandlers } from "./Admin/http.ts"
import { ContentHandlers } from "./Content/http.ts"
import { SettingsHandlers } from "./Settings/http.ts"
import { CustomersHandlers } from "./Customers/http.ts"
import { HealthHandlers } from "./Health/http.ts"
import { AdminAuthenticationLive, AuthenticationLive } from "./Security.ts"
import { TeamHandlers } from "./Team/http.ts"
import { WebhooksHandlers } from "./Webhooks/http.ts"

/** Every HttpApi group's handlers; a new group adds its handlers layer here. */
export const ApiRoutes = HttpApiBuilder.layer(Api).pipe(
  Layer.provide([
    HealthHandlers,
    CustomersHandlers,
    TeamHandlers,
    WebhooksHandlers,
    AdminHandlers,
    ContentHandlers,
    SettingsHandlers
  ]),
  Layer.provide([AuthenticationLive, AdminAuthenticationLive])
)
