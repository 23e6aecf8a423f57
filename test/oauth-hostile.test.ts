import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { sseClient } from "./support/mcp-clients.ts"
import { documentServer, pkce } from "./support/oauth.ts"
import { bearer, provision, randomIp } from "./support/processes.ts"

const redirect = "http://127.0.0.1:53682/callback"

const form = (fields: Record<string, string>, extra: Record<string, string> = {}) => ({
  headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": randomIp(), ...extra },
  body: new URLSearchParams(fields).toString(),
  raw: true
})

const register = (body: unknown = { client_name: "Hostile test", redirect_uris: [redirect] }) =>
  call("POST", "/oauth/register", { headers: { "x-forwarded-for": randomIp() }, body })

/** The authorization request's parameters: a good one, with `overrides` (undefined drops a parameter). */
const authorization = (
  url: string,
  clientId: string,
  challenge: string,
  overrides: Record<string, string | undefined> = {}
) => {
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: `${url}/mcp`,
    state: "s1",
    ...overrides
  }
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

/** Posts the consent form as the page would (same-origin), signed in with `apiKey`; answers the reply. */
const approve = (params: Record<string, string>, apiKey: string, role = "editor") =>
  call(
    "POST",
    "/oauth/authorize",
    form({ ...params, apiKey, role, decision: "approve" }, { "sec-fetch-site": "same-origin" })
  )

/** A code for a fresh registered client, approved with the key. */
const codeFor = (apiKey: string, role = "editor") =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    const client = (yield* register()).json.client_id as string
    const { verifier, challenge } = pkce()
    const res = yield* approve(authorization(url, client, challenge), apiKey, role)
    assert.strictEqual(res.status, 303, res.text)
    const location = new URL(res.headers.get("location")!)
    return { client, verifier, code: location.searchParams.get("code")!, location }
  })

const exchange = (client: string, code: string, verifier: string, extra: Record<string, string> = {}) =>
  call(
    "POST",
    "/oauth/token",
    form({
      grant_type: "authorization_code",
      client_id: client,
      code,
      code_verifier: verifier,
      redirect_uri: redirect,
      ...extra
    })
  )

const initialize = (token: string) =>
  call("POST", "/mcp", {
    headers: bearer(token, { accept: "application/json, text/event-stream" }),
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } }
    }
  })

