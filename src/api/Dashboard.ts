import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "./Security.ts"
import { CustomerIdParam } from "./Shared.ts"

export const DashboardHtml = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" }))
  .annotate({ description: "A server-rendered HTML page" })

export class DashboardApi extends HttpApiGroup.make("dashboard")
  .add(
    HttpApiEndpoint.get("get", "/api/dashboard/:customerId", {
      params: CustomerIdParam,
      success: DashboardHtml
    }).annotateMerge(OpenApi.annotations({
      summary: "The customer dashboard (HTML)",
      description:
        "The same dashboard as the signed-in `/dashboard` page, read-only: brand and status with the trial's days " +
        "left, the approval queue, recent content, settings, webhooks with their deliveries and the team (admin " +
        "and above), and the public status. To act on it, sign in at `/dashboard` with the key. Sent with a " +
        "restrictive Content-Security-Policy and `Referrer-Policy: no-referrer`."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Dashboard", description: "The customer's dashboard as HTML" }))
{}
