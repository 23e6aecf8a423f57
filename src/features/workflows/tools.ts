import { Effect } from "effect"
import { generateLeadMagnet, runResearch } from "../../api/tools/definitions.ts"
import { AppConfig } from "../../Config.ts"
import type { CustomerId, RunId } from "../../domain/Ids.ts"
import type { WorkflowRunDetail } from "../../domain/Workflows.ts"
import { implement, type ToolOutput } from "../../platform/tools/Handler.ts"
import { reportLink, Reports, reportUrl } from "../reports/Reports.ts"
import { isWebUrl } from "./steps/scan.ts"
import { Workflows } from "./Workflows.ts"

/** How long a tool call waits for the run it started to end before answering with its run id alone. */
export const runWaitMillis = 5_000
const runPollMillis = 200

/**
 * Reads the run until it has ended (succeeded, failed) or stopped to wait for
 * people (suspended: its pieces await approval), or `runWaitMillis` passed;
 * answers the run as it was last read.
 */
const awaitRun = (workflows: Workflows["Service"], customerId: CustomerId, runId: RunId) =>
  Effect.gen(function*() {
    const deadline = Date.now() + runWaitMillis
    for (;;) {
      const run = yield* workflows.getRun(customerId, runId)
      if (
        run.status === "succeeded" || run.status === "failed" || run.status === "suspended" || Date.now() >= deadline
      ) return run
      yield* Effect.sleep(runPollMillis)
    }
  })

/**
 * The report a finished run wrote (named by its output's `reportId`), whole,
 * with where to read it again; an MCP client gets it in the tool's result.
 */
const reportOf = (reports: Reports["Service"], customerId: CustomerId, run: WorkflowRunDetail) => {
  const reportId = run.output?.["reportId"]
  return typeof reportId !== "string" ? Effect.succeed(undefined) : reports.get(customerId, reportId).pipe(
    Effect.map((report) => ({ ...report, url: reportUrl(customerId, report.reportId) })),
    Effect.catchTag("NotFound", () => Effect.succeed(undefined))
  )
}

/** The answer of a workflow tool: the run id always; its steps and output as far as they got; the report it wrote. */
const runOutput = (
  customerId: CustomerId,
  run: WorkflowRunDetail,
  report?: { readonly baseUrl: string; readonly report: Effect.Success<ReturnType<typeof reportOf>> }
): ToolOutput => {
  const follow = `Follow it with GET /api/runs/${customerId}/${run.runId}.`
  const summary = run.status === "succeeded"
    ? `The ${run.workflow} run ${run.runId} finished: succeeded.`
    : run.status === "failed"
    ? `The ${run.workflow} run ${run.runId} failed: ${run.error ?? "no reason recorded"}.`
    : run.status === "suspended"
    ? `The ${run.workflow} run ${run.runId} started and is suspended: ${
      run.error ?? "its pieces await approval in the content queue"
    }. ${follow}`
    : `The ${run.workflow} run ${run.runId} started and is ${run.status}. ${follow}`
  const written = report?.report
  return {
    summary: written === undefined
      ? summary
      : `${summary} It wrote the report "${written.title}" (${written.url}):\n\n${written.body}`,
    data: {
      ...run,
      finished: run.status === "succeeded" || run.status === "failed",
      ...(written === undefined ? {} : { report: written })
    },
    links: report?.report === undefined ? undefined : [reportLink(report.baseUrl, report.report)]
  }
}

/**
 * run_research: starts the competitor-research workflow with the topic (and
 * competitors, when given, over the workflow's configured ones) and waits a
 * few seconds for it to end; the competitor brief it wrote comes with the answer.
 */
export const runResearchTool = implement(
  runResearch,
  Effect.gen(function*() {
    const workflows = yield* Workflows
    const reports = yield* Reports
    const { baseUrl } = yield* AppConfig
    return (input) =>
      Effect.gen(function*() {
        // Competitors given by their site are scanned; those given by name are named in the brief.
        const competitors = input.competitors ?? []
        const sites = competitors.filter(isWebUrl)
        const names = competitors.filter((c) => !isWebUrl(c))
        const started = yield* workflows.start(input.customerId, "competitor-research", {
          topic: input.topic,
          topics: [input.topic],
          ...(sites.length === 0 ? {} : { competitors: sites.slice(0, 5) }),
          ...(names.length === 0 ? {} : { competitorNames: names })
        }, "agent")
        const run = yield* awaitRun(workflows, input.customerId, started.runId)
        return runOutput(input.customerId, run, { baseUrl, report: yield* reportOf(reports, input.customerId, run) })
      })
  })
)

/** generate_lead_magnet: starts the lead-magnet workflow on the topic, format and audience, and waits a few seconds for it to end. */
export const generateLeadMagnetTool = implement(
  generateLeadMagnet,
  Effect.gen(function*() {
    const workflows = yield* Workflows
    return (input) =>
      Effect.gen(function*() {
        const started = yield* workflows.start(input.customerId, "lead-magnet", {
          topic: input.topic,
          topics: [input.topic],
          format: input.format ?? "checklist",
          ...(input.audience === undefined ? {} : { audience: input.audience })
        }, "agent")
        return runOutput(input.customerId, yield* awaitRun(workflows, input.customerId, started.runId))
      })
  })
)
