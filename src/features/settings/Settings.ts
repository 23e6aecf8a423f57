import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { CustomerId } from "../../domain/Ids.ts"
import {
  Autonomy,
  type AutonomyUpdate,
  Budget,
  type BudgetUpdate,
  defaultSettings,
  mergeAutonomy,
  mergeBudget,
  type Settings as SettingsShape,
  TrackingUpdate
} from "../../domain/Settings.ts"
import { Events } from "../../platform/Events.ts"

/** jsonb read as text: the client's snake-to-camel renaming would otherwise rewrite keys like `ask_cmo`. */
interface SettingsRow {
  readonly autonomy: string | null
  readonly budget: string | null
  readonly tracking: string | null
}

const json = (value: string) => JSON.parse(value) as unknown

// Stored values were validated on the way in; decoding again guards against hand edits.
const decodeAutonomy = Schema.decodeUnknownSync(Autonomy)
const decodeBudget = Schema.decodeUnknownSync(Budget)
const decodeTracking = Schema.decodeUnknownSync(TrackingUpdate)

const effective = (row: SettingsRow | undefined): SettingsShape => ({
  autonomy: row?.autonomy == null ? defaultSettings.autonomy : decodeAutonomy(json(row.autonomy)),
  budget: row?.budget == null ? defaultSettings.budget : decodeBudget(json(row.budget)),
  tracking: row?.tracking == null
    ? defaultSettings.tracking
    : { ...defaultSettings.tracking, ...decodeTracking(json(row.tracking)) }
})

/** Autonomy and budget settings: always answered as effective values, updated by merging. */
export class Settings extends Context.Service<Settings, {
  readonly get: (customerId: CustomerId) => Effect.Effect<SettingsShape>
  readonly updateAutonomy: (customerId: CustomerId, update: AutonomyUpdate) => Effect.Effect<SettingsShape>
  readonly updateBudget: (customerId: CustomerId, update: BudgetUpdate) => Effect.Effect<SettingsShape>
  readonly updateTracking: (customerId: CustomerId, update: TrackingUpdate) => Effect.Effect<SettingsShape>
}>()("herald/features/settings/Settings") {
  static readonly layer = Layer.effect(
    Settings,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const events = yield* Events

      // A read on the GET path: untraced (docs/design/http-core.md, "What the fast paths cost").
      const get = Effect.fnUntraced(function*(customerId: CustomerId) {
        const rows = yield* sql<SettingsRow>`
        SELECT autonomy::text AS autonomy, budget::text AS budget, tracking::text AS tracking FROM customer_settings WHERE customer_id = ${customerId}`
          .pipe(Effect.orDie)
        return effective(rows[0])
      })

      /** Read, merge and write under the row lock, so concurrent merges both land. */
      const update = (
        customerId: CustomerId,
        section: "autonomy" | "budget" | "tracking",
        change: (current: SettingsShape) => SettingsShape
      ) =>
        Effect.gen(function*() {
          yield* sql`INSERT INTO customer_settings (customer_id) VALUES (${customerId}) ON CONFLICT (customer_id) DO NOTHING`
          const rows = yield* sql<SettingsRow>`
          SELECT autonomy::text AS autonomy, budget::text AS budget, tracking::text AS tracking FROM customer_settings WHERE customer_id = ${customerId} FOR UPDATE`
          const next = change(effective(rows[0]))
          yield* sql`UPDATE customer_settings SET autonomy = ${JSON.stringify(next.autonomy)}::jsonb,
          budget = ${JSON.stringify(next.budget)}::jsonb,
          tracking = ${JSON.stringify(next.tracking)}::jsonb, updated_at = now() WHERE customer_id = ${customerId}`
          yield* events.record(customerId, `settings.${section}_updated`, next[section])
          return next
        }).pipe(sql.withTransaction, Effect.orDie)

      const updateAutonomy = Effect.fn("Settings.updateAutonomy")(
        function*(customerId: CustomerId, patch: AutonomyUpdate) {
          return yield* update(customerId, "autonomy", (s) => ({ ...s, autonomy: mergeAutonomy(s.autonomy, patch) }))
        }
      )

      const updateBudget = Effect.fn("Settings.updateBudget")(function*(customerId: CustomerId, patch: BudgetUpdate) {
        return yield* update(customerId, "budget", (s) => ({ ...s, budget: mergeBudget(s.budget, patch) }))
      })

      const updateTracking = Effect.fn("Settings.updateTracking")(
        function*(customerId: CustomerId, patch: TrackingUpdate) {
          return yield* update(customerId, "tracking", (s) => ({ ...s, tracking: { ...s.tracking, ...patch } }))
        }
      )

      return Settings.of({ get, updateAutonomy, updateBudget, updateTracking })
    })
  )
}
