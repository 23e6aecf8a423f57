import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../Config.ts"
import { FetchFailed } from "../../domain/Errors.ts"
import type { CustomerStatus } from "../../domain/Identity.ts"
import type { BrandProfile } from "../../domain/Onboarding.ts"
import { Events } from "../../platform/Events.ts"
import { safeFetch } from "../../platform/OutboundGuard.ts"
import { toPage } from "../scan/checks/Page.ts"
import { Social } from "../social/Social.ts"
import { decodeBody, describeFailure, type SiteFile } from "../scan/Fetch.ts"
import { extractProfile } from "./extract.ts"

export interface Started {
  readonly status: "onboarding_started"
  readonly connectLinks?: Record<string, string>
}

export interface Confirmed {
  readonly customerId: string
  readonly status: CustomerStatus
  readonly brandName: string | null
  readonly profile: Record<string, unknown>
}

const noFile: SiteFile = { url: "", status: null, content: null, error: undefined }

/**
 * Brand onboarding: start it, read a brand profile from the customer's site
 * (through the outbound guard; a page that cannot be fetched is FetchFailed,
 * never an invented profile), confirm it (stored; the customer moves from
 * onboarding to active). `profile` is what the agent writes from; the MCP
 * tool analyze_brand_url calls `extract`.
 */
export class Onboarding extends Context.Service<Onboarding, {
  readonly start: (customerId: string) => Effect.Effect<Started>
  readonly extract: (url: string) => Effect.Effect<BrandProfile, FetchFailed>
  readonly confirm: (customerId: string, profile: Record<string, unknown>) => Effect.Effect<Confirmed>
  readonly profile: (customerId: string) => Effect.Effect<Record<string, unknown> | undefined>
}>()("herald/features/onboarding/Onboarding") {
  static readonly layer = Layer.effect(Onboarding, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* Events
    const config = yield* AppConfig
    const social = yield* Social

    const start = Effect.fn("Onboarding.start")(function*(customerId: string) {
      yield* events.record(customerId, "onboarding.started", {})
      // The connect links are a convenience: a provider outage must not stop onboarding.
      const links = yield* social.connect(customerId, undefined).pipe(
        Effect.map((answer) => answer.connectLinks),
        Effect.catchTag("Unavailable", (error) => Effect.as(Effect.logWarning("onboarding without connect links", error.error), undefined))
      )
      const started: Started = links === undefined
        ? { status: "onboarding_started" }
        : { status: "onboarding_started", connectLinks: links }
      return started
    })

    const extract = Effect.fn("Onboarding.extract")(function*(url: string) {
      const response = yield* safeFetch(url, {
        allowPrivateTargets: config.allowPrivateTargets,
        allowAddresses: config.scanAllowedAddresses,
        headers: { "user-agent": "Mozilla/5.0 (compatible; HeraldScanner/1.0)", accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" }
      }).pipe(Effect.mapError((error) => new FetchFailed({ error: `The page could not be fetched: ${describeFailure(error)}` })))
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
      }
      if (response.status >= 400) {
        return yield* new FetchFailed({ error: `The page could not be fetched: it answered HTTP ${response.status}` })
      }
      const type = (headers["content-type"] ?? "text/html").split(";")[0].trim().toLowerCase()
      if (type !== "text/html" && type !== "application/xhtml+xml") {
        return yield* new FetchFailed({ error: `The page could not be fetched: not HTML (Content-Type: ${type})` })
      }
      const page = toPage({
        requestedUrl: url,
        url: response.url,
        status: response.status,
        headers,
        html: decodeBody(response.body, headers["content-type"]),
        bytes: response.body.length,
        elapsedMs: 0,
        robots: noFile,
        llms: noFile,
        llmsFull: noFile,
        sitemap: noFile,
        fetchedAt: new Date()
      })
      return extractProfile(page)
    })

    const confirm = Effect.fn("Onboarding.confirm")(function*(customerId: string, profile: Record<string, unknown>) {
      const name = typeof profile.brandName === "string" ? profile.brandName.trim() : undefined
      return yield* Effect.gen(function*() {
        const [current] = yield* sql<{ status: CustomerStatus; brandName: string | null }>`
          SELECT status, brand_name FROM customers WHERE id = ${customerId} FOR UPDATE`
        yield* sql`INSERT INTO brand_profiles (customer_id, profile) VALUES (${customerId}, ${JSON.stringify(profile)}::jsonb)
          ON CONFLICT (customer_id) DO UPDATE SET profile = EXCLUDED.profile, updated_at = now()`
        const status: CustomerStatus = current.status === "onboarding" ? "active" : current.status
        const brandName = name ?? current.brandName
        yield* sql`UPDATE customers SET status = ${status}, brand_name = ${brandName} WHERE id = ${customerId}`
        if (current.status === "onboarding") {
          yield* events.record(customerId, "customer.status_changed", { from: "onboarding", to: "active", reason: "profile_confirmed" })
          yield* events.record(customerId, "onboarding.completed", { brandName })
        }
        return { customerId, status, brandName, profile }
      }).pipe(sql.withTransaction, Effect.orDie)
    })

    const profile = (customerId: string) =>
      sql<{ profile: unknown }>`SELECT profile FROM brand_profiles WHERE customer_id = ${customerId}`.pipe(
        Effect.map((rows) =>
          rows.length === 0
            ? undefined
            : (typeof rows[0].profile === "string" ? JSON.parse(rows[0].profile) : rows[0].profile) as Record<string, unknown>
        ),
        Effect.orDie
      )

    return Onboarding.of({ start, extract, confirm, profile })
  }))
}
