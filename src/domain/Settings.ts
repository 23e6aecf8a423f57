import { Schema } from "effect"
import { ContentType } from "./Content.ts"

/** The MCP tools and workflow ids an autonomy override may name. */
export const skillNames = [
  "run_research",
  "run_content_creation",
  "ask_cmo",
  "schedule_content",
  "publish_to_social",
  "generate_lead_magnet",
  "ai_seo_audit",
  "cro_audit",
  "query_ga4",
  "track_revenue",
  "check_ai_visibility",
  "analyze_brand_url",
  "weekly-content-plan",
  "daily-social-posts",
  "monthly-seo-audit",
  "competitor-research",
  "lead-magnet",
  "performance-report"
] as const
export type SkillName = typeof skillNames[number]

/** Channels a budget cap may name: the six platforms, ad spend and model usage. */
export const budgetChannels = ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest", "ads", "model"] as const
export const BudgetChannel = Schema.Literals(budgetChannels)
export type BudgetChannel = typeof BudgetChannel.Type

export const AutonomyLevel = Schema.Number.check(
  Schema.isInt({ message: "must be an integer" }),
  Schema.isBetween({ minimum: 1, maximum: 5 }, { message: "must be between 1 and 5" })
).annotate({ description: "1 draft, 2-3 awaits approval, 4 approved and queued, 5 approved and published at once" })

export const Amount = Schema.Number.check(
  Schema.isFinite({ message: "must be a finite number" }),
  Schema.isGreaterThanOrEqualTo(0, { message: "must be at least 0" })
)

/** A struct with one optional property per allowed key, so unknown keys fail a strict decode. */
const keyed = <V extends Schema.Top>(keys: ReadonlyArray<string>, value: V) =>
  Schema.Struct(Object.fromEntries(keys.map((key) => [key, Schema.optionalKey(value)])) as Record<
    string,
    Schema.optionalKey<V>
  >)

export const Autonomy = Schema.Struct({
  globalDefault: AutonomyLevel,
  categories: keyed(ContentType.literals, AutonomyLevel),
  skills: keyed(skillNames, AutonomyLevel)
}).annotate({ identifier: "Autonomy" })
export type Autonomy = typeof Autonomy.Type

export const Budget = Schema.Struct({
  daily: Schema.NullOr(Amount),
  weekly: Schema.NullOr(Amount),
  monthly: Schema.NullOr(Amount),
  channels: keyed(budgetChannels, Amount)
}).annotate({
  identifier: "Budget",
  description: "Caps in the account currency; null means no cap. Channel caps apply per calendar month (UTC)."
})
export type Budget = typeof Budget.Type

export const Tracking = Schema.Struct({
  links: Schema.Boolean.annotate({
    description: "Rewrite http(s) links of published posts to tracked `/r/{code}` links with UTM parameters"
  })
}).annotate({ identifier: "Tracking" })
export type Tracking = typeof Tracking.Type

export const Settings = Schema.Struct({ autonomy: Autonomy, budget: Budget, tracking: Tracking }).annotate({
  identifier: "Settings"
})
export type Settings = typeof Settings.Type

export const defaultSettings: Settings = {
  autonomy: { globalDefault: 2, categories: {}, skills: {} },
  budget: { daily: null, weekly: null, monthly: null, channels: {} },
  tracking: { links: true }
}

/** Updates merge into the stored settings; `null` removes an override or a cap. */
export const AutonomyUpdate = Schema.Struct({
  globalDefault: Schema.optionalKey(AutonomyLevel),
  categories: Schema.optionalKey(keyed(ContentType.literals, Schema.NullOr(AutonomyLevel))),
  skills: Schema.optionalKey(keyed(skillNames, Schema.NullOr(AutonomyLevel)))
}).annotate({
  identifier: "AutonomyUpdate",
  description:
    "Merged into the current autonomy; a `null` category or skill removes that override. Unknown keys are rejected."
})
export type AutonomyUpdate = typeof AutonomyUpdate.Type

export const BudgetUpdate = Schema.Struct({
  daily: Schema.optionalKey(Schema.NullOr(Amount)),
  weekly: Schema.optionalKey(Schema.NullOr(Amount)),
  monthly: Schema.optionalKey(Schema.NullOr(Amount)),
  channels: Schema.optionalKey(keyed(budgetChannels, Schema.NullOr(Amount)))
}).annotate({
  identifier: "BudgetUpdate",
  description: "Merged into the current budget; `null` removes a cap. Unknown channels are rejected."
})
export type BudgetUpdate = typeof BudgetUpdate.Type

/** Overlays `patch` on `base`, dropping keys set to null. */
const overlay = <V>(base: Readonly<Record<string, V>>, patch: Readonly<Record<string, V | null>> | undefined) => {
  const out: Record<string, V> = { ...base }
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null) delete out[key]
    else if (value !== undefined) out[key] = value
  }
  return out
}

export const mergeAutonomy = (current: Autonomy, update: AutonomyUpdate): Autonomy => ({
  globalDefault: update.globalDefault ?? current.globalDefault,
  categories: overlay(current.categories, update.categories),
  skills: overlay(current.skills, update.skills)
})

export const mergeBudget = (current: Budget, update: BudgetUpdate): Budget => ({
  daily: update.daily === undefined ? current.daily : update.daily,
  weekly: update.weekly === undefined ? current.weekly : update.weekly,
  monthly: update.monthly === undefined ? current.monthly : update.monthly,
  channels: overlay(current.channels, update.channels)
})

export const TrackingUpdate = Schema.Struct({
  links: Schema.optionalKey(Schema.Boolean)
}).annotate({
  identifier: "TrackingUpdate",
  description: "Merged into the current tracking settings. Unknown keys are rejected."
})
export type TrackingUpdate = typeof TrackingUpdate.Type
