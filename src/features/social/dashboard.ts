import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { ContentId } from "../../domain/Ids.ts"
import { isSocialPlatform, platformNames, socialPlatforms } from "../../domain/Social.ts"
import { html } from "../../platform/http/Html.ts"
import { backTo, dashboardChange, invalidField } from "../dashboard/Change.ts"
import { canChange, csrfField, type DashboardSection, formatDate, statusBadge } from "../dashboard/Dashboard.ts"
import { Social } from "./Social.ts"

/** Each platform (six, a fixed list), connected or not, with a connect button for admins. */
export const socialSection = (social: Social["Service"]): DashboardSection => ({
  id: "social",
  title: "Social accounts",
  order: 37,
  render: (context) =>
    Effect.gen(function*() {
      const connections = yield* social.connections(context.customer.id)
      const ready = yield* social.readyToPublish(context.customer.id)
      const editable = canChange(context, "admin")
      const publishable = canChange(context, "editor")
      const readyList = ready.length === 0 ?
        "" :
        html`<h3>Ready to publish</h3><ul class="plain list">${
          ready.map((piece) =>
            html`<li class="row" data-content="${piece.id}"><span><span class="item-title">${
              platformNames[piece.platform ?? ""] ?? piece.platform
            }</span><br><span class="muted small">${(piece.body ?? "").slice(0, 120)}</span></span><span>${
              statusBadge(piece.status)
            }${
              publishable
                ? html` <form method="post" action="/dashboard/social/publish" class="inline">${csrfField(context)}
<input type="hidden" name="contentId" value="${piece.id}"><button type="submit">Publish</button></form>`
                : ""
            }</span></li>`
          )
        }</ul>`
      // Back from a provider's consent (`?connected=linkedin`): confirmed only if the account is connected now.
      const just = context.query.get("connected")
      const confirmed = just !== null && isSocialPlatform(just) && connections[just].connected ? just : undefined
      return html`${
        confirmed === undefined ?
          "" :
          html`<p class="notice ok" role="status" id="connected-notice">${platformNames[confirmed]} connected${
            connections[confirmed].accountName === null ? "" : ` as ${connections[confirmed].accountName}`
          }</p>`
      }${readyList}<ul class="plain list">${
        socialPlatforms.map((platform) => {
          const connection = connections[platform]
          return html`<li class="row" data-platform="${platform}"><span><span class="item-title">${
            platformNames[platform]
          }</span>${
            connection.connected
              ? html`<br><span class="muted small">${connection.accountName ?? "Connected account"} · since ${
                formatDate(connection.connectedAt)
              }</span>`
              : ""
          }</span><span>${statusBadge(connection.connected ? "connected" : "not_connected")}${
            editable
              ? html` <form method="post" action="/dashboard/social/connect" class="inline">${csrfField(context)}
<input type="hidden" name="platform" value="${platform}"><button type="submit" class="secondary">${
                connection.connected ? "Reconnect" : "Connect"
              }</button></form>`
              : ""
          }</span></li>`
        })
      }</ul>`
    })
})

/**
 * The section's form routes: POST /dashboard/social/connect (admin) with
 * `platform` creates the connect link (Social.connect) and sends the browser
 * to the provider's consent page (303); POST /dashboard/social/publish
 * (editor) with `contentId` publishes an approved piece now.
 */
export const SocialDashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const change = yield* dashboardChange
    const social = yield* Social
    yield* router.add(
      "POST",
      "/dashboard/social/connect",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const platform = form.get("platform") ?? ""
          if (!isSocialPlatform(platform)) {
            return yield* invalidField("platform", `must be one of ${socialPlatforms.join(", ")}`)
          }
          const { connectLinks } = yield* social.connect(session.principal.customerId, [platform])
          const link = connectLinks[platform]
          if (link === undefined) return yield* invalidField("platform", "the provider offered no link for it")
          return HttpServerResponse.redirect(link, { status: 303 })
        }))
    )
    // The publish route's rules and checks, for the signed-in editor: a refusal answers as the dashboard's error page.
    yield* router.add(
      "POST",
      "/dashboard/social/publish",
      change("editor", (session, form) =>
        Effect.gen(function*() {
          const contentId = form.get("contentId") ?? ""
          if (contentId.length === 0 || contentId.length > 100) return yield* invalidField("contentId", "is required")
          yield* social.publishPiece(session.principal.customerId, ContentId.make(contentId), {})
          return backTo("social")
        }))
    )
  })
)
