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
