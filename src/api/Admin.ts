import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { AdminAuthRequired, Conflict, NotFound, RateLimited, ValidationError } from "../domain/Errors.ts"
import { Customer, Email, IssuedKey, ProvisionRequest, ProvisionResult } from "../domain/Identity.ts"
import { CustomerIdParam, EmptyObject, NoStore, NotFoundError, strictParse, StrictPayload } from "./Shared.ts"

/** `X-Admin-Secret` checked in constant time; the admin routes answer 404 when ADMIN_SECRET is unset. */
export class AdminAuthentication
  extends HttpApiMiddleware.Service<AdminAuthentication>()("herald/api/AdminAuthentication", {
    security: { adminSecret: HttpApiSecurity.apiKey({ key: "X-Admin-Secret", in: "header" }) },
    error: [AdminAuthRequired, NotFound, RateLimited, Conflict, ValidationError]
  })
{}

export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("provision", "/api/admin/provision", {
      payload: ProvisionRequest,
      success: ProvisionResult,
      error: Conflict
    }).annotate(StrictPayload, strictParse).annotate(NoStore, true).annotateMerge(OpenApi.annotations({
      summary: "Provision a customer",
      description:
        "Creates a customer (status `onboarding` unless given) with its owner key, shown once. An email that already " +
        "belongs to a customer that is not cancelled (compared case-insensitively) is 409 `E_CONFLICT`. " +
        "10 requests per minute per IP."
    })),
    HttpApiEndpoint.get("findCustomers", "/api/admin/customers", {
      query: { email: Email },
      success: Schema.Struct({ customers: Schema.Array(Customer) })
    }).annotateMerge(OpenApi.annotations({
      summary: "Find customers by email",
      description:
        "Every customer whose email is `email`, compared case-insensitively (cancelled ones included), oldest first."
    })),
    HttpApiEndpoint.post("rotateCustomerKey", "/api/admin/customers/:customerId/rotate-key", {
      params: CustomerIdParam,
      payload: EmptyObject,
      success: IssuedKey,
      error: NotFoundError
    }).annotate(NoStore, true).annotateMerge(OpenApi.annotations({
      summary: "Issue a new owner key (recovery)",
      description:
        "For an owner who lost their key: issues a new owner key, shown once, and revokes the old one, as the " +
        "owner's own rotation does. Team-member keys are unaffected. Writes `key.rotated` with actor `admin`."
    }))
  )
  .middleware(AdminAuthentication)
  .annotateMerge(OpenApi.annotations({ title: "Administration", description: "Operator endpoints" }))
{}