layer(testApp({ trustProxy: true }), { timeout: 120_000, excludeTestServices: true })("OAuth: hostile input", (it) => {
  it.effect("plain PKCE, no PKCE, a wrong or missing resource and another response type go back to the client as errors with state and iss", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const client = (yield* register()).json.client_id as string
      const { challenge } = pkce()
      const cases: ReadonlyArray<readonly [Record<string, string | undefined>, string]> = [
        [{ code_challenge_method: "plain", code_challenge: "a".repeat(43) }, "invalid_request"],
        [{ code_challenge: undefined, code_challenge_method: undefined }, "invalid_request"],
        [{ resource: "https://elsewhere.example/mcp" }, "invalid_target"],
        [{ resource: `${url}/api` }, "invalid_target"],
        [{ resource: undefined }, "invalid_target"],
        [{ response_type: "token" }, "unsupported_response_type"]
      ]
      for (const [overrides, error] of cases) {
        const res = yield* call(
          "GET",
          `/oauth/authorize?${new URLSearchParams(authorization(url, client, challenge, overrides))}`
        )
        assert.strictEqual(res.status, 303, JSON.stringify(overrides))
        const back = new URL(res.headers.get("location")!)
        assert.strictEqual(back.origin + back.pathname, redirect)
        assert.strictEqual(back.searchParams.get("error"), error, JSON.stringify(overrides))
        assert.strictEqual(back.searchParams.get("state"), "s1")
        assert.strictEqual(back.searchParams.get("iss"), url)
        assert.isNull(back.searchParams.get("code"))
      }
    }))

  it.effect("an unknown client or a redirect URI it did not register is answered on a page, never redirected", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const client = (yield* register()).json.client_id as string
      const { challenge } = pkce()
      for (
        const overrides of [{ redirect_uri: "https://attacker.example/cb" }, { redirect_uri: `${redirect}/../evil` }, {
          client_id: "hcl_unknown"
        }, { client_id: undefined }]
      ) {
        const res = yield* call(
          "GET",
          `/oauth/authorize?${new URLSearchParams(authorization(url, client, challenge, overrides))}`
        )
        assert.strictEqual(res.status, 400, JSON.stringify(overrides))
        assert.isNull(res.headers.get("location"))
        assert.match(res.headers.get("content-type") ?? "", /text\/html/)
      }
      // The good request shows the consent page, whose form may lead only to this client's redirect origin.
      const page = yield* call("GET", `/oauth/authorize?${new URLSearchParams(authorization(url, client, challenge))}`)
      assert.strictEqual(page.status, 200)
      assert.include(page.headers.get("content-security-policy") ?? "", "form-action 'self' http://127.0.0.1:53682;")
      assert.strictEqual(page.headers.get("x-frame-options"), "DENY")
    }))

  it.effect("a wrong verifier, a reused code, another redirect_uri, another client or resource at the token endpoint: invalid_grant", () =>
    Effect.gen(function*() {
      const owner = yield* provision({ status: "active" })
      {
        const { client, code } = yield* codeFor(owner.apiKey)
        const wrong = yield* exchange(client, code, pkce().verifier)
        assert.strictEqual(wrong.status, 400)
        assert.strictEqual(wrong.json.error, "invalid_grant")
        // Spent by the failed attempt: the right verifier comes too late.
      }
      {
        const { client, code, verifier } = yield* codeFor(owner.apiKey)
        const other = yield* exchange(client, code, verifier, { redirect_uri: "http://127.0.0.1:53682/other" })
        assert.strictEqual(other.json.error, "invalid_grant")
      }
      {
        const { code, verifier } = yield* codeFor(owner.apiKey)
        const stranger = (yield* register()).json.client_id as string
        assert.strictEqual((yield* exchange(stranger, code, verifier)).json.error, "invalid_grant")
      }
      {
        const { client, code, verifier } = yield* codeFor(owner.apiKey)
        const res = yield* exchange(client, code, verifier, { resource: "https://elsewhere.example/mcp" })
        assert.strictEqual(res.json.error, "invalid_target")
      }
      {
        const { client, code, verifier } = yield* codeFor(owner.apiKey)
        const first = yield* exchange(client, code, verifier)
        assert.strictEqual(first.status, 200, first.text)
        assert.strictEqual(first.headers.get("cache-control"), "no-store")
        assert.strictEqual((yield* initialize(first.json.access_token)).status, 200)
        const again = yield* exchange(client, code, verifier)
        assert.strictEqual(again.status, 400)
        assert.strictEqual(again.json.error, "invalid_grant")
        // The replayed code revoked what it bought.
        assert.strictEqual((yield* initialize(first.json.access_token)).status, 401)
      }
      const garbage = yield* exchange("hcl_x", "hac_" + "a".repeat(43), pkce().verifier)
      assert.strictEqual(garbage.json.error, "invalid_grant")
      const noClient = yield* call("POST", "/oauth/token", form({ grant_type: "authorization_code", code: "x" }))
      assert.strictEqual(noClient.status, 401)
      assert.strictEqual(noClient.json.error, "invalid_client")
      const json = yield* call("POST", "/oauth/token", { body: { grant_type: "authorization_code" } })
      assert.strictEqual(json.json.error, "invalid_request")
      const grantType = yield* call("POST", "/oauth/token", form({ grant_type: "password", client_id: "x" }))
      assert.strictEqual(grantType.json.error, "unsupported_grant_type")
    }))

  it.effect("a refresh token works once: reusing it revokes the grant, the newest tokens included", () =>
    Effect.gen(function*() {
      const owner = yield* provision({ status: "active" })
      const { client, code, verifier } = yield* codeFor(owner.apiKey)
      const first = (yield* exchange(client, code, verifier)).json
      const refresh = (token: string) =>
        call("POST", "/oauth/token", form({ grant_type: "refresh_token", refresh_token: token, client_id: client }))
      const second = yield* refresh(first.refresh_token)
      assert.strictEqual(second.status, 200, second.text)
      assert.strictEqual((yield* initialize(second.json.access_token)).status, 200)
      const reused = yield* refresh(first.refresh_token)
      assert.strictEqual(reused.json.error, "invalid_grant")
      assert.strictEqual((yield* initialize(second.json.access_token)).status, 401)
      assert.strictEqual((yield* refresh(second.json.refresh_token)).json.error, "invalid_grant")
    }))

  it.effect("role escalation: a viewer's key cannot give an app editor; a wrong key counts as a failed sign-in", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const owner = yield* provision({ status: "active" })
      const invited = yield* call("POST", `/api/team/${owner.customerId}/members`, {
        headers: bearer(owner.apiKey),
        body: { email: "viewer@example.com", role: "viewer" }
      })
      assert.strictEqual(invited.status, 200, invited.text)
      const client = (yield* register()).json.client_id as string
      const { challenge, verifier } = pkce()
      const params = authorization(url, client, challenge)
      for (const role of ["editor", "admin", "owner"]) {
        const res = yield* approve(params, invited.json.apiKey, role)
        assert.strictEqual(res.status, 403, role)
        assert.isNull(res.headers.get("location"))
      }
      const bad = yield* approve(params, "hk_not_a_key")
      assert.strictEqual(bad.status, 401)
      // An assistant's own token cannot approve another assistant.
      const other = yield* codeFor(owner.apiKey)
      const token = (yield* exchange(other.client, other.code, other.verifier)).json.access_token as string
      assert.strictEqual((yield* approve(params, token, "viewer")).status, 401)
      // Nor sign a person in to the dashboard.
      const { url: base } = yield* TestServer
      const dashboard = yield* call("POST", "/dashboard", form({ apiKey: token }, { origin: base }))
      assert.strictEqual(dashboard.status, 401)
      assert.isNull(dashboard.headers.get("set-cookie"))
      // A form from another site is refused, whatever it carries.
      const crossSite = yield* call(
        "POST",
        "/oauth/authorize",
        form({ ...params, apiKey: owner.apiKey, role: "viewer", decision: "approve" }, {
          "sec-fetch-site": "cross-site"
        })
      )
      assert.strictEqual(crossSite.status, 403)
      const ok = yield* approve(params, invited.json.apiKey, "viewer")
      assert.strictEqual(ok.status, 303)
      const code = new URL(ok.headers.get("location")!).searchParams.get("code")!
      const tokens = yield* exchange(client, code, verifier)
      assert.strictEqual(tokens.json.scope.split(" ").includes("write:content"), false)
      // The member's token is a viewer's on REST too.
      const write = yield* call("POST", `/api/content/${owner.customerId}`, {
        headers: bearer(tokens.json.access_token),
        body: { type: "blog", title: "x", body: "y" }
      })
      assert.strictEqual(write.status, 403, write.text)
      // Removing the member ends the grant with their key.
      const removed = yield* call("DELETE", `/api/team/${owner.customerId}/members/${invited.json.memberId}`, {
        headers: bearer(owner.apiKey)
      })
      assert.strictEqual(removed.status, 200, removed.text)
      assert.strictEqual((yield* initialize(tokens.json.access_token)).status, 401)
    }))

  it.effect("connected apps over REST: listed with their role; a member disconnects only their own, an admin any", () =>
    Effect.gen(function*() {
      const owner = yield* provision({ status: "active" })
      const other = yield* provision({ status: "active" })
      const member = yield* call("POST", `/api/team/${owner.customerId}/members`, {
        headers: bearer(owner.apiKey),
        body: { email: "editor@example.com", role: "editor" }
      })
      const ownersApp = yield* codeFor(owner.apiKey, "admin")
      const ownersToken = (yield* exchange(ownersApp.client, ownersApp.code, ownersApp.verifier)).json
        .access_token as string
      const membersApp = yield* codeFor(member.json.apiKey, "viewer")
      const membersToken = (yield* exchange(membersApp.client, membersApp.code, membersApp.verifier)).json
        .access_token as string
      const list = yield* call("GET", `/api/apps/${owner.customerId}`, { headers: bearer(member.json.apiKey) })
      assert.strictEqual(list.status, 200, list.text)
      assert.lengthOf(list.json.apps, 2)
      const byClient = new Map<string, any>(list.json.apps.map((app: any) => [app.clientId, app]))
      assert.strictEqual(byClient.get(ownersApp.client).role, "admin")
      assert.isNull(byClient.get(ownersApp.client).memberId)
      assert.strictEqual(byClient.get(membersApp.client).memberId, member.json.memberId)
      // Another customer sees nothing of them.
      assert.strictEqual(
        (yield* call("GET", `/api/apps/${owner.customerId}`, { headers: bearer(other.apiKey) })).status,
        403
      )
      const ownersGrant = byClient.get(ownersApp.client).grantId as string
      const membersGrant = byClient.get(membersApp.client).grantId as string
      assert.strictEqual(
        (yield* call("DELETE", `/api/apps/${owner.customerId}/${ownersGrant}`, { headers: bearer(member.json.apiKey) }))
          .status,
        404
      )
      assert.strictEqual((yield* initialize(ownersToken)).status, 200)
      const mine = yield* call("DELETE", `/api/apps/${owner.customerId}/${membersGrant}`, {
        headers: bearer(member.json.apiKey)
      })
      assert.strictEqual(mine.status, 200, mine.text)
      assert.strictEqual((yield* initialize(membersToken)).status, 401)
      assert.strictEqual(
        (yield* call("DELETE", `/api/apps/${owner.customerId}/${ownersGrant}`, { headers: bearer(owner.apiKey) }))
          .status,
        200
      )
      assert.strictEqual((yield* initialize(ownersToken)).status, 401)
      assert.lengthOf(
        (yield* call("GET", `/api/apps/${owner.customerId}`, { headers: bearer(owner.apiKey) })).json.apps,
        0
      )
    }))

  it.effect("the audience is checked at /mcp: a token whose grant names another resource is refused there", () =>
    Effect.scoped(Effect.gen(function*() {
      const { sql } = yield* TestServer
      const owner = yield* provision({ status: "active" })
      const { client, code, verifier } = yield* codeFor(owner.apiKey)
      const token = (yield* exchange(client, code, verifier)).json.access_token as string
      assert.strictEqual((yield* initialize(token)).status, 200)
      // Every revision takes it: the legacy SSE transport too (its `token` query).
      const { url } = yield* TestServer
      const legacy = yield* sseClient(url, token)
      assert.isAbove((yield* Effect.promise(() => legacy.listTools())).tools.length, 5)
      yield* sql`UPDATE oauth_grants SET resource = 'https://elsewhere.example/mcp' WHERE client_id = ${client}`
      const refused = yield* initialize(token)
      assert.strictEqual(refused.status, 401)
      assert.match(refused.headers.get("www-authenticate") ?? "", /resource_metadata=/)
    })))

  it.effect("registration refuses scripts, plain http off the loopback, secrets, garbage and oversized bodies", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["http://example.com/cb"] }, "invalid_redirect_uri"],
        [{ redirect_uris: ["https://example.com/cb#frag"] }, "invalid_redirect_uri"],
        [{ redirect_uris: [] }, "invalid_redirect_uri"],
        [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}`) }, "invalid_redirect_uri"],
        [{ redirect_uris: [redirect], token_endpoint_auth_method: "client_secret_basic" }, "invalid_client_metadata"],
        [{ redirect_uris: [redirect], client_name: "x".repeat(201) }, "invalid_client_metadata"],
        [{ redirect_uris: [redirect], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
        [["not", "an", "object"], "invalid_client_metadata"]
      ]
      for (const [body, error] of cases) {
        const res = yield* register(body)
        assert.strictEqual(res.status, 400, JSON.stringify(body).slice(0, 100))
        assert.strictEqual(res.json.error, error, JSON.stringify(body).slice(0, 100))
      }
      const big = yield* register({ redirect_uris: [redirect], client_name: "x", padding: "y".repeat(20_000) })
      assert.strictEqual(big.status, 413)
      const notJson = yield* call("POST", "/oauth/register", {
        headers: { "content-type": "application/json", "x-forwarded-for": randomIp() },
        body: "{",
        raw: true
      })
      assert.strictEqual(notJson.status, 400)
      const ok = yield* register({ redirect_uris: [redirect, "com.example.app:/callback"], client_name: "Native" })
      assert.strictEqual(ok.status, 201)
      assert.strictEqual(ok.json.token_endpoint_auth_method, "none")
    }))

  it.effect("registration is rate limited per address like failed sign-ins", () =>
    Effect.gen(function*() {
      const ip = randomIp()
      let limited: number | undefined
      for (let i = 0; i < 200 && limited === undefined; i++) {
        const res = yield* call("POST", "/oauth/register", {
          headers: { "x-forwarded-for": ip },
          body: { redirect_uris: [redirect] }
        })
        if (res.status === 429) limited = i
      }
      assert.isDefined(limited, "the address was limited")
    }))

  it.effect("client metadata documents: garbage, oversized, another client_id, a redirect URI not listed, a failing server", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* TestServer
      const docs = yield* documentServer((origin) => ({
        "/garbage.json": { body: "<html>not json</html>" },
        "/big.json": {
          body: JSON.stringify({ client_id: `${origin}/big.json`, redirect_uris: [redirect], pad: "z".repeat(100_000) })
        },
        "/other.json": {
          body: JSON.stringify({ client_id: `${origin}/someone-else.json`, redirect_uris: [redirect] })
        },
        "/array.json": { body: "[1,2,3]" },
        "/secret.json": {
          body: JSON.stringify({
            client_id: `${origin}/secret.json`,
            redirect_uris: [redirect],
            token_endpoint_auth_method: "private_key_jwt"
          })
        },
        "/script.json": {
          body: JSON.stringify({ client_id: `${origin}/script.json`, redirect_uris: ["javascript:alert(1)"] })
        },
        "/down.json": { status: 500, body: "{}" },
        "/good.json": {
          body: JSON.stringify({
            client_id: `${origin}/good.json`,
            client_name: "Good",
            redirect_uris: ["https://app.example/cb"]
          })
        }
      }))
      const { challenge } = pkce()
      for (
        const path of [
          "/garbage.json",
          "/big.json",
          "/other.json",
          "/array.json",
          "/secret.json",
          "/script.json",
          "/down.json",
          "/missing.json"
        ]
      ) {
        const res = yield* call(
          "GET",
          `/oauth/authorize?${new URLSearchParams(authorization(url, `${docs.origin}${path}`, challenge))}`
        )
        assert.strictEqual(res.status, 400, path)
        assert.isNull(res.headers.get("location"), path)
        assert.match(res.text, /client metadata document/, path)
      }
      // A good document, but the request's redirect URI is not in it.
      const good = yield* call(
        "GET",
        `/oauth/authorize?${new URLSearchParams(authorization(url, `${docs.origin}/good.json`, challenge))}`
      )
      assert.strictEqual(good.status, 400)
      assert.match(good.text, /redirect_uri/)
      // An http client_id is no document; neither is the bare origin.
      for (const clientId of [`http://127.0.0.1:1/client.json`, `${docs.origin}/`]) {
        const res = yield* call(
          "GET",
          `/oauth/authorize?${new URLSearchParams(authorization(url, clientId, challenge))}`
        )
        assert.strictEqual(res.status, 400, clientId)
      }
    })))
})

layer(testApp({ trustProxy: true, allowPrivateTargets: false }), { timeout: 60_000, excludeTestServices: true })(
  "OAuth: the outbound guard",
  (it) => {
    it.effect("a client_id on a private address is never fetched", () =>
      Effect.scoped(Effect.gen(function*() {
        const { url } = yield* TestServer
        const docs = yield* documentServer((origin) => ({
          "/client.json": { body: JSON.stringify({ client_id: `${origin}/client.json`, redirect_uris: [redirect] }) }
        }))
        const { challenge } = pkce()
        for (
          const clientId of [
            `${docs.origin}/client.json`,
            "https://169.254.169.254/latest/meta-data.json",
            "https://[::1]/client.json",
            "https://10.0.0.1/c.json"
          ]
        ) {
          const res = yield* call(
            "GET",
            `/oauth/authorize?${new URLSearchParams(authorization(url, clientId, challenge))}`
          )
          assert.strictEqual(res.status, 400, clientId)
          assert.match(res.text, /could not be fetched \(address\)/, clientId)
        }
        assert.strictEqual(docs.fetches.get("/client.json") ?? 0, 0)
      })))
  }
)
