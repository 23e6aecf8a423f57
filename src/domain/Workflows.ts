import { Schema } from "effect"
import { cronProblem, isTimeZone } from "./Cron.ts"
import { isMaxChars, storableJson, storableText } from "./Text.ts"

/** The default catalog, in the order it is listed. */
export const catalogIds = [
  "weekly-content-plan",
  "daily-social-posts",
  "monthly-seo-audit",
  "competitor-research",
  "lead-magnet",
  "performance-report"
] as const
export type CatalogId = typeof catalogIds[number]
export const isCatalogId = (id: string): id is CatalogId => (catalogIds as ReadonlyArray<string>).includes(id)

export const RunStatus = Schema.Literals(["pending", "running", "suspended", "succeeded", "failed"])
export type RunStatus = typeof RunStatus.Type

const dateTime = Schema.String.annotate({ format: "date-time" })

export const Workflow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  enabled: Schema.Boolean,
  schedule: Schema.NullOr(Schema.String),
  timezone: Schema.String,
  config: Schema.Record(Schema.String, Schema.Unknown),
  nextRunAt: Schema.NullOr(dateTime)
}).annotate({ identifier: "Workflow" })
export type Workflow = typeof Workflow.Type

export const StepStatus = Schema.Literals(["running", "succeeded", "failed", "skipped"])

export const RunStep = Schema.Struct({
  name: Schema.String,
  status: StepStatus,
  startedAt: dateTime,
  completedAt: Schema.NullOr(dateTime),
  error: Schema.NullOr(Schema.String),
  detail: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "WorkflowRunStep" })
export type RunStep = typeof RunStep.Type

export const WorkflowRun = Schema.Struct({
  runId: Schema.String,
  workflow: Schema.String,
  status: RunStatus,
  startedAt: dateTime,
  completedAt: Schema.NullOr(dateTime),
  error: Schema.NullOr(Schema.String)
}).annotate({ identifier: "WorkflowRun" })
export type WorkflowRun = typeof WorkflowRun.Type

export const WorkflowRunDetail = Schema.Struct({
  ...WorkflowRun.fields,
  steps: Schema.Array(RunStep),
  output: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "WorkflowRunDetail" })
export type WorkflowRunDetail = typeof WorkflowRunDetail.Type

const CronSchedule = Schema.String.check(
  Schema.makeFilter((text: string) => cronProblem(text) ?? true)
).annotate({ description: "A 5-field cron expression (minute hour day-of-month month day-of-week)" })

export const TimeZone = Schema.String.check(
  Schema.makeFilter((text: string) => isTimeZone(text) ? true : "must be an IANA time zone name such as Europe/Berlin")
).annotate({ description: "IANA time zone name; default UTC" })

/** A workflow's options; at most 50 keys, storable JSON. */
export const WorkflowConfig = Schema.Record(Schema.String, Schema.Unknown).check(
  Schema.isMaxProperties(50, { message: "must have at most 50 keys" }),
  storableJson
).annotate({ description: "The workflow's options, such as platforms, topics, competitors, postsPerWeek, url" })

export const WorkflowUpdate = Schema.Struct({
  schedule: Schema.optionalKey(Schema.NullOr(CronSchedule)),
  timezone: Schema.optionalKey(TimeZone),
  name: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), isMaxChars(100), storableText)),
  description: Schema.optionalKey(Schema.String.check(isMaxChars(1000), storableText)),
  config: Schema.optionalKey(WorkflowConfig)
}).annotate({
  identifier: "WorkflowUpdate",
  description: "Only `schedule`, `timezone`, `name`, `description` and `config`; any other property is 400"
})
export type WorkflowUpdate = typeof WorkflowUpdate.Type

export const Toggle = Schema.Struct({ enabled: Schema.Boolean }).annotate({ identifier: "WorkflowToggle" })

export const RunRequest = Schema.Struct({
  input: Schema.optionalKey(WorkflowConfig)
}).annotate({ identifier: "WorkflowRunRequest", description: "`input` overrides the workflow's config for this run" })

/**
 * Every option a catalog workflow may take, by name. Each workflow's options
 * schema picks the ones it reads (see `workflowOptions`); a step reads them
 * typed, never from an untyped bag.
 */
const Texts = Schema.Array(Schema.String)
export const optionFields = {
  platforms: Schema.optionalKey(Texts),
  topics: Schema.optionalKey(Texts),
  keywords: Schema.optionalKey(Texts),
  postsPerWeek: Schema.optionalKey(Schema.Number),
  postsPerDay: Schema.optionalKey(Schema.Number),
  scheduledAt: Schema.optionalKey(Schema.String),
  competitors: Schema.optionalKey(Texts),
  url: Schema.optionalKey(Schema.NullOr(Schema.String)),
  period: Schema.optionalKey(Schema.String),
  topic: Schema.optionalKey(Schema.String),
  format: Schema.optionalKey(Schema.String),
  brandName: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  voice: Schema.optionalKey(Schema.Union([Schema.String, Texts])),
  audience: Schema.optionalKey(Schema.Union([Schema.String, Texts])),
  products: Schema.optionalKey(Texts)
}
type OptionName = keyof typeof optionFields

/** The options of one run as the steps read them: any workflow's, each optional. */
export type RunOptions = Schema.Struct<typeof optionFields>["Type"]

const brandOptions = ["brandName", "description", "voice", "audience", "products"] as const
const pick = <const K extends ReadonlyArray<OptionName>>(identifier: string, names: K) =>
  Schema.Struct(Object.fromEntries(names.map((name) => [name, optionFields[name]])) as { [N in K[number]]: typeof optionFields[N] })
    .annotate({ identifier })

/** Each catalog workflow's options: what `config` (and a run's `input`) may say. */
export const workflowOptions = {
  "weekly-content-plan": pick("WeeklyContentPlanOptions", ["platforms", "topics", "keywords", "postsPerWeek", "scheduledAt", ...brandOptions]),
  "daily-social-posts": pick("DailySocialPostsOptions", ["platforms", "topics", "keywords", "postsPerDay", "scheduledAt", ...brandOptions]),
  "monthly-seo-audit": pick("MonthlySeoAuditOptions", ["url", "keywords", ...brandOptions]),
  "competitor-research": pick("CompetitorResearchOptions", ["competitors", "topics", "topic", "keywords", ...brandOptions]),
  "lead-magnet": pick("LeadMagnetOptions", ["topics", "topic", "format", "keywords", ...brandOptions]),
  "performance-report": pick("PerformanceReportOptions", ["period", "keywords", ...brandOptions])
} satisfies Record<CatalogId, Schema.Top>
