import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../Config.ts"
import { FetchFailed, type Unavailable } from "../../domain/Errors.ts"
import type { CustomerStatus } from "../../domain/Identity.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import type { BrandProfile, ConfirmedProfile } from "../../domain/Onboarding.ts"
import { Events } from "../../platform/Events.ts"
import { busyAsUnavailable, PageAdmission, PagePool } from "../../platform/PagePool.ts"
import { Customers } from "../customers/Customers.ts"
import { Social } from "../social/Social.ts"
import { extractJob, type ExtractOutcome } from "./jobs.ts"

export interface Started {
  readonly status: "onboarding_started"
  readonly connectLinks?: Record<string, string>
}

export interface Confirmed {
  readonly customerId: CustomerId
  readonly status: CustomerStatus
  readonly brandName: string | null
  readonly profile: ConfirmedProfile
}

/**
 * Brand onboarding: start it, read a brand profile from the customer's site
 * (in a page pool worker, through the outbound guard; a page that cannot be
 * fetched, or whose reading fails or overruns, is FetchFailed, never an
 * invented profile; a service with no room for it is Unavailable), confirm it (stored; the customer moves from
 * onboarding to active). `profile` is what the agent writes from; the MCP
 * tool analyze_brand_url calls `extract`.
 */
export class Onboarding extends Context.Service<Onboarding, {
  readonly start: (customerId: CustomerId) => Effect.Effect<Started>
  readonly extract: (url: string) => Effect.Effect<BrandProfile, FetchFailed | Unavailable>
  readonly confirm: (customerId: CustomerId, profile: ConfirmedProfile) => Effect.Effect<Confirmed>
  readonly profile: (customerId: CustomerId) => Effect.Effect<Record<string, unknown> | undefined>
}>()("herald/features/onboarding/Onboarding") {
  static readonly layer = Layer.effect(
    Onboarding,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const events = yield* Events
      const customers = yield* Customers
      const config = yield* AppConfig
      const social = yield* Social
      const pool = yield* PagePool
      const admission = yield* PageAdmission

      const start = Effect.fn("Onboarding.start")(function*(customerId: CustomerId) {
        yield* events.record(customerId, "onboarding.started", {})
        // The connect links are a convenience: a provider outage must not stop onboarding.
        const links = yield* social.connect(customerId, undefined).pipe(
          Effect.map((answer) => answer.connectLinks),
          Effect.catchTag(
            "Unavailable",
            (error) => Effect.as(Effect.logWarning("onboarding without connect links", error.error), undefined)
          )
        )
        const started: Started = links === undefined
          ? { status: "onboarding_started" }
          : { status: "onboarding_started", connectLinks: links }
        return started
      })

      // Reading a page counts against the same global bound as scans: a busy service answers 503, not a page failure.
      const extract = Effect.fn("Onboarding.extract")(function*(url: string) {
        const outcome = yield* busyAsUnavailable(admission.refuseWhenFull(pool.run<ExtractOutcome>({
          ...extractJob,
          input: {
            url,
            options: { allowPrivateTargets: config.allowPrivateTargets, allowAddresses: config.scanAllowedAddresses }
          }
        }))).pipe(
          Effect.catchTag("JobFailed", (failed) => Effect.succeed<ExtractOutcome>({ ok: false, reason: failed.reason }))
        )
        if (!outcome.ok) return yield* new FetchFailed({ error: `The page could not be fetched: ${outcome.reason}` })
        return outcome.profile
      })

      const confirm = Effect.fn("Onboarding.confirm")(function*(customerId: CustomerId, profile: ConfirmedProfile) {
        const name = profile.brandName.trim()
        return yield* Effect.gen(function*() {
          const previous = yield* customers.confirmBrand(customerId, name)
          yield* sql`INSERT INTO brand_profiles (customer_id, profile) VALUES (${customerId}, ${
            JSON.stringify(profile)
          }::jsonb)
          ON CONFLICT (customer_id) DO UPDATE SET profile = EXCLUDED.profile, updated_at = now()`
          const status: CustomerStatus = previous === "onboarding" ? "active" : previous
          const brandName = name
          if (previous === "onboarding") {
            yield* events.record(customerId, "customer.status_changed", {
              from: "onboarding",
              to: "active",
              reason: "profile_confirmed"
            })
            yield* events.record(customerId, "onboarding.completed", { brandName })
          }
          return { customerId, status, brandName, profile }
        }).pipe(sql.withTransaction, Effect.orDie)
      })

      const profile = (customerId: CustomerId) =>
        sql<{ profile: unknown }>`SELECT profile FROM brand_profiles WHERE customer_id = ${customerId}`.pipe(
          Effect.map((rows) =>
            rows.length === 0
              ? undefined
              : (typeof rows[0].profile === "string" ? JSON.parse(rows[0].profile) : rows[0].profile) as Record<
                string,
                unknown
              >
          ),
          Effect.orDie
        )

      return Onboarding.of({ start, extract, confirm, profile })
    })
  )
}
