import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { CustomerId, RunId } from "../../../domain/Ids.ts"
import type { CatalogId, RunOptions } from "../../../domain/Workflows.ts"
import type { Writer } from "../../agent/Agent.ts"
import type { Analytics } from "../../analytics/Analytics.ts"
import type { Content } from "../../content/Content.ts"
import type { Customers } from "../../customers/Customers.ts"
import type { Onboarding } from "../../onboarding/Onboarding.ts"
import type { Reports } from "../../reports/Reports.ts"
import type { Scanner } from "../../scan/Scanner.ts"
import type { Social } from "../../social/Social.ts"

/** The services steps work through (provided by the run). */
export type StepServices =
  | SqlClient.SqlClient
  | Content
  | Writer
  | Customers
  | Social
  | Scanner
  | Analytics
  | Onboarding
  | Reports

/** What a finished step reports: succeeded with what it did, or skipped with why. */
export const StepOutcome = Schema.Struct({
  status: Schema.Literals(["succeeded", "skipped"]),
  detail: Schema.Record(Schema.String, Schema.Unknown)
})
export type StepOutcome = typeof StepOutcome.Type

/** A step that could not finish: the run fails with this message. */
export class StepFailed extends Schema.TaggedError<StepFailed>()("StepFailed", { message: Schema.String }) {}

/** A step refused by a budget cap: the run suspends, waits, and tries the step again. */
export class OverBudget extends Schema.TaggedError<OverBudget>()("OverBudget", { message: Schema.String }) {}

export const StepError = Schema.Union([StepFailed, OverBudget])
export type StepError = StepFailed | OverBudget

export interface RunContext {
  readonly runId: RunId
  readonly customerId: CustomerId
  readonly workflowId: CatalogId
  /** The workflow's config with the run's input laid over it, decoded with the workflow's options schema. */
  readonly options: RunOptions
}

export interface StepDefinition {
  readonly name: string
  readonly run: (ctx: RunContext) => Effect.Effect<StepOutcome, StepError, StepServices>
}

export const succeeded = (detail: Record<string, unknown>): StepOutcome => ({ status: "succeeded", detail })

/** A step with nothing to work on: skipped, with the reason recorded. */
export const skipped = (reason: string, detail: Record<string, unknown> = {}): Effect.Effect<StepOutcome> =>
  Effect.succeed({ status: "skipped", detail: { reason, ...detail } })

/** The non-empty, trimmed strings of an option list. */
export const texts = (value: ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  (value ?? []).map((v) => v.trim()).filter((v) => v.length > 0)

export const text = (value: string | null | undefined): string | undefined =>
  typeof value === "string" && value.trim().length > 0 ? value.trim() : undefined
