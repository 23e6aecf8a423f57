import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { randomBytes, timingSafeEqual } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import { consentToken, platformNames } from "../../domain/Social.ts"
import { isStorableText } from "../../domain/Text.ts"
import {
  errorPage as sharedErrorPage,
  type Html,
  html,
  htmlResponse,
  layout,
  linkify
} from "../../platform/http/Html.ts"
import { currentRequest } from "../../platform/http/RequestContext.ts"
import { Links } from "./Links.ts"
import { consentProof } from "./providers/sandbox.ts"
import { Social } from "./Social.ts"

/** A page in Herald's layout and headers (its stylesheet, no script). */
const page = (status: number, title: string, body: Html, headers: Record<string, string> = {}, description?: string) =>
  htmlResponse(layout({ title, body, description }), { status, headers })

/** An error page: HTML, with the code and request id a support request needs. */
const errorPage = (status: number, code: string, message: string) =>
  Effect.map(
    currentRequest,
    (request) =>
      htmlResponse(
        sharedErrorPage(
          status,
          message,
          request.requestId,
          html`<p class="muted small">Error ${code}</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`
        ),
        { status }
      )
  )

const queryOf = (url: string) => new URL(url, "http://local").searchParams

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * Pages outside the HttpApi: the sandbox provider's consent page, the
 * sandbox permalink `/p/{contentId}` and the tracked-link redirect
 * `/r/{code}`. Listed in `extraRoutes` (src/platform/http/Routes.ts).
 */
export const SocialPageRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const social = yield* Social
    const links = yield* Links
    const sql = yield* SqlClient.SqlClient
    const secure = config.baseUrl.startsWith("https:")
    const cookieName = "herald_consent"

    // The consent page: what is asked, Allow (a form bound to this browser and this state) or Cancel.
    yield* router.add(
      "GET",
      "/connect/sandbox",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const state = queryOf(request.url).get("state") ?? ""
        const checked = yield* Effect.exit(social.checkState(state))
        if (checked._tag === "Failure") {
          return yield* errorPage(400, "E_INVALID_STATE", "This connect link is invalid or has expired")
        }
        const platform = checked.value.platform
        const name = platformNames[platform] ?? platform
        const cookie = request.cookies[cookieName] ?? randomBytes(18).toString("base64url")
        const csrf = consentToken(social.stateSecret, state, cookie)
        return page(
          200,
          `Connect ${name}`,
          html`<section class="card narrow" aria-labelledby="consent-title">
<p class="muted small">Connect an account</p>
<h1 id="consent-title">Connect ${name}</h1>
<p>Herald asks to publish posts to your ${name} account. This is the sandbox provider: posts appear on Herald's own permalink pages, nothing leaves this server.</p>
<form method="post" action="/connect/sandbox" class="stack">
<input type="hidden" name="state" value="${state}">
<input type="hidden" name="_csrf" value="${csrf}">
<label>Account name<input name="account" maxlength="100" value="${`@${name.toLowerCase()}-sandbox`}"></label>
<div class="consent-actions"><button type="submit" name="decision" value="allow">Allow</button><a class="button secondary" href="/dashboard">Cancel</a></div>
</form></section>`,
          {
            "set-cookie": `${cookieName}=${cookie}; Path=/connect; HttpOnly; SameSite=Strict; Max-Age=900${
              secure ? "; Secure" : ""
            }`
          }
        )
      })
    )

    // Allow: only from the form this browser was shown (cookie-bound token), then on to the callback.
    yield* router.add(
      "POST",
      "/connect/sandbox",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const text = yield* Effect.orElseSucceed(request.text, () => "")
        const form = new URLSearchParams(text.length <= 10_000 ? text : "")
        const state = form.get("state") ?? ""
        const cookie = request.cookies[cookieName]
        const csrf = form.get("_csrf") ?? ""
        if (cookie === undefined || !sameText(csrf, consentToken(social.stateSecret, state, cookie))) {
          return yield* errorPage(403, "E_FORBIDDEN", "This form has expired: open the connect link again")
        }
        const checked = yield* Effect.exit(social.checkState(state))
        if (checked._tag === "Failure") {
          return yield* errorPage(400, "E_INVALID_STATE", "This connect link is invalid or has expired")
        }
        const next = new URLSearchParams({ state, consent: consentProof(social.stateSecret, state) })
        const account = (form.get("account") ?? "").trim().slice(0, 100)
        if (account.length > 0) {
          next.set("account", account)
        }
        return HttpServerResponse.redirect(`/api/integration/callback?${next.toString()}`, {
          status: 303,
          headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" }
        })
      })
    )

    // The sandbox permalink of a published post.
    yield* router.add(
      "GET",
      "/p/:contentId",
      Effect.gen(function*() {
        const { contentId } = yield* HttpRouter.params
        // An id no row could hold (NUL, a lone surrogate) names nothing: 404, not a failed query.
        if (contentId === undefined || !isStorableText(contentId)) {
          return yield* errorPage(404, "E_NOT_FOUND", "No such post")
        }
        const rows = yield* sql<{ platform: string; body: string; createdAt: Date; status: string | null }>`
        SELECT s.platform, s.body, s.created_at, c.status FROM sandbox_posts s JOIN content c ON c.id = s.content_id
        WHERE s.content_id = ${contentId ?? ""}`.pipe(Effect.orDie)
        const post = rows[0]
        if (post === undefined) {
          return yield* errorPage(404, "E_NOT_FOUND", "No such post")
        }
        const name = platformNames[post.platform] ?? post.platform
        return page(
          200,
          `Post on ${name}`,
          html`<article class="card narrow" aria-labelledby="post-title">
<h1 id="post-title">Post on ${name}</h1>
<p class="muted small">${name} · sandbox post · ${new Date(post.createdAt).toISOString()}</p>
<p class="post">${linkify(post.body)}</p></article>`,
          { "cache-control": "public, max-age=60" },
          `${name} post: ${[...post.body].slice(0, 150).join("")}`
        )
      })
    )

    // Tracked links: 302 to the target, one click counted (bots apart).
    const redirectHeaders = { "cache-control": "no-store", "referrer-policy": "no-referrer" }
    yield* router.add(
      "GET",
      "/r/:code",
      Effect.gen(function*() {
        const { code } = yield* HttpRouter.params
        const request = yield* HttpServerRequest.HttpServerRequest
        const target = code === undefined || !isStorableText(code)
          ? Option.none<string>()
          : yield* links.follow(code, request.headers["user-agent"])
        if (Option.isNone(target)) return yield* errorPage(404, "E_NOT_FOUND", "This link does not exist")
        return HttpServerResponse.redirect(target.value, { status: 302, headers: redirectHeaders })
      })
    )
  })
)
