import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict, ValidationError } from "../domain/Errors.ts"
import { RunIdPath } from "../domain/Ids.ts"
import { PathId } from "../domain/Text.ts"
import { isMaxChars, storableText } from "../domain/Text.ts"
import {
  RunRequest,
  RunStatus,
  Toggle,
  Workflow,
  WorkflowRun,
  WorkflowRunDetail,
  WorkflowUpdate
} from "../domain/Workflows.ts"
import { Authentication, RequiredRole } from "./Security.ts"
import { CustomerIdParam, intQuery, NotFoundError, strictParse, StrictPayload } from "./Shared.ts"

const WorkflowParams = { ...CustomerIdParam, workflowId: PathId }
const RunParams = { ...CustomerIdParam, runId: RunIdPath }

const lifecycle =
  "Run states: pending → running → succeeded | failed; running ⇄ suspended (awaiting approval of its pieces, or budget); suspended → failed. Events: workflow.started, workflow.suspended, workflow.resumed, workflow.completed, workflow.failed; the `workflow.completed` webhook fires for both outcomes with `status` in its data. A run waiting for approval goes on once every piece it wrote is decided: rejected pieces are dropped, approved ones go on (to the publisher), and the run succeeds with `output.approved` and `output.rejected`; it fails with error `rejected in review` only when every piece was rejected."

/** The workflow catalog and its runs. Reads need the viewer role; changes and runs the admin role. */
export class WorkflowsApi extends HttpApiGroup.make("workflows")
  .add(
    HttpApiEndpoint.get("list", "/api/workflows/:customerId", {
      params: CustomerIdParam,
      success: Schema.Struct({ workflows: Schema.Array(Workflow) })
    }).annotateMerge(OpenApi.annotations({
      summary: "List workflows",
      description:
        "The customer's workflow catalog: weekly-content-plan, daily-social-posts, monthly-seo-audit, competitor-research, lead-magnet, performance-report. `nextRunAt` is the next cron tick (null when disabled or unscheduled)."
    })),
    HttpApiEndpoint.put("update", "/api/workflows/:customerId/:workflowId", {
      params: WorkflowParams,
      payload: WorkflowUpdate,
      success: Workflow,
      error: [NotFoundError, ValidationError]
    }).annotate(RequiredRole, "admin").annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Configure a workflow",
      description:
        "Sets `schedule` (5-field cron, or null for on-demand only), `timezone` (IANA name, default UTC), `name`, `description` and `config` (the workflow's options, each workflow its own schema: platforms from the platform list, topics, competitors as http(s) URLs, postsPerWeek 1-21, postsPerDay 1-12, scheduledAt, url, period, brand fields). Any other property, an option the workflow does not take, or a wrong value is 400 `E_VALIDATION` naming it (`body.config.platforms`). The schedule takes effect at once. Cron fires in the workflow's time zone: a time skipped by a daylight-saving change runs once at the first valid instant after it, a repeated hour runs once. Admin role."
    })),
    HttpApiEndpoint.post("toggle", "/api/workflows/:customerId/:workflowId/toggle", {
      params: WorkflowParams,
      payload: Toggle,
      success: Workflow,
      error: NotFoundError
    }).annotate(RequiredRole, "admin").annotateMerge(OpenApi.annotations({
      summary: "Enable or disable a workflow",
      description: "Sets `enabled`. A disabled workflow never fires by cron; it can still be run by hand. Admin role."
    })),
    HttpApiEndpoint.post("run", "/api/workflows/:customerId/:workflowId/run", {
      params: WorkflowParams,
      payload: RunRequest,
      success: WorkflowRun,
      error: [NotFoundError, ValidationError]
    }).annotate(RequiredRole, "admin").annotateMerge(OpenApi.annotations({
      summary: "Run a workflow now",
      description:
        `Starts a run (status \`pending\`) on the durable engine; \`input\` is laid over the workflow's \`config\` for this run and is checked against the same options schema (400 naming the option, \`body.input.period\`). ${lifecycle} Admin role.`
    })),
    HttpApiEndpoint.get("listRuns", "/api/runs/:customerId", {
      params: CustomerIdParam,
      query: {
        workflow: Schema.optional(Schema.String.check(isMaxChars(100), storableText)),
        status: Schema.optional(RunStatus),
        limit: Schema.optional(intQuery(1, 100, 25))
      },
      success: Schema.Struct({ runs: Schema.Array(WorkflowRun) })
    }).annotateMerge(OpenApi.annotations({
      summary: "List runs",
      description: "Newest first; filter by `workflow` id and `status`; `limit` 1-100 (default 25)."
    })),
    HttpApiEndpoint.get("getRun", "/api/runs/:customerId/:runId", {
      params: RunParams,
      success: WorkflowRunDetail,
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Get a run",
      description:
        `The run with its \`steps\` (name, status running|succeeded|failed|skipped, startedAt, completedAt, error, detail; a step that has nothing to work on (no site url, no connected platform, no competitor URLs) is \`skipped\` with the reason in \`detail.reason\`) and \`output\`. ${lifecycle}`
    })),
    HttpApiEndpoint.post("cancel", "/api/runs/:customerId/:runId/cancel", {
      params: RunParams,
      success: WorkflowRun,
      error: [NotFoundError, Conflict]
    }).annotate(RequiredRole, "admin").annotateMerge(OpenApi.annotations({
      summary: "Cancel a run",
      description:
        "Ends a pending, running or suspended run as `failed` with error `cancelled`; its pieces still `pending_approval` are rejected with the review note `run cancelled` (event and webhook as any rejection). 409 when it has already ended. Admin role."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Workflows", description: "The workflow catalog, schedules and runs" }))
{}
