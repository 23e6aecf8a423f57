import type { Budget } from "./Settings.ts"

/** Amounts are compared in millionths so that sums of decimals do not drift. */
export const toMicros = (amount: number): number => Math.round(amount * 1_000_000)

export type CapName = "daily" | "weekly" | "monthly" | "channel"

/** What has been spent in each window the caps look at, in micros. */
export interface Spent {
  readonly daily: number
  readonly weekly: number
  readonly monthly: number
  /** Spent on the charged channel this calendar month. */
  readonly channel: number
}

export interface CapExceeded {
  readonly cap: CapName
  readonly limit: number
  readonly spent: number
  readonly amount: number
}

/** Starts of the calendar windows (UTC) containing `now`: day, ISO week (Monday), month. */
export const windowStarts = (now: Date) => {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const sinceMonday = (now.getUTCDay() + 6) % 7
  return {
    day: new Date(day),
    week: new Date(day - sinceMonday * 86_400_000),
    month: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  }
}

/**
 * The first cap a spend of `amount` on `channel` would pass, or undefined when
 * it fits. Reaching a cap exactly is allowed; passing it is not.
 */
export const exceededCap = (
  budget: Budget,
  channel: string,
  spent: Spent,
  amount: number
): CapExceeded | undefined => {
  const channels: Readonly<Record<string, number | undefined>> = budget.channels
  const caps: ReadonlyArray<readonly [CapName, number | null | undefined, number]> = [
    ["daily", budget.daily, spent.daily],
    ["weekly", budget.weekly, spent.weekly],
    ["monthly", budget.monthly, spent.monthly],
    ["channel", channels[channel], spent.channel]
  ]
  const charge = toMicros(amount)
  for (const [cap, limit, already] of caps) {
    if (limit != null && already + charge > toMicros(limit)) {
      return { cap, limit, spent: already / 1_000_000, amount }
    }
  }
  return undefined
}

/**
 * What publishing a piece costs the `ads` channel: an `ad` piece's
 * `metadata.spend` (a number, or a decimal string, above 0); nothing for any
 * other piece or a spend that is not an amount.
 */
export const adSpend = (
  piece: { readonly type: string; readonly metadata: Readonly<Record<string, unknown>> }
): number => {
  if (piece.type !== "ad") return 0
  const raw = piece.metadata["spend"]
  const amount = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : Number.NaN
  return Number.isFinite(amount) && amount > 0 ? amount : 0
}
