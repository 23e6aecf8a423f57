import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Workflows } from "./Workflows.ts"

export const WorkflowsHandlers = leanGroup(Effect.gen(function*() {
  const workflows = yield* Workflows
  return HttpApiBuilder.group(Api, "workflows", (handlers) =>
    handlers.handleAll({
      list: ({ params }) => Effect.map(workflows.list(params.customerId), (list) => ({ workflows: list })),
      update: ({ params, payload }) => workflows.update(params.customerId, params.workflowId, payload),
      toggle: ({ params, payload }) => workflows.toggle(params.customerId, params.workflowId, payload.enabled),
      run: ({ params, payload }) =>
        workflows.start(params.customerId, params.workflowId, payload.input ?? {}, "manual"),
      listRuns: ({ params, query }) =>
        Effect.map(
          workflows.listRuns(params.customerId, {
            workflow: query.workflow,
            status: query.status,
            limit: query.limit ?? 25
          }),
          (runs) => ({ runs })
        ),
      getRun: ({ params }) => workflows.getRun(params.customerId, params.runId),
      cancel: ({ params }) => workflows.cancel(params.customerId, params.runId)
    }))
}))
