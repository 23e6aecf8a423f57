import { Layer } from "effect"
import { PlatformServices } from "../../platform/Platform.ts"
import { CustomersLive } from "../customers/Live.ts"
import { SocialServices } from "../social/Live.ts"
import { Onboarding } from "./Onboarding.ts"

/** Onboarding: a brand's profile read from its site. */
export const OnboardingLive = Onboarding.layer.pipe(Layer.provide([CustomersLive, SocialServices, PlatformServices]))
