import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Onboarding } from "./Onboarding.ts"

export const OnboardingHandlers = leanGroup(Effect.gen(function*() {
  const onboarding = yield* Onboarding
  return HttpApiBuilder.group(Api, "onboarding", (handlers) =>
    handlers.handleAll({
      start: ({ params }) => onboarding.start(params.customerId),
      autoExtract: ({ payload }) => onboarding.extract(payload.url),
      confirmProfile: ({ params, payload }) => onboarding.confirm(params.customerId, payload)
    }))
}))
