import { Effect } from "effect"
import { analyzeBrandUrl } from "../../api/tools/definitions.ts"
import { implement } from "../../platform/tools/Handler.ts"
import { Onboarding } from "./Onboarding.ts"

/** analyze_brand_url: Onboarding.extract (a page it cannot fetch is E_FETCH_FAILED). */
export const analyzeBrandUrlTool = implement(
  analyzeBrandUrl,
  Effect.gen(function*() {
    const onboarding = yield* Onboarding
    return (input) =>
      Effect.gen(function*() {
        const profile = yield* onboarding.extract(input.url)
        return {
          summary: `Read ${profile.sourceUrl}: brand ${profile.brandName ?? "(not named on the page)"}${
            profile.products.length > 0 ? `, products ${profile.products.join(", ")}` : ""
          }${
            profile.voice.length > 0 ? `, voice ${profile.voice.join(", ")}` : ""
          }. Confirm it with POST /api/onboard/${input.customerId}/confirm-profile to make it the brand profile.`,
          data: { ...profile }
        }
      })
  })
)
