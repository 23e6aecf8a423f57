import { Option, Redacted } from "effect"
import { safeEqual } from "../domain/Secrets.ts"

/** True when a presented `X-Admin-Secret` matches the configured one (never when unset). */
export const matchesAdminSecret = (
  configured: Option.Option<Redacted.Redacted<string>>,
  presented: string | undefined
): boolean =>
  presented !== undefined &&
  Option.match(configured, {
    onNone: () => false,
    onSome: (secret) => safeEqual(presented, Redacted.value(secret))
  })
