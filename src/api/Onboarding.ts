import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { FetchFailed, Unavailable } from "../domain/Errors.ts"
import {
  AutoExtractRequest,
  BrandProfile,
  ConfirmedProfile,
  OnboardingStarted,
  ProfileConfirmed
} from "../domain/Onboarding.ts"
import { Authentication } from "./Security.ts"
import { CustomerIdParam, EmptyObject, strictParse, StrictPayload } from "./Shared.ts"

/** Brand onboarding. Every endpoint needs the admin role. */
export class OnboardingApi extends HttpApiGroup.make("onboarding")
  .add(
    HttpApiEndpoint.post("start", "/api/onboard/:customerId", {
      params: CustomerIdParam,
      payload: EmptyObject,
      success: OnboardingStarted
    }).annotateMerge(OpenApi.annotations({
      summary: "Start onboarding",
      description: "Starts the brand interview and platform connections: answers `{status: \"onboarding_started\"}` " +
        "(with `connectLinks` once social publishing is configured) and emits `onboarding.started`. The body is " +
        "empty or `{}`."
    })),
    HttpApiEndpoint.post("autoExtract", "/api/onboard/:customerId/auto-extract", {
      params: CustomerIdParam,
      payload: AutoExtractRequest,
      success: BrandProfile,
      error: [FetchFailed, Unavailable]
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Extract a brand profile from a URL",
      description: "Fetches the page through the outbound guard (http(s), public addresses only, 5 redirects, 5 MiB, " +
        "10 s) and reads what it says: `brandName` (Organization JSON-LD, og:site_name, title), `description`, " +
        "`logoUrl`, `ogImage` (the page's og:image), `colors`, `voice` (tone words from the copy), `audience`, `products`, `socials` (profiles " +
        "linked from the page) and `sourceUrl`; null or empty where the page says nothing. Nothing is stored. A url " +
        "that is not http(s) is 400 E_VALIDATION; a page that cannot be fetched (unreachable, refused private " +
        "address, error status, not HTML) is 422 E_FETCH_FAILED. Pages are read in isolated workers under the same " +
        "global bound as scans (SCAN_MAX_CONCURRENT running, SCAN_QUEUE_MAX waiting): past it, or when no worker has " +
        "room, the request is refused 503 E_UNAVAILABLE with `Retry-After`."
    })),
    HttpApiEndpoint.post("confirmProfile", "/api/onboard/:customerId/confirm-profile", {
      params: CustomerIdParam,
      payload: ConfirmedProfile,
      success: ProfileConfirmed
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Confirm the brand profile",
      description: "Stores the profile (replacing an earlier one) as what the agent writes from. The body is the " +
        "extracted profile's shape, edited: `brandName` (required, 1-200 characters), `description` (at most 2000), " +
        "`logoUrl`, `ogImage` and `sourceUrl` (absolute http(s) URLs), `colors` (`#rrggbb`, at most 20), `voice`, `audience`, " +
        "`products` (at most 50 strings of 1-200 characters each), `socials` (platform name to http(s) URL, at most " +
        "20); any other property, or a wrong type, is 400 E_VALIDATION naming it (`body.logoUrl`). `brandName` becomes " +
        "the customer's brand name. A customer in `onboarding` becomes `active` (events `customer.status_changed` " +
        "and `onboarding.completed`). Answers the customer id, its status, brand name and the stored profile."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Onboarding", description: "Brand onboarding from the customer's site" }))
{}
