import { Context, Effect, Layer } from "effect"
import type { Principal } from "../../api/Security.ts"
import { trialDaysLeft } from "../../domain/Billing.ts"
import type { Customer, Role } from "../../domain/Identity.ts"
import { roleAllows } from "../../domain/Identity.ts"
import { type Html, html, layout } from "../../platform/http/Html.ts"
import { Customers } from "../customers/Customers.ts"

/** What every section gets to render itself. */
export interface DashboardContext {
  readonly customer: Customer
  readonly principal: Principal
  readonly now: Date
  /**
   * The CSRF token of a cookie sign-in: sections render their forms with it
   * (`csrfField`). Undefined on the Bearer view (`/api/dashboard/{id}`),
   * which is read-only: sections then show no forms.
   */
  readonly csrf: string | undefined
  /** The page's query, for sections that confirm what just happened (`?connected=linkedin`); empty on the Bearer view. */
  readonly query: URLSearchParams
}

/**
 * One part of the dashboard. A capability adds its own by registering a
 * section (see `DashboardSections.register`); its render closes over its own
 * services and must bound every list it shows.
 */
export interface DashboardSection {
  /** Anchor id, unique: `#queue`. */
  readonly id: string
  readonly title: string
  /** Position: lower first. Taken: queue 20, content 30, workflows 35, reports 36, social 37, analytics 38, settings 40, account 45, apps 47, webhooks 50, team 60, status 90. */
  readonly order: number
  /** The least role that sees the section at all (default viewer). */
  readonly minRole?: Role | undefined
  /** Spans the whole width (lists, tables). */
  readonly wide?: boolean | undefined
  readonly render: (context: DashboardContext) => Effect.Effect<Html>
}

/** The sections of the dashboard, registered at start-up by the capabilities that own them. */
export class DashboardSections extends Context.Service<DashboardSections, {
  readonly add: (section: DashboardSection) => void
  readonly all: () => ReadonlyArray<DashboardSection>
}>()("herald/features/dashboard/DashboardSections") {
  static readonly layer = Layer.sync(DashboardSections, () => {
    const sections = new Map<string, DashboardSection>()
    return DashboardSections.of({
      add: (section) => void sections.set(section.id, section),
      all: () => [...sections.values()].sort((a, b) => a.order - b.order || a.id.localeCompare(b.id))
    })
  })

  /**
   * A layer that adds a section when the app starts: how a capability puts
   * itself on the dashboard, in its own layer (its `Live.ts`), e.g.
   * `DashboardSections.register(Effect.map(Effect.service(Workflows), workflowsSection))`.
   */
  static readonly register = <E, R>(make: Effect.Effect<DashboardSection, E, R>) =>
    Layer.effectDiscard(Effect.gen(function*() {
      const registry = yield* DashboardSections
      registry.add(yield* make)
    }))
}

/** The hidden form field every change carries. */
export const csrfField = (context: DashboardContext): Html =>
  html`<input type="hidden" name="_csrf" value="${context.csrf ?? ""}">`

/** Whether the viewer may change what a section shows (signed in with a role that allows it). */
export const canChange = (context: DashboardContext, role: Role): boolean =>
  context.csrf !== undefined && roleAllows(context.principal.role, role)

export const formatDate = (iso: string | null | undefined): string =>
  iso === null || iso === undefined ? "—" : new Date(iso).toISOString().slice(0, 16).replace("T", " ") + " UTC"

export const statusBadge = (status: string): Html =>
  html`<span class="badge ${status}">${status.replace("_", " ")}</span>`

