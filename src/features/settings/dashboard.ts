import { Effect, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { BudgetUpdate } from "../../domain/Settings.ts"
import { html } from "../../platform/http/Html.ts"
import { backTo, dashboardChange, invalidField } from "../dashboard/Change.ts"
import { canChange, csrfField, type DashboardSection } from "../dashboard/Dashboard.ts"
import { Settings } from "./Settings.ts"

const decodeBudget = Schema.decodeUnknownEffect(BudgetUpdate)

/** A money amount from a form field: empty means no cap. */
const amountField = (form: URLSearchParams, name: string) => {
  const text = (form.get(name) ?? "").trim()
  return text === "" ? null : /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : Number.NaN
}

/** The default autonomy level and the budget caps: forms for admins, a summary for the rest. */
export const settingsSection = (settings: Settings["Service"]): DashboardSection => ({
  id: "settings",
  title: "Autonomy and budget",
  order: 40,
  render: (context) =>
    Effect.gen(function*() {
      const current = yield* settings.get(context.customer.id)
      const { autonomy, budget } = current
      const amount = (value: number | null) => (value === null ? "" : String(value))
      if (!canChange(context, "admin")) {
        return html`<ul class="plain list"><li>Default autonomy level: <strong>${autonomy.globalDefault}</strong></li>
<li>Budget: daily ${budget.daily ?? "no cap"}, weekly ${budget.weekly ?? "no cap"}, monthly ${
          budget.monthly ?? "no cap"
        }</li></ul>`
      }
      const levels = [
        [1, "1 · Drafts only"],
        [2, "2 · Ask before publishing"],
        [3, "3 · Ask before publishing (more initiative)"],
        [4, "4 · Publish on schedule"],
        [5, "5 · Publish at once"]
      ] as const
      return html`<form method="post" action="/dashboard/settings/autonomy" class="stack">${csrfField(context)}
<label>Default autonomy level<select name="globalDefault">${
        levels.map(([level, label]) =>
          html`<option value="${level}"${autonomy.globalDefault === level ? html` selected` : ""}>${label}</option>`
        )
      }</select></label><button type="submit" class="secondary">Save autonomy</button></form>
<hr>
<form method="post" action="/dashboard/settings/budget" class="stack">${csrfField(context)}
<label>Daily cap<input type="number" name="daily" min="0" step="0.01" value="${
        amount(budget.daily)
      }" placeholder="No cap"></label>
<label>Weekly cap<input type="number" name="weekly" min="0" step="0.01" value="${
        amount(budget.weekly)
      }" placeholder="No cap"></label>
<label>Monthly cap<input type="number" name="monthly" min="0" step="0.01" value="${
        amount(budget.monthly)
      }" placeholder="No cap"></label>
<button type="submit" class="secondary">Save budget</button></form>`
    })
})

/** The settings section's two forms: the default autonomy level and the budget caps. */
export const SettingsDashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const change = yield* dashboardChange
    const settings = yield* Settings
    yield* router.add(
      "POST",
      "/dashboard/settings/autonomy",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const level = Number(form.get("globalDefault"))
          if (!Number.isInteger(level) || level < 1 || level > 5) {
            return yield* invalidField("globalDefault", "must be an integer from 1 to 5")
          }
          yield* settings.updateAutonomy(session.principal.customerId, { globalDefault: level as 1 | 2 | 3 | 4 | 5 })
          return backTo("settings")
        }))
    )
    yield* router.add(
      "POST",
      "/dashboard/settings/budget",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const update = yield* decodeBudget({
            daily: amountField(form, "daily"),
            weekly: amountField(form, "weekly"),
            monthly: amountField(form, "monthly")
          }).pipe(
            Effect.mapError(() => invalidField("budget", "amounts must be numbers of at least 0, or empty for no cap"))
          )
          yield* settings.updateBudget(session.principal.customerId, update)
          return backTo("settings")
        }))
    )
  })
)
