import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { NotFound } from "../../domain/Errors.ts"
import { isCatalogId, type WorkflowRun } from "../../domain/Workflows.ts"
import { html } from "../../platform/http/Html.ts"
import { backTo, dashboardChange, invalidField } from "../dashboard/Change.ts"
import { canChange, csrfField, type DashboardSection, formatDate, statusBadge } from "../dashboard/Dashboard.ts"
import { Workflows } from "./Workflows.ts"

/** Bounds of the workflows section: workflows shown, and last runs per workflow. */
export const workflowLimits = { workflows: 20, runsPerWorkflow: 3 } as const

const runLine = (run: WorkflowRun) =>
  html`<li class="row small"><span>${statusBadge(run.status)} ${formatDate(run.startedAt)}</span><span class="muted">${
    run.error === null ? "" : run.error.length > 120 ? `${run.error.slice(0, 120)}…` : run.error
  }</span></li>`

/**
 * The customer's workflows: schedule, next tick, on/off (a toggle form for
 * admins) and each one's last runs (one bounded, indexed read per workflow).
 */
export const workflowsSection = (workflows: Workflows["Service"]): DashboardSection => ({
  id: "workflows",
  title: "Workflows",
  order: 35,
  wide: true,
  render: (context) =>
    Effect.gen(function*() {
      const list = (yield* workflows.list(context.customer.id)).slice(0, workflowLimits.workflows)
      if (list.length === 0) return html`<p class="muted">No workflows.</p>`
      const runs = yield* Effect.forEach(list, (w) =>
        workflows.listRuns(context.customer.id, { workflow: w.id, limit: workflowLimits.runsPerWorkflow }), {
        concurrency: 3
      })
      const editable = canChange(context, "admin")
      return html`<ul class="plain list">${
        list.map((w, i) =>
          html`<li data-workflow-id="${w.id}"><div class="row"><span class="item-title">${w.name}</span>${
            statusBadge(w.enabled ? "active" : "disabled")
          }</div>
<p class="muted small">${w.description}</p>
<p class="small">${
            w.schedule === null
              ? "Runs on demand"
              : html`Schedule <code>${w.schedule}</code> (${w.timezone})${
                w.nextRunAt === null ? "" : html` · next run ${formatDate(w.nextRunAt)}`
              }`
          }</p>${
            editable
              ? html`<form method="post" action="/dashboard/workflows/${w.id}/toggle" class="inline">${
                csrfField(context)
              }
<input type="hidden" name="enabled" value="${w.enabled ? "false" : "true"}">
<button type="submit" class="${w.enabled ? "secondary" : ""}">${w.enabled ? "Turn off" : "Turn on"}</button></form>`
              : ""
          }${
            runs[i]!.length === 0
              ? html`<p class="muted small">No runs yet.</p>`
              : html`<details><summary>Last runs</summary><ul class="plain">${runs[i]!.map(runLine)}</ul></details>`
          }</li>`
        )
      }</ul>`
    })
})

/** The section's form route: POST /dashboard/workflows/{workflowId}/toggle (admin), `enabled` true or false. */
export const WorkflowDashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const change = yield* dashboardChange
    const workflows = yield* Workflows
    yield* router.add(
      "POST",
      "/dashboard/workflows/:workflowId/toggle",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const workflowId = (yield* HttpRouter.params).workflowId ?? ""
          if (!isCatalogId(workflowId)) return yield* new NotFound({ error: "Workflow not found" })
          const enabled = form.get("enabled")
          if (enabled !== "true" && enabled !== "false") return yield* invalidField("enabled", "must be true or false")
          yield* workflows.toggle(session.principal.customerId, workflowId, enabled === "true")
          return backTo("workflows")
        }))
    )
  })
)
