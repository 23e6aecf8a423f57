import { Effect, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { type ContentPiece, ReviewAction } from "../../domain/Content.ts"
import { NotFound } from "../../domain/Errors.ts"
import { ContentId } from "../../domain/Ids.ts"
import { isStorableText } from "../../domain/Text.ts"
import { html, safeHref } from "../../platform/http/Html.ts"
import { backTo, dashboardChange, invalidField } from "../dashboard/Change.ts"
import { canChange, csrfField, type DashboardSection, formatDate, statusBadge } from "../dashboard/Dashboard.ts"
import { Content } from "./Content.ts"

/** Bounds of the content lists the dashboard shows (each read walks an index and stops). */
const limits = { queue: 20, recent: 10 } as const

const isReviewAction = Schema.is(ReviewAction)

const excerpt = (text: string | null, max = 220) =>
  text === null ? "" : text.length > max ? `${text.slice(0, max)}…` : text

const readOnlyNote = html`<p class="muted small">Sign in at <a href="/dashboard">/dashboard</a> to make changes.</p>`

const pieceHeading = (piece: ContentPiece) =>
  html`<div class="row"><span class="item-title">${piece.title ?? `${piece.type} piece`}</span>${
    statusBadge(piece.status)
  }</div>
<p class="muted small">${piece.type}${piece.platform === null ? "" : ` · ${piece.platform}`} · ${
    formatDate(piece.createdAt)
  }</p>`

/** The pieces waiting for approval, each with its review form for editors. */
export const queueSection = (content: Content["Service"]): DashboardSection => ({
  id: "queue",
  title: "Approval queue",
  order: 20,
  wide: true,
  render: (context) =>
    Effect.gen(function*() {
      const page = yield* content.list(context.customer.id, { status: "pending_approval", limit: limits.queue }).pipe(
        Effect.orDie
      )
      if (page.content.length === 0) return html`<p class="muted">Nothing is waiting for your approval.</p>`
      const editable = canChange(context, "editor")
      return html`<ul class="plain list">${
        page.content.map((piece) =>
          html`<li data-content-id="${piece.id}">${pieceHeading(piece)}<p class="excerpt">${excerpt(piece.body)}</p>${
            editable
              ? html`<form method="post" action="/dashboard/content/${piece.id}/review" class="inline">${
                csrfField(context)
              }
<input type="text" name="note" maxlength="1000" placeholder="Note (optional)" aria-label="Review note">
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="reject" class="danger">Reject</button></form>`
              : ""
          }</li>`
        )
      }</ul>${page.nextCursor === null ? "" : html`<p class="muted small">Showing the newest ${limits.queue}.</p>`}${
        editable || context.csrf !== undefined ? "" : readOnlyNote
      }`
    })
})

/** The newest pieces, with a link to each published post. */
export const recentSection = (content: Content["Service"]): DashboardSection => ({
  id: "content",
  title: "Recent content",
  order: 30,
  render: (context) =>
    Effect.gen(function*() {
      const page = yield* content.list(context.customer.id, { limit: limits.recent }).pipe(Effect.orDie)
      if (page.content.length === 0) return html`<p class="muted">No content yet.</p>`
      return html`<ul class="plain list">${
        page.content.map((piece) =>
          html`<li>${pieceHeading(piece)}${
            piece.publishedUrl === null
              ? ""
              : html`<a href="${
                safeHref(piece.publishedUrl)
              }" rel="noopener noreferrer" target="_blank">View published post</a>`
          }</li>`
        )
      }</ul>`
    })
})

/** The approval queue's review form: approve or reject a piece, with an optional note. */
export const ContentDashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const change = yield* dashboardChange
    const content = yield* Content
    yield* router.add(
      "POST",
      "/dashboard/content/:contentId/review",
      change("editor", (session, form) =>
        Effect.gen(function*() {
          const contentId = (yield* HttpRouter.params).contentId ?? ""
          if (!isStorableText(contentId)) return yield* new NotFound({ error: "Content not found" })
          const action = form.get("action") ?? ""
          if (!isReviewAction(action)) return yield* invalidField("action", "must be approve or reject")
          const note = (form.get("note") ?? "").trim()
          if ([...note].length > 1000) return yield* invalidField("note", "must be at most 1000 characters")
          yield* content.review(
            session.principal.customerId,
            ContentId.make(contentId),
            action,
            note === "" ? undefined : note
          )
          return backTo("queue")
        }))
    )
  })
)