/** Renders the whole dashboard page from the registered sections. */
export class Dashboard extends Context.Service<Dashboard, {
  readonly page: (
    principal: Principal,
    csrf: string | undefined,
    notice?: Html,
    query?: URLSearchParams
  ) => Effect.Effect<Html>
}>()("herald/features/dashboard/Dashboard") {
  static readonly layer = Layer.effect(
    Dashboard,
    Effect.gen(function*() {
      const customers = yield* Customers
      const registry = yield* DashboardSections

      const page = (principal: Principal, csrf: string | undefined, notice?: Html, query = new URLSearchParams()) =>
        Effect.gen(function*() {
          const customer = yield* customers.get(principal.customerId).pipe(Effect.orDie)
          const context: DashboardContext = { customer, principal, now: new Date(), csrf, query }
          const visible = registry.all().filter((section) => roleAllows(principal.role, section.minRole ?? "viewer"))
          const rendered = yield* Effect.forEach(
            visible,
            (section) =>
              Effect.map(
                section.render(context),
                (body) =>
                  html`<section class="card${
                    section.wide === true ? " section-wide" : ""
                  }" id="${section.id}" aria-labelledby="${section.id}-title">
<h2 id="${section.id}-title">${section.title}</h2>${body}</section>`
              ),
            { concurrency: 4 }
          )
          const trial = customer.trialEndsAt === null
            ? undefined
            : trialDaysLeft(new Date(customer.trialEndsAt), context.now)
          const title = customer.brandName ?? customer.email
          return layout({
            title: "Dashboard",
            current: "dashboard",
            description:
              "Your Herald dashboard: approvals, content, workflows, social accounts, analytics and settings.",
            script: "/assets/copy.js",
            body: html`<div class="hero card section-wide">
<div><p class="muted small">Dashboard</p><h1>${title}</h1>
<p>${statusBadge(customer.status)} <span class="badge">Pro</span> ${
              trial === undefined
                ? ""
                : html`<span class="muted">${trial === 1 ? "1 day" : `${trial} days`} left in your free trial</span>`
            }</p></div>
<div class="muted small">Signed in as ${principal.role}${principal.memberId === null ? " (owner key)" : ""}${
              csrf === undefined ? "" : html`<form method="post" action="/dashboard/sign-out" class="inline">
<input type="hidden" name="_csrf" value="${csrf}"><button type="submit" class="secondary">Sign out</button></form>`
            }</div></div>
${
              notice ?? ""
            }
<nav class="sections small" aria-label="Sections">${
              visible.map((section, i) => html`${i === 0 ? "" : " · "}<a href="#${section.id}">${section.title}</a>`)
            }</nav>
<div class="grid">${rendered}</div>`
          })
        })

      return Dashboard.of({ page })
    })
  )
}

/**
 * An inline SVG bar chart (no script, no style attribute: the page's CSP
 * allows neither inline), for sections that chart a period, e.g. analytics.
 * Bars run across, one row per point, so every label is shown whole (up to
 * 14 characters, the longest channel name fits) with its value after the bar.
 * Labels and values are escaped like everything else made with `html`.
 */
export const svgBarChart = (
  points: ReadonlyArray<{ readonly label: string; readonly value: number }>,
  options: { readonly title: string; readonly color?: string; readonly format?: (value: number) => string } = {
    title: "Chart"
  }
): Html => {
  const row = 22
  const labelWidth = 96
  const valueWidth = 72
  const barArea = 200
  const width = labelWidth + barArea + valueWidth
  const height = Math.max(1, points.length) * row + 4
  const values = points.map((p) => (Number.isFinite(p.value) ? Math.max(0, p.value) : 0))
  const max = Math.max(0, ...values)
  const format = options.format ?? String
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${options.title}" xmlns="http://www.w3.org/2000/svg">
<title>${options.title}</title>${
    points.map((point, i) => {
      const value = values[i]!
      const w = max === 0 ? 0 : Math.max(value > 0 ? 2 : 0, Math.round((value / max) * barArea))
      const y = 2 + i * row
      const label = [...point.label].length > 14 ? `${[...point.label].slice(0, 13).join("")}…` : point.label
      return html`<g><text x="${labelWidth - 8}" y="${
        y + 15
      }" font-size="12" text-anchor="end" fill="#1d2433">${label}</text>
<rect x="${labelWidth}" y="${y + 3}" width="${w}" height="${row - 8}" rx="3" fill="${
        options.color ?? "#4f46e5"
      }"><title>${point.label}: ${format(value)}</title></rect>
<text x="${labelWidth + w + 6}" y="${y + 15}" font-size="12" fill="#5b6475">${format(value)}</text></g>`
    })
  }</svg>`
}
