import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { AdminAuthRequired, Conflict, NotFound, RateLimited, ValidationError } from "../domain/Errors.ts"
import { ProvisionRequest, ProvisionResult } from "../domain/Identity.ts"
import { StrictPayload, strictParse } from "./Shared.ts"

/** `X-Admin-Secret` checked in constant time; the admin routes answer 404 when ADMIN_SECRET is unset. */
export class AdminAuthentication extends HttpApiMiddleware.Service<AdminAuthentication>()("herald/api/AdminAuthentication", {
  security: { adminSecret: HttpApiSecurity.apiKey({ key: "X-Admin-Secret", in: "header" }) },
  error: [AdminAuthRequired, NotFound, RateLimited, Conflict, ValidationError]
}) {}

export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("provision", "/api/admin/provision", {
      payload: ProvisionRequest,
      success: ProvisionResult
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Provision a customer",
      description:
        "Creates a customer (status `onboarding` unless given) with its owner key, shown once. 10 requests per minute per IP."
    }))
  )
  .middleware(AdminAuthentication)
  .annotateMerge(OpenApi.annotations({ title: "Administration", description: "Operator endpoints" }))
{}
