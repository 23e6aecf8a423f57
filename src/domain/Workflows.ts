import { Schema } from "effect"
import { cronProblem, isTimeZone } from "./Cron.ts"
import { RunId } from "./Ids.ts"
import { SocialPlatform, socialPlatforms } from "./Social.ts"
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
  runId: RunId,
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

/**
 * Every option a catalog workflow may take, by name. Each workflow's options
 * schema picks the ones it reads (see `workflowOptions`); a step reads them
 * typed, never from an untyped bag.
 */
const words = (max: number, description: string) =>
  Schema.String.check(Schema.isMinLength(1), isMaxChars(max), storableText).annotate({ description })
const list = <S extends Schema.Top>(item: S, max: number, description: string) =>
  Schema.Array(item).check(Schema.isMaxLength(max)).annotate({ description })
const textOrList = (max: number, description: string) =>
  Schema.Union([words(max, description), list(words(max, description), 20, description)])
const WebUrl = Schema.String.check(
  isMaxChars(2048),
  storableText,
  Schema.makeFilter((value: string) => {
    const url = URL.parse(value)
    return (url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0) ||
      "must be an absolute http or https URL"
  }, { toJsonSchema: () => ({ format: "uri" }) })
)
/** An instant with its zone, as the rest of the API writes them. */
const Instant = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/, {
    message: "must be an ISO 8601 date-time with a zone"
  }),
  Schema.makeFilter(
    (value: string) => !Number.isNaN(Date.parse(value)) || "must be an ISO 8601 date-time with a zone",
    {
      toJsonSchema: () => ({ format: "date-time" })
    }
  )
)
const count = (min: number, max: number, description: string) =>
  Schema.Int.check(
    Schema.isBetween({ minimum: min, maximum: max }, { message: `must be an integer between ${min} and ${max}` })
  )
    .annotate({ description })

export const optionFields = {
  platforms: Schema.optionalKey(
    list(SocialPlatform, socialPlatforms.length, "Platforms to write for, in turn (default linkedin and x)")
  ),
  topics: Schema.optionalKey(
    list(words(500, "A topic"), 20, "Topics to write about, in turn (default: topics from the brand)")
  ),
  keywords: Schema.optionalKey(list(words(100, "A keyword"), 20, "Keywords to work into the copy")),
  postsPerWeek: Schema.optionalKey(count(1, 21, "Social posts per run (default 3)")),
  postsPerDay: Schema.optionalKey(count(1, 12, "Social posts per run (default one per platform)")),
  scheduledAt: Schema.optionalKey(
    Instant.annotate({ description: "When approved posts go out (a future instant; default at once)" })
  ),
  competitors: Schema.optionalKey(list(WebUrl, 5, "Competitors' sites (http(s) URLs) to scan and compare with")),
  competitorNames: Schema.optionalKey(
    list(words(300, "A competitor's name"), 10, "Competitors without a site to scan, named in the brief")
  ),
  url: Schema.optionalKey(
    Schema.NullOr(WebUrl).annotate({ description: "The site to audit (default: the brand profile's sourceUrl)" })
  ),
  period: Schema.optionalKey(
    Schema.Literals(["7d", "30d", "90d", "last_7_days", "last_30_days", "last_90_days"]).annotate({
      description: "The period reported on (default 7d)"
    })
  ),
  topic: Schema.optionalKey(words(500, "The topic of this run")),
  format: Schema.optionalKey(
    Schema.Literals(["checklist", "guide", "template", "ebook"]).annotate({ description: "The lead magnet's format" })
  ),
  brandName: Schema.optionalKey(words(200, "The brand written for (default: the brand profile's)")),
  description: Schema.optionalKey(words(2000, "What the brand does")),
  voice: Schema.optionalKey(textOrList(300, "The brand's voice")),
  audience: Schema.optionalKey(textOrList(300, "Who the brand writes for")),
  products: Schema.optionalKey(list(words(200, "A product"), 50, "The brand's products"))
}
type OptionName = keyof typeof optionFields

/** The options of one run as the steps read them: any workflow's, each optional. */
export type RunOptions = Schema.Struct<typeof optionFields>["Type"]

const brandOptions = ["brandName", "description", "voice", "audience", "products"] as const
const pick = <const K extends ReadonlyArray<OptionName>>(workflow: CatalogId, identifier: string, names: K) =>
  Schema.Struct(
    Object.fromEntries(names.map((name) => [name, optionFields[name]])) as { [N in K[number]]: typeof optionFields[N] }
  )
    .annotate({ identifier, description: `The options (\`config\`, and a run's \`input\`) of \`${workflow}\`` })

/** Each catalog workflow's options: what `config` (and a run's `input`) may say. */
export const workflowOptions = {
  "weekly-content-plan": pick("weekly-content-plan", "WeeklyContentPlanOptions", [
    "platforms",
    "topics",
    "keywords",
    "postsPerWeek",
    "scheduledAt",
    ...brandOptions
  ]),
  "daily-social-posts": pick("daily-social-posts", "DailySocialPostsOptions", [
    "platforms",
    "topics",
    "keywords",
    "postsPerDay",
    "scheduledAt",
    ...brandOptions
  ]),
  "monthly-seo-audit": pick("monthly-seo-audit", "MonthlySeoAuditOptions", ["url", "keywords", ...brandOptions]),
  "competitor-research": pick("competitor-research", "CompetitorResearchOptions", [
    "competitors",
    "competitorNames",
    "topics",
    "topic",
    "keywords",
    ...brandOptions
  ]),
  "lead-magnet": pick("lead-magnet", "LeadMagnetOptions", ["topics", "topic", "format", "keywords", ...brandOptions]),
  "performance-report": pick("performance-report", "PerformanceReportOptions", ["period", "keywords", ...brandOptions])
} satisfies Record<CatalogId, Schema.Top>

/**
 * A workflow's options as the HTTP layer takes them: an object (at most 50
 * keys, storable JSON), checked against the named workflow's own schema by
 * the workflows service. The OpenAPI document shows the six schemas.
 */
export const WorkflowConfig = Schema.Record(Schema.String, Schema.Unknown).check(
  Schema.isMaxProperties(50, { message: "must have at most 50 keys" }),
  storableJson,
  Schema.makeFilter(() => true, {
    representation: {
      id: "herald/workflow-options",
      payload: null,
      schemas: Object.values(workflowOptions).map((schema) => schema.ast)
    },
    toJsonSchema: ({ schemas }) => [{ anyOf: schemas }, true]
  })
).annotate({
  description:
    "The workflow's options: each workflow takes its own (see its schema among these); an unknown option or a wrong value is 400 naming it"
})

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
