import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AutonomyUpdate, BudgetUpdate, Settings, TrackingUpdate } from "../domain/Settings.ts"
import { Authentication } from "./Security.ts"
import { CustomerIdParam, strictParse, StrictPayload } from "./Shared.ts"

export class SettingsApi extends HttpApiGroup.make("settings")
  .add(
    HttpApiEndpoint.get("get", "/api/settings/:customerId", {
      params: CustomerIdParam,
      success: Settings
    }).annotateMerge(OpenApi.annotations({
      summary: "Effective settings",
      description:
        "Always the effective values: autonomy `{globalDefault: 2, categories: {}, skills: {}}` and budget `{daily: null, weekly: null, monthly: null, channels: {}}` until changed (null = no cap); tracking `{links: true}`."
    })),
    HttpApiEndpoint.put("autonomy", "/api/settings/:customerId/autonomy", {
      params: CustomerIdParam,
      payload: AutonomyUpdate,
      success: Settings
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Update autonomy",
      description:
        "Levels 1-5 merged into the current settings: 1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once. The level for an action is its skill override, else its content type's, else `globalDefault`. `categories` keys are content types; `skills` keys are MCP tool names and workflow ids. Answers the full effective settings. Emits `settings.autonomy_updated`. Admin role."
    })),
    HttpApiEndpoint.put("budget", "/api/settings/:customerId/budget", {
      params: CustomerIdParam,
      payload: BudgetUpdate,
      success: Settings
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Update budget caps",
      description:
        "Caps >= 0 merged into the current settings; `null` removes one. Daily, weekly (ISO week) and monthly caps and per-channel caps (per calendar month) run on UTC calendar windows; a spend that would pass any cap is refused with 403 `E_BUDGET_EXCEEDED`. Channels: x, linkedin, instagram, facebook, tiktok, pinterest, ads, model. Answers the full effective settings. Emits `settings.budget_updated`. Admin role."
    })),
    HttpApiEndpoint.put("tracking", "/api/settings/:customerId/tracking", {
      params: CustomerIdParam,
      payload: TrackingUpdate,
      success: Settings
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Update link tracking",
      description:
        "`links` (default true): http(s) links in published social posts are rewritten to `{base_url}/r/{code}` with `utm_source=<platform>&utm_medium=social&utm_campaign=herald` added to the target (existing utm_ parameters kept). Answers the full effective settings. Emits `settings.tracking_updated`. Admin role."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Settings", description: "Autonomy levels and budget caps" }))
{}
