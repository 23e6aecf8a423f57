import { Effect } from "effect"
import { html } from "../../platform/http/Html.ts"
import { type DashboardSection, formatDate } from "./Dashboard.ts"

/** The account itself (email, id, plan, MCP endpoint): the dashboard's own, as no capability owns it. */
export const accountSection: DashboardSection = {
  id: "account",
  title: "Account",
  order: 45,
  render: (context) =>
    Effect.succeed(html`<ul class="plain list">
<li><span class="muted small">Email</span><br>${context.customer.email}</li>
<li><span class="muted small">Customer id</span><br><code>${context.customer.id}</code></li>
<li><span class="muted small">Plan</span><br>Pro${
      context.customer.trialEndsAt === null ? "" : html` · free trial until ${formatDate(context.customer.trialEndsAt)}`
    }</li>
<li><span class="muted small">MCP endpoint</span><br><code>${context.customer.mcpEndpoint}</code></li>
</ul>`)
}
