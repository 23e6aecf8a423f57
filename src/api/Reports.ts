import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidCursor } from "../domain/Errors.ts"
import { Report, ReportList } from "../domain/Reports.ts"
import { PathId } from "../domain/Text.ts"
import { Authentication } from "./Security.ts"
import { CustomerIdParam, intQuery, NotFoundError } from "./Shared.ts"

/** Reports written for the marketer (SEO audits, competitor briefs, performance reports): not content. */
export class ReportsApi extends HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.get("list", "/api/reports/:customerId", {
      params: CustomerIdParam,
      query: {
        limit: Schema.optional(intQuery(1, 100, 25)),
        cursor: Schema.optional(Schema.String.check(Schema.isMaxLength(1000)))
      },
      success: ReportList,
      error: InvalidCursor
    }).annotateMerge(OpenApi.annotations({
      summary: "List reports",
      description:
        "SEO audits, competitor briefs and performance reports, newest first. They are read here, never published, and never count as content waiting for approval. `limit` 1-100 (default 25); pass `nextCursor` as `cursor` for the next page (null on the last). An altered cursor is 400 `E_INVALID_CURSOR`."
    })),
    HttpApiEndpoint.get("get", "/api/reports/:customerId/:reportId", {
      params: { ...CustomerIdParam, reportId: PathId },
      success: Report,
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Get a report",
      description:
        "The whole report: its Markdown body and its figures (money with its ISO 4217 currency). 404 when unknown or another customer's."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({ title: "Reports", description: "Reports written for the marketer by runs and the agent" })
  )
{}
