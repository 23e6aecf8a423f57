import type { Role } from "../../domain/Identity.ts"
import { formTargetOf, grantableRoles } from "../../domain/OAuth.ts"
import { type Html, html, layout, pageHeaders, safeHref } from "../../platform/http/Html.ts"
import type { AuthorizationRequest } from "./OAuth.ts"

const roleWords: Record<Role, string> = {
  viewer: "Viewer (read only)",
  editor: "Editor (+ write, review, publish)",
  admin: "Admin (+ settings, workflows, team)",
  owner: "Owner (everything)"
}

/** Who is approving: a dashboard session (its role and form token) or nobody yet (the page asks for a key). */
export interface Approver {
  readonly role: Role
  readonly csrf: string
  readonly memberId: string | null
}

/** The default a person is offered: editor, or their own role when that is lower. */
const defaultRole = (own: Role): Role => (grantableRoles(own).includes("editor") ? "editor" : own)

/**
 * The consent page: which app asks, where it will send the person back, the
 * role to give it and the two answers. Everything shown comes from the
 * client, so everything is escaped (`html`); the request's own parameters go
 * back as hidden fields and are checked again when the form posts.
 */
export const consentPage = (request: AuthorizationRequest, approver: Approver | undefined, message?: string): Html => {
  const { client } = request
  const roles = grantableRoles(approver?.role ?? "owner")
  const chosen = defaultRole(approver?.role ?? "editor")
  const hidden: ReadonlyArray<readonly [string, string | null]> = [
    ["response_type", "code"],
    ["client_id", client.clientId],
    ["redirect_uri", request.redirectUri],
    ["state", request.state],
    ["code_challenge", request.codeChallenge],
    ["code_challenge_method", "S256"],
    ["resource", request.resource],
    ["scope", request.scope]
  ]
  return layout({
    title: "Connect an app",
    description: "Allow an assistant to use Herald on your behalf.",
    body:
      html`<section class="card narrow" id="consent"><h1>Connect <span id="client-name">${client.name}</span> to Herald?</h1>
<p class="lead">This app asks to use Herald's tools (MCP) on your behalf.</p>
<ul class="plain list">
<li><span class="muted small">App</span><br>${
        client.uri === null
          ? client.name
          : html`<a href="${safeHref(client.uri)}" rel="noopener noreferrer" target="_blank">${client.uri}</a>`
      }</li>
<li><span class="muted small">App id</span><br><code>${client.clientId}</code>${
        client.byDocument ? html` <span class="muted small">(its own published description)</span>` : ""
      }</li>
<li><span class="muted small">You will be sent back to</span><br><code>${
        new URL(request.redirectUri).host || request.redirectUri
      }</code></li>
</ul>
${message === undefined ? "" : html`<p class="notice error" role="alert">${message}</p>`}
<form method="post" action="/oauth/authorize" class="stack">${
        hidden.map((
          [name, value]
        ) => (value === null ? "" : html`<input type="hidden" name="${name}" value="${value}">`))
      }${approver === undefined ? "" : html`<input type="hidden" name="_csrf" value="${approver.csrf}">`}${
        approver === undefined
          ? html`<label>Your API key<input type="password" name="apiKey" autocomplete="current-password" required maxlength="200" spellcheck="false"></label>
<p class="muted small">The key you received at sign-up, or a team member key. It is not shared with the app.</p>`
          : html`<p class="muted small">Signed in as ${approver.role}${
            approver.memberId === null ? " (owner key)" : ""
          }.</p>`
      }
<label>Role the app gets<select name="role">${
        roles.map((role) =>
          html`<option value="${role}"${role === chosen ? html` selected` : ""}>${roleWords[role]}</option>`
        )
      }</select></label>
<p class="muted small">Never more than your own role. You can disconnect the app any time under Connected apps on your dashboard.</p>
<div class="row"><button type="submit" name="decision" value="approve" class="big">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></div></form></section>`
  })
}

/**
 * The consent page's headers: every page's, except that its form may lead to
 * the app's redirect URI (a browser applies `form-action` to the redirect
 * after the post too).
 */
export const consentHeaders = (redirectUri: string): Record<string, string> => {
  const headers = pageHeaders()
  return {
    ...headers,
    "content-security-policy": headers["content-security-policy"]!.replace(
      "form-action 'self'",
      `form-action 'self' ${formTargetOf(redirectUri)}`
    )
  }
}
