import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../Config.ts"
import { trialDays } from "../../domain/Billing.ts"
import { Forbidden, NotFound } from "../../domain/Errors.ts"
import { html, htmlPage, htmlResponse, layout, readForm, sameOrigin } from "../../platform/http/Html.ts"
import { Billing } from "./Billing.ts"

const sessionParam = Effect.map(HttpRouter.params, (params) => params.sessionId ?? "")

/** The pages of the sign-up: the local hosted checkout and the success page. */
export const CheckoutRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const billing = yield* Billing
    const config = yield* AppConfig

    const checkoutPage = (id: string, email: string, token: string) =>
      layout({
        title: "Start your free trial",
        description:
          `Start Herald Pro: a ${trialDays}-day free trial of your AI marketing team, with the REST API and the MCP server.`,
        body: html`<section class="card narrow" aria-labelledby="plan">
<p class="muted small">Checkout</p>
<h1 id="plan">Herald Pro</h1>
<p class="price">Free <small>for ${trialDays} days</small></p>
<ul class="checks">
<li>Your AI marketing team: content, approvals, social publishing, analytics</li>
<li>REST API and MCP server for your own agents</li>
<li>${trialDays}-day free trial, no card needed to start</li>
</ul>
<p>Signing up as <strong>${email}</strong></p>
<form method="post" action="/checkout/${id}" class="stack">
<input type="hidden" name="_csrf" value="${token}">
<button type="submit" class="big">Start free trial</button>
</form>
<p class="muted small">Your API key is shown once on the next page.</p>
</section>`
      })

    const notFound = () => new NotFound({ error: "This checkout session does not exist." })

    yield* router.add(
      "GET",
      "/checkout/:sessionId",
      htmlPage(Effect.gen(function*() {
        const id = yield* sessionParam
        const session = yield* billing.checkout(id).pipe(Effect.mapError(notFound))
        if (session.status === "completed") {
          return HttpServerResponse.redirect(`/checkout/${session.id}/success`, { status: 303 })
        }
        if (session.provider !== "local") {
          return htmlResponse(layout({
            title: "Checkout not completed",
            body: html`<section class="card narrow"><h1>Checkout not completed</h1>
<p class="lead">Nothing was charged and no account was created. Start again whenever you are ready.</p></section>`
          }))
        }
        return htmlResponse(checkoutPage(session.id, session.email, billing.formToken(session.id)))
      }))
    )

    yield* router.add(
      "POST",
      "/checkout/:sessionId",
      htmlPage(Effect.gen(function*() {
        const id = yield* sessionParam
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readForm
        // Both must hold: the form came from our page (its token is bound to this session) and from our origin.
        if (!sameOrigin(request, config.baseUrl) || !billing.checkFormToken(id, form.get("_csrf") ?? undefined)) {
          return yield* new Forbidden({ error: "This form has expired; open the checkout page again." })
        }
        const session = yield* billing.completeLocal(id).pipe(
          Effect.catchTag("NotFound", () => Effect.fail(notFound()))
        )
        return HttpServerResponse.redirect(`/checkout/${session.id}/success`, { status: 303 })
      }))
    )

    yield* router.add(
      "GET",
      "/checkout/:sessionId/success",
      htmlPage(Effect.gen(function*() {
        const id = yield* sessionParam
        return htmlResponse(layout({
          title: "Welcome to Herald",
          description: "Your Herald API key and MCP endpoint, shown once.",
          script: ["/assets/signup.js", "/assets/copy.js"],
          body: html`<section class="card narrow" id="signup-result" data-session="${id}">
<h1>Welcome to Herald</h1>
<p id="signup-status" class="notice" role="status">Loading your API key…</p>
<div id="signup-key" hidden>
<h2>API key</h2><div class="copy-row"><code class="secret" id="signup-api-key"></code>
<button type="button" class="secondary" data-copy="signup-api-key" hidden>Copy key</button></div>
<h2>MCP endpoint</h2><div class="copy-row"><code class="secret" id="signup-mcp"></code>
<button type="button" class="secondary" data-copy="signup-mcp" hidden>Copy endpoint</button></div>
<p class="muted small">Customer id: <code id="signup-customer"></code></p>
<p>Use the key as <code>Authorization: Bearer &lt;key&gt;</code> on the API, or add the MCP endpoint to your agent.</p>
</div>
<p><a class="button secondary" href="/dashboard">Open the dashboard</a></p>
</section>`
        }))
      }))
    )
  })
)
