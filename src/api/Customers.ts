import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Customer, Event, IssuedKey } from "../domain/Identity.ts"
import { Authentication, RequiredRole } from "./Security.ts"
import { CustomerIdParam, DateTimeQuery, EmptyObject, intQuery, NotFoundError } from "./Shared.ts"

export class CustomersApi extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.get("get", "/api/customer/:customerId", {
      params: CustomerIdParam,
      success: Customer,
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Get the customer",
      description: "`mcpEndpoint` shows where to connect MCP clients, with a placeholder for the key."
    })),
    HttpApiEndpoint.post("rotateKey", "/api/customer/:customerId/rotate-key", {
      params: CustomerIdParam,
      payload: EmptyObject,
      success: IssuedKey
    }).annotate(RequiredRole, "owner").annotateMerge(OpenApi.annotations({
      summary: "Rotate the API key",
      description:
        "Issues a new owner key, shown once, and revokes the old one in the same transaction. Team-member keys are unaffected. Owner only."
    })),
    HttpApiEndpoint.get("events", "/api/events/:customerId", {
      params: CustomerIdParam,
      query: {
        limit: Schema.optional(intQuery(1, 200, 50)),
        since: Schema.optional(DateTimeQuery)
      },
      success: Schema.Struct({ events: Schema.Array(Event) })
    }).annotateMerge(OpenApi.annotations({
      summary: "Event log",
      description:
        "Newest first. `limit` 1-200 (default 50); `since` is exclusive. Covers workflow runs, publishes, approvals, settings changes, keys and team changes."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Customer", description: "The customer, its key and its event log" }))
{}
