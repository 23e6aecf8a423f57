import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { exceededCap, toMicros, windowStarts } from "../../domain/Budget.ts"
import { BudgetExceeded } from "../../domain/Errors.ts"
import type { ContentId, CustomerId } from "../../domain/Ids.ts"
import type { BudgetChannel } from "../../domain/Settings.ts"
import { withConflictRetry } from "../../platform/Database.ts"
import { Customers } from "../customers/Customers.ts"
import { Settings } from "./Settings.ts"

interface SpentRow {
  readonly daily: string
  readonly weekly: string
  readonly monthly: string
  readonly channel: string
}

/** The largest amount a ledger row holds (NUMERIC(20, 6)). */
const ledgerMaximum = 99_999_999_999_999

/**
 * The spend ledger. `charge` refuses a spend that would pass any cap and
 * otherwise records it; it joins the caller's transaction when there is one,
 * so a refused charge rolls back the work it was paying for.
 */
export class Budget extends Context.Service<Budget, {
  /**
   * With `contentId`, the spend of that piece is charged once: when the
   * ledger already holds the piece's charge, nothing is checked or recorded.
   */
  readonly charge: (
    customerId: CustomerId,
    channel: BudgetChannel,
    amount: number,
    contentId?: ContentId | undefined
  ) => Effect.Effect<void, BudgetExceeded>
  /**
   * Takes, in the caller's transaction, the lock every charge of the customer takes first. A caller that will
   * charge after locking rows of its own (a piece it edits before queueing it) takes this before them, so its
   * locks come in the order every other charge takes them and cannot deadlock with one.
   */
  readonly holdCharges: (customerId: CustomerId) => Effect.Effect<void>
  /** Whether a spend would fit now, recording and locking nothing (a check before a call that is charged after). */
  readonly check: (
    customerId: CustomerId,
    channel: BudgetChannel,
    amount: number
  ) => Effect.Effect<void, BudgetExceeded>
}>()("herald/features/settings/Budget") {
  static readonly layer = Layer.effect(
    Budget,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const customers = yield* Customers
      const settings = yield* Settings

      /** Fails when `amount` more on `channel` would pass any of the customer's caps at `now`. */
      const fits = (customerId: CustomerId, channel: BudgetChannel, amount: number, now: Date) =>
        Effect.gen(function*() {
          const { day, week, month } = windowStarts(now)
          const { budget } = yield* settings.get(customerId)
          const from = week < month ? week : month
          const [spent] = yield* sql<SpentRow>`
          SELECT
            coalesce(sum(amount) FILTER (WHERE created_at >= ${day}), 0)::text AS daily,
            coalesce(sum(amount) FILTER (WHERE created_at >= ${week}), 0)::text AS weekly,
            coalesce(sum(amount) FILTER (WHERE created_at >= ${month}), 0)::text AS monthly,
            coalesce(sum(amount) FILTER (WHERE created_at >= ${month} AND channel = ${channel}), 0)::text AS channel
          FROM spend_ledger WHERE customer_id = ${customerId} AND created_at >= ${from}`.pipe(Effect.orDie)
          const exceeded = exceededCap(budget, channel, {
            daily: toMicros(Number(spent.daily)),
            weekly: toMicros(Number(spent.weekly)),
            monthly: toMicros(Number(spent.monthly)),
            channel: toMicros(Number(spent.channel))
          }, amount)
          if (exceeded !== undefined) {
            const which = exceeded.cap === "channel" ? `${channel} channel` : exceeded.cap
            return yield* new BudgetExceeded({
              error:
                `Spending ${amount} would pass the ${which} budget cap of ${exceeded.limit} (already spent ${exceeded.spent})`
            })
          }
        })

      const holdCharges = (customerId: CustomerId) => Effect.asVoid(customers.lock(customerId, "noKeyUpdate"))

      const charge = Effect.fn("Budget.charge")(
        function*(customerId: CustomerId, channel: BudgetChannel, amount: number, contentId?: ContentId) {
          const now = new Date(yield* Clock.currentTimeMillis)
          if (amount > ledgerMaximum) {
            return yield* new BudgetExceeded({
              error: `Spending ${amount} is more than any budget can record (at most ${ledgerMaximum})`
            })
          }
          return yield* Effect.gen(function*() {
            // The customer row lock serialises charges, so two cannot both fit under one cap, nor one piece be
            // charged twice. NO KEY UPDATE: rows inserted for the customer earlier in the caller's transaction
            // (a new piece, its event) hold key-share locks on it, which FOR UPDATE would deadlock against.
            yield* holdCharges(customerId)
            if (contentId !== undefined) {
              const charged = yield* sql`SELECT 1 FROM spend_ledger WHERE content_id = ${contentId}`.pipe(Effect.orDie)
              if (charged.length > 0) return
            }
            yield* fits(customerId, channel, amount, now)
            yield* sql`INSERT INTO spend_ledger (customer_id, channel, amount, created_at, content_id)
          VALUES (${customerId}, ${channel}, ${amount}, ${now}, ${contentId ?? null})`.pipe(Effect.orDie)
          }).pipe(withConflictRetry(sql), Effect.catchTag("SqlError", Effect.die))
        }
      )

      const check = Effect.fn("Budget.check")(
        function*(customerId: CustomerId, channel: BudgetChannel, amount: number) {
          return yield* fits(customerId, channel, amount, new Date(yield* Clock.currentTimeMillis))
        }
      )

      return Budget.of({ charge, holdCharges, check })
    })
  )
}
