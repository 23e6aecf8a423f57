import { Effect, Exit, Option, Schema } from "effect"
import { ValidationError } from "../../domain/Errors.ts"
import { type CatalogId, type RunOptions, workflowOptions } from "../../domain/Workflows.ts"
import { describeIssues } from "../../platform/http/ValidationMessages.ts"
import { handToPublisher } from "./steps/publish.ts"
import { readAnalytics, writeAuditReport, writePerformanceReport, writePositioningBrief } from "./steps/report.ts"
import { scanCompetitors, scanSite } from "./steps/scan.ts"
import type { StepDefinition } from "./steps/Step.ts"
import { bounded, socialPlatforms, writeBlogPost, writeLeadMagnet, writeSocialPosts } from "./steps/write.ts"

/**
 * Where a run waits until every piece it wrote is decided in review. The run
 * itself does the waiting (it suspends); this marker keeps its place in the order.
 */
export const awaitApproval: StepDefinition = {
  name: "await-approval",
  run: () => Effect.succeed({ status: "succeeded", detail: {} })
}

export interface CatalogEntry {
  /** What `config` (and a run's `input`) may say; the API validates with it and documents it. */
  readonly options: Schema.Top
  readonly steps: ReadonlyArray<StepDefinition>
}

/** The six workflows of every customer's catalog: each one's options and its steps, in order. */
export const catalog: { readonly [Id in CatalogId]: CatalogEntry & { readonly options: typeof workflowOptions[Id] } } =
  {
    "weekly-content-plan": {
      options: workflowOptions["weekly-content-plan"],
      steps: [
        writeBlogPost,
        writeSocialPosts((ctx) => bounded(ctx.options.postsPerWeek, 1, 21, 3)),
        awaitApproval,
        handToPublisher
      ]
    },
    "daily-social-posts": {
      options: workflowOptions["daily-social-posts"],
      steps: [
        writeSocialPosts((ctx) => bounded(ctx.options.postsPerDay, 1, 12, socialPlatforms(ctx).length)),
        awaitApproval,
        handToPublisher
      ]
    },
    "monthly-seo-audit": { options: workflowOptions["monthly-seo-audit"], steps: [scanSite, writeAuditReport] },
    "competitor-research": {
      options: workflowOptions["competitor-research"],
      steps: [scanCompetitors, writePositioningBrief]
    },
    "lead-magnet": { options: workflowOptions["lead-magnet"], steps: [writeLeadMagnet, awaitApproval] },
    "performance-report": {
      options: workflowOptions["performance-report"],
      steps: [readAnalytics, writePerformanceReport]
    }
  }

/**
 * Checks options given for a workflow (`config`, or a run's `input`) against
 * its schema: an unknown option or a wrong value is a validation error naming
 * it under `at` (`body.config.platforms`).
 */
export const checkOptions = (workflowId: CatalogId, value: Readonly<Record<string, unknown>>, at: string) => {
  const schema: Schema.Codec<RunOptions, unknown> = catalog[workflowId].options
  const decoded = Schema.decodeUnknownExit(schema, { onExcessProperty: "error", errors: "all" })(value)
  if (Exit.isSuccess(decoded)) return Effect.succeed(decoded.value)
  const failure = Exit.findErrorOption(decoded)
  const issue = Option.isSome(failure) && Schema.isSchemaError(failure.value) ? failure.value.issue : undefined
  const details = (issue === undefined ? [] : describeIssues(issue)).map((d) => ({
    path: [at, ...d.path.map(String)].join("."),
    message: d.message
  }))
  const head = details[0] ?? { path: at, message: "is not valid" }
  return Effect.fail(
    new ValidationError({
      error: `Invalid ${head.path}: ${head.message}`,
      details: details.length > 0 ? details : [head]
    })
  )
}

/**
 * A run's options: the workflow's config with the run's input laid over it,
 * each option decoded with the workflow's schema. An option the schema does
 * not accept (a config stored before options were checked) is left out, so
 * the step uses its default.
 */
export const runOptions = (workflowId: CatalogId, raw: Record<string, unknown>): RunOptions => {
  const schema: Schema.Codec<RunOptions, unknown> = catalog[workflowId].options
  const decode = Schema.decodeUnknownOption(schema)
  let options: RunOptions = {}
  for (const [name, value] of Object.entries(raw)) {
    const decoded = decode({ [name]: value })
    if (Option.isSome(decoded)) options = { ...options, ...decoded.value }
  }
  return options
}
