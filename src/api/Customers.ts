import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidCursor } from "../domain/Errors.ts"
import { Customer, Event, IssuedKey } from "../domain/Identity.ts"
import { AcceptsRotationReplay, Authentication, RequiredRole } from "./Security.ts"
import { CustomerIdParam, DateTimeQuery, EmptyObject, intQuery, NoStore, NotFoundError } from "./Shared.ts"

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
    }).annotate(RequiredRole, "owner").annotate(AcceptsRotationReplay, true).annotate(NoStore, true).annotateMerge(
      OpenApi.annotations({
        summary: "Rotate the API key",
        description:
          "Issues a new owner key, shown once, and revokes the old one in the same transaction. Team-member keys are unaffected. Owner only. " +
          "Send an `Idempotency-Key`: if the answer is lost, repeating the exact request (same key, same body, within 24 h) with the old key returns the same new key; the old key is refused for everything else."
      })
    ),
    HttpApiEndpoint.get("events", "/api/events/:customerId", {
      params: CustomerIdParam,
      query: {
        limit: Schema.optional(intQuery(1, 200, 50)),
        since: Schema.optional(DateTimeQuery),
        cursor: Schema.optional(Schema.String.check(Schema.isMaxLength(1000)))
      },
      success: Schema.Struct({ events: Schema.Array(Event), nextCursor: Schema.NullOr(Schema.String) }),
      error: InvalidCursor
    }).annotateMerge(OpenApi.annotations({
      summary: "Event log",
      description:
        "Newest first. `limit` 1-200 (default 50); `since` is exclusive. Pass `nextCursor` as `cursor` (with the same `since`) for the next page; it is null on the last page, so every event can be read back. Cursors are opaque and signed: an altered one is 400 `E_INVALID_CURSOR`. Each event has an `id` and an `actor` (`owner`, `member`, `admin`, `agent`, `workflow` or `system`, with its id). Covers workflow runs, publishes, approvals, content edits, settings changes, keys, webhooks and team changes."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Customer", description: "The customer, its key and its event log" }))
{}
