import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { assertError, bearer, invite, provision, randomIp } from "./support/processes.ts"
import { signUp } from "./support/signup.ts"
import { startReceiver, waitFor } from "./support/webhook-receiver.ts"

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const formHeaders = (cookie: string, extra: Record<string, string> = {}) => ({
  "content-type": "application/x-www-form-urlencoded",
  cookie,
  ...extra
})

/** The headers of a sign-in form post from the dashboard page (its own origin), from a fresh address. */
const signInHeaders = (extra: Record<string, string> = {}) =>
  Effect.map(TestServer, ({ config }) => ({
    "content-type": "application/x-www-form-urlencoded",
    origin: new URL(config.baseUrl).origin,
    "x-forwarded-for": randomIp(),
    ...extra
  }))

/** Signs in with a key; answers the cookie pair to send back. */
const signIn = (apiKey: string, ip = randomIp()) =>
  Effect.gen(function*() {
    const res = yield* call("POST", "/dashboard", {
      headers: yield* signInHeaders({ "x-forwarded-for": ip }),
      body: form({ apiKey }),
      raw: true
    })
    assert.strictEqual(res.status, 303, res.text)
    assert.strictEqual(res.headers.get("location"), "/dashboard")
    const setCookie = res.headers.get("set-cookie")!
    assert.match(
      setCookie,
      /^herald_session=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/
    )
    return setCookie.split(";")[0]
  })

const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)![1]

const createPiece = (customerId: string, key: string, title: string) =>
  Effect.map(
    call("POST", `/api/content/${customerId}`, {
      headers: bearer(key),
      body: { type: "blog", title, body: "Body <script>alert(1)</script>", submit: true }
    }),
    (res) => {
      assert.strictEqual(res.status, 200, res.text)
      return res.json.id as string
    }
  )

layer(testApp({ trustProxy: true }), { timeout: 60_000, excludeTestServices: true })("dashboard", (it) => {
  it.effect("GET /api/dashboard/{id}: the HTML dashboard, escaped, read-only, with the page headers", () =>
    Effect.gen(function*() {
      const { customerId, apiKey } = yield* signUp("dash-api@example.com")
      const id = yield* createPiece(customerId, apiKey, "<img src=x onerror=alert(1)> & \"quotes\"")
      const res = yield* call("GET", `/api/dashboard/${customerId}`, { headers: bearer(apiKey) })
      assert.strictEqual(res.status, 200, res.text)
      assert.include(res.headers.get("content-type"), "text/html")
      assert.include(res.headers.get("content-security-policy"), "default-src 'none'")
      assert.include(res.headers.get("content-security-policy"), "frame-ancestors 'none'")
      assert.strictEqual(res.headers.get("referrer-policy"), "no-referrer")
      assert.strictEqual(res.headers.get("x-content-type-options"), "nosniff")
      assert.isNotNull(res.headers.get("x-request-id"))
      assert.include(res.text, "dash-api@example.com")
      assert.include(res.text, "onboarding")
      assert.include(res.text, "30 days left in your free trial")
      assert.include(res.text, `data-content-id="${id}"`)
      assert.include(res.text, "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;")
      assert.notInclude(res.text, "<img src=x")
      assert.notInclude(res.text, "<script>alert")
      assert.notInclude(res.text, "name=\"_csrf\"", "the Bearer view has no forms")
      for (const section of ["queue", "content", "settings", "webhooks", "team", "status"]) {
        assert.include(res.text, `id="${section}"`)
      }

      const other = yield* provision()
      assertError(
        yield* call("GET", `/api/dashboard/${customerId}`, { headers: bearer(other.apiKey) }),
        403,
        "E_FORBIDDEN"
      )
      // A browser (Accept: text/html) gets the same errors as HTML pages.
      const htmlDenied = yield* call("GET", `/api/dashboard/${customerId}`, {
        headers: { ...bearer(other.apiKey), accept: "text/html,*/*" }
      })
      assert.strictEqual(htmlDenied.status, 403)
      assert.include(htmlDenied.headers.get("content-type"), "text/html")
      assert.include(htmlDenied.text, htmlDenied.headers.get("x-request-id")!)
      const htmlNoKey = yield* call("GET", `/api/dashboard/${customerId}`, {
        headers: { accept: "text/html", "x-forwarded-for": randomIp() }
      })
      assert.strictEqual(htmlNoKey.status, 401)
      assert.include(htmlNoKey.headers.get("content-type"), "text/html")
      assert.include(htmlNoKey.headers.get("www-authenticate"), "Bearer")
      const wrongMethod = yield* call("GET", "/dashboard/sign-out")
      assert.strictEqual(wrongMethod.status, 405)
      assert.include(wrongMethod.headers.get("content-type"), "text/html")
      assert.include(wrongMethod.headers.get("allow"), "POST")
      const unknown = yield* call("GET", "/dashboard/nothing-here")
      assert.strictEqual(unknown.status, 404)
      assert.include(unknown.headers.get("content-type"), "text/html")
      assert.include(unknown.headers.get("content-security-policy"), "default-src 'none'")
      const viewer = yield* invite({ customerId, apiKey } as any, "viewer")
      const asViewer = yield* call("GET", `/api/dashboard/${customerId}`, { headers: bearer(viewer.apiKey) })
      assert.strictEqual(asViewer.status, 200)
      assert.notInclude(asViewer.text, `id="webhooks"`, "webhooks need admin")
      assert.notInclude(asViewer.text, `id="team"`, "team needs admin")
    }))

  it.effect("sign-in: wrong key 401 HTML with a message, right key a signed HttpOnly cookie; changes need the CSRF token", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const { customerId, apiKey } = yield* signUp("dash-cookie@example.com")
      const login = yield* call("GET", "/dashboard")
      assert.strictEqual(login.status, 200)
      assert.include(login.text, "name=\"apiKey\"")
      assert.include(login.headers.get("content-security-policy"), "form-action 'self'")

      const wrong = yield* call("POST", "/dashboard", {
        headers: yield* signInHeaders(),
        body: form({ apiKey: "svc_live_" + "0".repeat(64) }),
        raw: true
      })
      assert.strictEqual(wrong.status, 401)
      assert.include(wrong.headers.get("content-type"), "text/html")
      assert.include(wrong.text, "Invalid API key")
      assert.isNull(wrong.headers.get("set-cookie"))
      assert.isNotNull(wrong.headers.get("x-request-id"))

      const cookie = yield* signIn(apiKey)
      const page = yield* call("GET", "/dashboard", { headers: { cookie } })
      assert.strictEqual(page.status, 200)
      assert.include(page.text, "dash-cookie@example.com")
      const csrf = csrfOf(page.text)

      const piece = yield* createPiece(customerId, apiKey, "Launch post")
      const path = `/dashboard/content/${piece}/review`
      const noToken = yield* call("POST", path, {
        headers: formHeaders(cookie),
        body: form({ action: "approve" }),
        raw: true
      })
      assert.strictEqual(noToken.status, 403)
      assert.include(noToken.headers.get("content-type"), "text/html")
      const forged = yield* call("POST", path, {
        headers: formHeaders(cookie),
        body: form({ action: "approve", _csrf: "x" + csrf }),
        raw: true
      })
      assert.strictEqual(forged.status, 403)
      const crossSite = yield* call("POST", path, {
        headers: formHeaders(cookie, { "sec-fetch-site": "cross-site" }),
        body: form({ action: "approve", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(crossSite.status, 403)
      const still = yield* call("GET", `/api/content/${customerId}/${piece}`, { headers: bearer(apiKey) })
      assert.strictEqual(still.json.status, "pending_approval")

      const ok = yield* call("POST", path, {
        headers: formHeaders(cookie),
        body: form({ action: "reject", note: "Too long", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(ok.status, 303, ok.text)
      const rejected = yield* call("GET", `/api/content/${customerId}/${piece}`, { headers: bearer(apiKey) })
      assert.strictEqual(rejected.json.status, "rejected")
      assert.strictEqual(rejected.json.reviewNote, "Too long")
      // The header form of the token works too; a move the state machine forbids is 409 HTML.
      const again = yield* call("POST", path, {
        headers: formHeaders(cookie, { "x-csrf-token": csrf }),
        body: form({ action: "approve" }),
        raw: true
      })
      assert.strictEqual(again.status, 409)
      assert.include(again.text, "rejected")

      const autonomy = yield* call("POST", "/dashboard/settings/autonomy", {
        headers: formHeaders(cookie),
        body: form({ globalDefault: "4", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(autonomy.status, 303)
      const budget = yield* call("POST", "/dashboard/settings/budget", {
        headers: formHeaders(cookie),
        body: form({ daily: "12.5", weekly: "", monthly: "300", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(budget.status, 303)
      const badBudget = yield* call("POST", "/dashboard/settings/budget", {
        headers: formHeaders(cookie),
        body: form({ daily: "-1", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(badBudget.status, 400)
      const settings = yield* call("GET", `/api/settings/${customerId}`, { headers: bearer(apiKey) })
      assert.strictEqual(settings.json.autonomy.globalDefault, 4)
      assert.deepStrictEqual([settings.json.budget.daily, settings.json.budget.weekly, settings.json.budget.monthly], [
        12.5,
        null,
        300
      ])

      const invited = yield* call("POST", "/dashboard/team/invite", {
        headers: formHeaders(cookie),
        body: form({ email: "new.editor@example.com", role: "editor", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(invited.status, 200, invited.text)
      assert.strictEqual(invited.headers.get("cache-control"), "no-store")
      const key = /id="invited-key">([^<]+)</.exec(invited.text)![1]
      assert.match(key, /^svc_live_[0-9a-f]{64}$/)
      const members = yield* call("GET", `/api/team/${customerId}/members`, { headers: bearer(apiKey) })
      assert.deepStrictEqual(members.json.members.map((m: any) => [m.email, m.role]), [[
        "new.editor@example.com",
        "editor"
      ]])
      const events = yield* call("GET", `/api/events/${customerId}`, { headers: bearer(apiKey) })
      assert.isTrue(events.json.events.some((e: any) => e.type === "team.invited"))
      assert.notInclude((yield* call("GET", "/dashboard", { headers: { cookie } })).text, key, "shown once")

      // An editor may review but not change settings or the team.
      const editorCookie = yield* signIn(key)
      const editorPage = yield* call("GET", "/dashboard", { headers: { cookie: editorCookie } })
      assert.notInclude(editorPage.text, "id=\"team\"")
      const editorCsrf = csrfOf(editorPage.text)
      const refused = yield* call("POST", "/dashboard/settings/autonomy", {
        headers: formHeaders(editorCookie),
        body: form({ globalDefault: "1", _csrf: editorCsrf }),
        raw: true
      })
      assert.strictEqual(refused.status, 403)
      // Another session's token is not this session's.
      const mixed = yield* call("POST", "/dashboard/settings/autonomy", {
        headers: formHeaders(editorCookie),
        body: form({ globalDefault: "1", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(mixed.status, 403)

      // Sign-out ends the session: the old cookie no longer signs in.
      const out = yield* call("POST", "/dashboard/sign-out", {
        headers: formHeaders(cookie),
        body: form({ _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(out.status, 303)
      assert.match(out.headers.get("set-cookie")!, /^herald_session=; Max-Age=0/)
      const after = yield* call("GET", "/dashboard", { headers: { cookie } })
      assert.include(after.text, "name=\"apiKey\"")
      const afterChange = yield* call("POST", "/dashboard/settings/autonomy", {
        headers: formHeaders(cookie),
        body: form({ globalDefault: "1", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(afterChange.status, 401)
      assert.ok(url)
    }))

  it.effect("webhooks show without credentials, with their recent deliveries", () =>
    Effect.gen(function*() {
      const { customerId, apiKey } = yield* signUp("dash-hooks@example.com")
      const hook = yield* call("POST", `/api/hooks/${customerId}`, {
        headers: bearer(apiKey),
        body: { url: "http://user:secretpw@127.0.0.1:9/hook?token=querysecret", events: ["content.created"] }
      })
      assert.strictEqual(hook.status, 200, hook.text)
      yield* createPiece(customerId, apiKey, "Triggers a delivery")
      let page = ""
      for (let i = 0; i < 50; i++) {
        page = (yield* call("GET", `/api/dashboard/${customerId}`, { headers: bearer(apiKey) })).text
        if (page.includes("Recent deliveries")) break
        yield* Effect.sleep("200 millis")
      }
      assert.include(page, "http://127.0.0.1:9/hook")
      assert.notInclude(page, "secretpw")
      assert.notInclude(page, "querysecret")
      assert.include(page, "Recent deliveries")
      assert.include(page, "<td>content.created</td>")
    }))

  it.effect("a disabled subscription is recovered from the webhooks section: the events it missed arrive", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const { customerId, apiKey } = yield* signUp("dash-recover@example.com")
      const receiver = yield* startReceiver
      const hook = yield* call("POST", `/api/hooks/${customerId}`, {
        headers: bearer(apiKey),
        body: { url: receiver.url, events: ["content.created"] }
      })
      receiver.state.secret = hook.json.secret
      yield* sql`UPDATE webhooks SET disabled_at = now(), disabled_reason = 'gone' WHERE id = ${hook.json.id}`
      const missed = yield* createPiece(customerId, apiKey, "Missed while disabled")
      const cookie = yield* signIn(apiKey)
      const page = (yield* call("GET", "/dashboard", { headers: { cookie } })).text
      const action = `/dashboard/webhooks/${hook.json.id}/recover`
      assert.include(page, `action="${action}"`)
      assert.include(page, "Enable and resend missed events")
      const since = /name="since" required value="([^"]+)"/.exec(page)![1]
      assert.match(since, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/)
      const refused = yield* call("POST", action, { headers: formHeaders(cookie), body: form({ since }), raw: true })
      assert.strictEqual(refused.status, 403, "the CSRF token is needed")
      const bad = yield* call("POST", action, {
        headers: formHeaders(cookie),
        body: form({ since: "soon", _csrf: csrfOf(page) }),
        raw: true
      })
      assert.strictEqual(bad.status, 400)
      const future = yield* call("POST", action, {
        headers: formHeaders(cookie),
        body: form({ since: "2999-01-01T00:00", _csrf: csrfOf(page) }),
        raw: true
      })
      assert.strictEqual(future.status, 400)
      assert.include(future.text, "must not be in the future")

      const res = yield* call("POST", action, {
        headers: formHeaders(cookie),
        body: form({ since, _csrf: csrfOf(page) }),
        raw: true
      })
      assert.strictEqual(res.status, 200, res.text)
      assert.include(res.text, "1 missed event is on its way")
      yield* waitFor(receiver.state.received, (r) => r.length >= 1)
      assert.strictEqual(receiver.state.received[0].json.data.id, missed)
      assert.isTrue(receiver.state.received[0].verified)
      const hooks = yield* call("GET", `/api/hooks/${customerId}`, { headers: bearer(apiKey) })
      assert.isNull(hooks.json.hooks[0].disabledAt)
    }))

  it.effect("every change made in the dashboard is recorded with the signed-in owner or member as its actor", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const owner = yield* signUp("dash-actors@example.com")
      const { customerId, apiKey } = owner
      const admin = yield* invite({ ...owner, email: "", mcpEndpoint: "" }, "admin")
      const editor = yield* invite({ ...owner, email: "", mcpEndpoint: "" }, "editor")
      const toReject = yield* createPiece(customerId, apiKey, "Rejected in the dashboard")
      const toApprove = yield* createPiece(customerId, apiKey, "Approved in the dashboard")
      const receiver = yield* startReceiver
      const hook = yield* call("POST", `/api/hooks/${customerId}`, {
        headers: bearer(apiKey),
        body: { url: receiver.url, events: ["team.invited"] }
      })
      yield* sql`UPDATE webhooks SET disabled_at = now(), disabled_reason = 'gone' WHERE id = ${hook.json.id}`

      /** Signs in with `key` and posts each form as that session, each answered 2xx or 303. */
      const asSignedIn = (key: string, posts: ReadonlyArray<readonly [string, Record<string, string>]>) =>
        Effect.gen(function*() {
          const cookie = yield* signIn(key)
          const csrf = csrfOf((yield* call("GET", "/dashboard", { headers: { cookie } })).text)
          for (const [path, fields] of posts) {
            const res = yield* call("POST", path, {
              headers: formHeaders(cookie),
              body: form({ ...fields, _csrf: csrf }),
              raw: true
            })
            assert.include([200, 303], res.status, `${path}: ${res.status} ${res.text.slice(0, 300)}`)
          }
        })
      yield* asSignedIn(apiKey, [
        [`/dashboard/content/${toReject}/review`, { action: "reject", note: "Off brand" }],
        ["/dashboard/settings/autonomy", { globalDefault: "3" }],
        ["/dashboard/settings/budget", { daily: "10", weekly: "", monthly: "" }],
        ["/dashboard/team/invite", { email: "from.dashboard@example.com", role: "viewer" }]
      ])
      yield* asSignedIn(admin.apiKey, [
        ["/dashboard/workflows/lead-magnet/toggle", { enabled: "true" }],
        [`/dashboard/webhooks/${hook.json.id}/recover`, {
          since: new Date(Date.now() - 3_600_000).toISOString().slice(0, 16)
        }]
      ])
      yield* asSignedIn(editor.apiKey, [[`/dashboard/content/${toApprove}/review`, { action: "approve" }]])

      const log = (yield* call("GET", `/api/events/${customerId}?limit=200`, { headers: bearer(apiKey) })).json
        .events as Array<any>
      const actorOf = (type: string) => {
        const found = log.filter((e) => e.type === type)
        assert.strictEqual(found.length, 1, `${type}: ${JSON.stringify(found)}`)
        return found[0].actor
      }
      const ownerActor = { type: "owner", id: customerId }
      assert.deepStrictEqual(actorOf("content.rejected"), ownerActor)
      assert.deepStrictEqual(actorOf("settings.autonomy_updated"), ownerActor)
      assert.deepStrictEqual(actorOf("settings.budget_updated"), ownerActor)
      const invited = log.filter((e) => e.type === "team.invited")
      assert.deepStrictEqual(invited.find((e) => e.data.email === "from.dashboard@example.com")?.actor, ownerActor)
      const adminActor = { type: "member", id: admin.memberId }
      assert.deepStrictEqual(actorOf("workflow.updated"), adminActor)
      assert.deepStrictEqual(actorOf("webhook.enabled"), adminActor)
      assert.deepStrictEqual(actorOf("webhook.recovered"), adminActor)
      assert.deepStrictEqual(actorOf("content.approved"), { type: "member", id: editor.memberId })
      // The same shape as a change made through the API with a key.
      const viaApi = yield* call("PUT", `/api/settings/${customerId}/autonomy`, {
        headers: bearer(admin.apiKey),
        body: { globalDefault: 2 }
      })
      assert.strictEqual(viaApi.status, 200, viaApi.text)
      const latest =
        (yield* call("GET", `/api/events/${customerId}?limit=1`, { headers: bearer(apiKey) })).json.events[0]
      assert.deepStrictEqual([latest.type, latest.actor], ["settings.autonomy_updated", adminActor])
    }))

  it.effect("hostile form input answers 4xx HTML pages, never a 5xx", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* signUp("dash-hostile@example.com")
      const cookie = yield* signIn(apiKey)
      const csrf = csrfOf((yield* call("GET", "/dashboard", { headers: { cookie } })).text)
      const cases: ReadonlyArray<readonly [string, Record<string, string>, number]> = [
        ["/dashboard/content/%00/review", { action: "approve" }, 404],
        ["/dashboard/content/%ED%A0%80/review", { action: "approve" }, 404],
        [`/dashboard/content/${"x".repeat(400)}/review`, { action: "approve" }, 404],
        ["/dashboard/content/cnt_nothing/review", { action: "approve" }, 404],
        ["/dashboard/content/cnt_nothing/review", { action: "publish" }, 400],
        ["/dashboard/content/cnt_nothing/review", { action: "approve", note: "n".repeat(1001) }, 400],
        ["/dashboard/settings/autonomy", { globalDefault: "6" }, 400],
        ["/dashboard/settings/autonomy", { globalDefault: "2.5" }, 400],
        ["/dashboard/settings/budget", { daily: "1e999" }, 400],
        ["/dashboard/settings/budget", { weekly: "\u0000" }, 400],
        ["/dashboard/team/invite", { email: "not-an-email", role: "viewer" }, 400],
        ["/dashboard/team/invite", { email: "a@b.co", role: "owner" }, 400],
        ["/dashboard/workflows/%00/toggle", { enabled: "true" }, 404],
        [`/dashboard/workflows/${"w".repeat(400)}/toggle`, { enabled: "true" }, 404],
        ["/dashboard/workflows/lead-magnet/toggle", { enabled: "\u0000" }, 400],
        ["/dashboard/workflows/lead-magnet/toggle", {}, 400],
        ["/dashboard/social/connect", { platform: "\u0000" }, 400],
        ["/dashboard/social/connect", { platform: "x".repeat(5000) }, 400],
        ["/dashboard/webhooks/%00/recover", { since: "2026-01-01T00:00" }, 404],
        ["/dashboard/webhooks/wh_nothing/recover", { since: new Date().toISOString().slice(0, 16) }, 404],
        ["/dashboard/webhooks/wh_nothing/recover", { since: "\u0000" }, 400],
        ["/dashboard/webhooks/wh_nothing/recover", { since: "2026-01-01T00:00+01:00" }, 400]
      ]
      for (const [path, fields, status] of cases) {
        const res = yield* call("POST", path, {
          headers: formHeaders(cookie),
          body: form({ ...fields, _csrf: csrf }),
          raw: true
        })
        assert.strictEqual(res.status, status, `${path} ${JSON.stringify(fields)}: ${res.text.slice(0, 300)}`)
        assert.include(res.headers.get("content-type"), "text/html")
      }
      const invited = yield* call("POST", "/dashboard/team/invite", {
        headers: formHeaders(cookie),
        body: form({ email: "twice@example.com", role: "viewer", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(invited.status, 200)
      const twice = yield* call("POST", "/dashboard/team/invite", {
        headers: formHeaders(cookie),
        body: form({ email: "twice@example.com", role: "viewer", _csrf: csrf }),
        raw: true
      })
      assert.strictEqual(twice.status, 409)
      assert.include(twice.text, "already exists")
    }))

  it.effect("a tampered cookie, a revoked key or a suspended account sign the session out", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const { customerId, apiKey } = yield* signUp("dash-revoke@example.com")
      const cookie = yield* signIn(apiKey)
      const tampered = cookie.replace(/.$/, (c) => (c === "A" ? "B" : "A"))
      assert.include((yield* call("GET", "/dashboard", { headers: { cookie: tampered } })).text, "name=\"apiKey\"")
      assert.notInclude((yield* call("GET", "/dashboard", { headers: { cookie } })).text, "name=\"apiKey\"")
      yield* sql`UPDATE customers SET status = 'suspended' WHERE id = ${customerId}`
      assert.include((yield* call("GET", "/dashboard", { headers: { cookie } })).text, "name=\"apiKey\"")
      const inactive = yield* call("POST", "/dashboard", {
        headers: yield* signInHeaders(),
        body: form({ apiKey }),
        raw: true
      })
      assert.strictEqual(inactive.status, 401)
      assert.include(inactive.text, "not active")
    }))

  it.effect("failed sign-ins count in the pre-auth budget of the address", () =>
    Effect.gen(function*() {
      const ip = randomIp()
      for (let i = 0; i < 20; i++) {
        const res = yield* call("POST", "/dashboard", {
          headers: yield* signInHeaders({ "x-forwarded-for": ip }),
          body: form({ apiKey: "wrong" }),
          raw: true
        })
        assert.strictEqual(res.status, 401)
      }
      const limited = yield* call("POST", "/dashboard", {
        headers: yield* signInHeaders({ "x-forwarded-for": ip }),
        body: form({ apiKey: "wrong" }),
        raw: true
      })
      assert.strictEqual(limited.status, 429)
      assert.include(limited.headers.get("content-type"), "text/html")
      assert.isAtLeast(Number(limited.headers.get("retry-after")), 1)
    }))

  it.effect("sign-in needs a same-origin Origin, or without one a same-origin Referer: otherwise 403 and no session", () =>
    Effect.gen(function*() {
      const { url, sql } = yield* TestServer
      const { apiKey, customerId } = yield* provision({ status: "active" })
      const sessions = () =>
        Effect.map(
          sql<{ n: number }>`SELECT count(*)::int AS n FROM dashboard_sessions WHERE customer_id = ${customerId}`,
          (rows) => rows[0].n
        )
      // The sign-in page keeps the pages' header and lets its own document state its origin to this origin only.
      const login = yield* call("GET", "/dashboard")
      assert.strictEqual(login.headers.get("referrer-policy"), "no-referrer")
      assert.include(login.text, `<meta name="referrer" content="same-origin">`)

      const post = (headers: Record<string, string>) =>
        call("POST", "/dashboard", {
          headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": randomIp(), ...headers },
          body: form({ apiKey }),
          raw: true
        })
      for (
        const headers of [
          {},
          { origin: "null" },
          { origin: "http://evil.example" },
          { origin: `${url}.evil.example` },
          { origin: "null", referer: `${url}/dashboard` },
          { origin: "http://evil.example", referer: `${url}/dashboard` },
          { referer: "http://evil.example/dashboard" },
          { referer: "not a url" },
          // Fetch metadata alone is not the proof asked for.
          { "sec-fetch-site": "same-origin" }
        ]
      ) {
        const refused = yield* post(headers)
        assert.strictEqual(refused.status, 403, JSON.stringify(headers))
        assert.include(refused.headers.get("content-type"), "text/html")
        assert.include(refused.text, "Sign in from the dashboard page.")
        assert.isNull(refused.headers.get("set-cookie"))
      }
      assert.strictEqual(yield* sessions(), 0)

      for (
        const headers of [{ origin: url }, { referer: `${url}/dashboard` }, {
          origin: url,
          referer: "http://evil.example/"
        }]
      ) {
        const opened = yield* post(headers)
        assert.strictEqual(opened.status, 303, JSON.stringify(headers))
        assert.match(opened.headers.get("set-cookie")!, /^herald_session=/)
      }
      assert.strictEqual(yield* sessions(), 3)
    }))
})

layer(testApp({ trustProxy: true }), { timeout: 60_000, excludeTestServices: true })(
  "dashboard sections of workflows, social and analytics",
  (it) => {
    it.effect("the sections render escaped: workflows with schedules and last runs, platforms, the analytics chart; the Bearer view has no forms", () =>
      Effect.gen(function*() {
        const { sql } = yield* TestServer
        const { customerId, apiKey } = yield* signUp("dash-sections@example.com")
        const renamed = yield* call("PUT", `/api/workflows/${customerId}/lead-magnet`, {
          headers: bearer(apiKey),
          body: { name: "<b>Guide</b> & \"co\"", schedule: "15 7 * * 2", timezone: "Europe/Berlin" }
        })
        assert.strictEqual(renamed.status, 200, renamed.text)
        const run = yield* call("POST", `/api/workflows/${customerId}/performance-report/run`, {
          headers: bearer(apiKey),
          body: {}
        })
        // Polled in the database: the API's REST limit (60 a minute) is for the assertions below.
        for (let i = 0; i < 300; i++) {
          const [row] = yield* sql<{ status: string }>`SELECT status FROM workflow_runs WHERE id = ${run.json.runId}`
          if (row?.status === "succeeded") break
          yield* Effect.sleep("100 millis")
        }
        yield* sql`INSERT INTO content (id, customer_id, type, platform, status, body, published_at)
        VALUES ('cnt_dash_x', ${customerId}, 'social', 'x', 'published', 'A post', now() - interval '2 days')`
        yield* sql`INSERT INTO post_metrics (content_id, customer_id, platform, impressions, engagements) VALUES ('cnt_dash_x', ${customerId}, 'x', 4321, 12)`
        yield* sql`INSERT INTO social_connections (customer_id, platform, account_name) VALUES (${customerId}, 'linkedin', '<i>Acme</i> Page')`

        const res = yield* call("GET", `/api/dashboard/${customerId}`, { headers: bearer(apiKey) })
        assert.strictEqual(res.status, 200, res.text)
        for (const section of ["workflows", "social", "analytics"]) assert.include(res.text, `id="${section}"`)
        // Workflows: every one of the catalog, the renamed one escaped, with its schedule; the run's status.
        assert.strictEqual(res.text.match(/data-workflow-id="/g)?.length, 6)
        assert.include(res.text, "&lt;b&gt;Guide&lt;/b&gt; &amp; &quot;co&quot;")
        assert.notInclude(res.text, "<b>Guide</b>")
        assert.include(res.text, "<code>15 7 * * 2</code> (Europe/Berlin)")
        const report = res.text.slice(res.text.indexOf(`data-workflow-id="performance-report"`))
        assert.include(report.slice(0, report.indexOf("</li></ul>")), `<span class="badge succeeded">succeeded</span>`)
        // Social: six platforms, the connected one with its (escaped) account name.
        assert.strictEqual(res.text.match(/data-platform="/g)?.length, 6)
        assert.include(res.text, "&lt;i&gt;Acme&lt;/i&gt; Page")
        assert.notInclude(res.text, "<i>Acme</i>")
        const linkedin = res.text.slice(res.text.indexOf(`data-platform="linkedin"`))
        assert.include(linkedin.slice(0, linkedin.indexOf("</li>")), "badge connected")
        // Analytics: an inline SVG chart and the per-channel figures of the period.
        // One chart each of posts, clicks and revenue, and of impressions since a provider reported some; labels whole.
        for (const title of ["Posts", "Clicks", "Revenue", "Impressions"]) {
          assert.include(res.text, `aria-label="${title} per channel, last 30 days"`)
        }
        assert.include(res.text, "<title>X: 4,321</title>")
        assert.include(res.text, "<title>X: 1</title>")
        for (const label of ["LinkedIn", "Instagram", "Pinterest", "Facebook"]) {
          assert.include(res.text, `>${label}</text>`)
        }
        assert.include(
          res.text,
          `<tr data-channel="x"><td>X</td><td>1</td><td>0</td><td>4,321</td><td>12</td><td>0</td></tr>`
        )
        // Read-only: no form of the new sections.
        assert.notInclude(res.text, "/dashboard/workflows/")
        assert.notInclude(res.text, "/dashboard/social/connect")
      }))

    it.effect("an admin toggles a workflow and connects a platform from the dashboard; both need the CSRF token; a viewer sees no forms", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { customerId, apiKey } = yield* signUp("dash-forms@example.com")
        const cookie = yield* signIn(apiKey)
        const page = (yield* call("GET", "/dashboard", { headers: { cookie } })).text
        const csrf = csrfOf(page)
        assert.include(page, `action="/dashboard/workflows/daily-social-posts/toggle"`)
        assert.include(page, `action="/dashboard/social/connect"`)
        const toggle = "/dashboard/workflows/daily-social-posts/toggle"
        const enabled = () =>
          Effect.map(
            call("GET", `/api/workflows/${customerId}`, { headers: bearer(apiKey) }),
            (r) => (r.json.workflows as Array<any>).find((w) => w.id === "daily-social-posts").enabled as boolean
          )

        // CSRF refusals change nothing.
        assert.strictEqual(
          (yield* call("POST", toggle, { headers: formHeaders(cookie), body: form({ enabled: "true" }), raw: true }))
            .status,
          403
        )
        assert.strictEqual(
          (yield* call("POST", toggle, {
            headers: formHeaders(cookie),
            body: form({ enabled: "true", _csrf: csrf + "x" }),
            raw: true
          })).status,
          403
        )
        const crossSite = yield* call("POST", toggle, {
          headers: formHeaders(cookie, { "sec-fetch-site": "cross-site" }),
          body: form({ enabled: "true", _csrf: csrf }),
          raw: true
        })
        assert.strictEqual(crossSite.status, 403)
        assert.isFalse(yield* enabled())

        const on = yield* call("POST", toggle, {
          headers: formHeaders(cookie),
          body: form({ enabled: "true", _csrf: csrf }),
          raw: true
        })
        assert.strictEqual(on.status, 303, on.text)
        assert.strictEqual(on.headers.get("location"), "/dashboard#workflows")
        assert.isTrue(yield* enabled())
        const after = (yield* call("GET", "/dashboard", { headers: { cookie } })).text
        const row = after.slice(after.indexOf(`data-workflow-id="daily-social-posts"`))
        assert.include(row.slice(0, row.indexOf("</form>")), `name="enabled" value="false"`)
        const off = yield* call("POST", toggle, {
          headers: formHeaders(cookie),
          body: form({ enabled: "false", _csrf: csrf }),
          raw: true
        })
        assert.strictEqual(off.status, 303)
        assert.isFalse(yield* enabled())
        const badValue = yield* call("POST", toggle, {
          headers: formHeaders(cookie),
          body: form({ enabled: "yes", _csrf: csrf }),
          raw: true
        })
        assert.strictEqual(badValue.status, 400)
        assert.include(badValue.headers.get("content-type"), "text/html")
        const unknown = yield* call("POST", "/dashboard/workflows/nope/toggle", {
          headers: formHeaders(cookie),
          body: form({ enabled: "true", _csrf: csrf }),
          raw: true
        })
        assert.strictEqual(unknown.status, 404)

        // Connect: the button's post creates the link and sends the browser to the consent page.
        const connect = "/dashboard/social/connect"
        assert.strictEqual(
          (yield* call("POST", connect, { headers: formHeaders(cookie), body: form({ platform: "x" }), raw: true }))
            .status,
          403
        )
        const badPlatform = yield* call("POST", connect, {
          headers: formHeaders(cookie),
          body: form({ platform: "myspace", _csrf: csrf }),
          raw: true
        })
        assert.strictEqual(badPlatform.status, 400)
        const go = yield* call("POST", connect, {
          headers: formHeaders(cookie),
          body: form({ platform: "x", _csrf: csrf }),
          raw: true
        })
        assert.strictEqual(go.status, 303, go.text)
        const location = go.headers.get("location")!
        assert.isTrue(location.startsWith(`${url}/connect/sandbox?state=`), location)
        const consent = yield* Effect.promise(() =>
          fetch(location).then(async (r) => ({ status: r.status, text: await r.text() }))
        )
        assert.strictEqual(consent.status, 200)
        assert.include(consent.text, "name=\"state\"")

        // A viewer sees the sections without any form, and cannot post one.
        const viewer = yield* invite({ customerId, apiKey } as any, "viewer")
        const viewerCookie = yield* signIn(viewer.apiKey)
        const viewerPage = (yield* call("GET", "/dashboard", { headers: { cookie: viewerCookie } })).text
        for (const section of ["workflows", "social", "analytics"]) {
          assert.include(viewerPage, `id="${section}"`)
        }
        assert.notInclude(viewerPage, "/dashboard/workflows/")
        assert.notInclude(viewerPage, "/dashboard/social/connect")
        const viewerCsrf = csrfOf(viewerPage)
        assert.strictEqual(
          (yield* call("POST", toggle, {
            headers: formHeaders(viewerCookie),
            body: form({ enabled: "true", _csrf: viewerCsrf }),
            raw: true
          })).status,
          403
        )
        assert.strictEqual(
          (yield* call("POST", connect, {
            headers: formHeaders(viewerCookie),
            body: form({ platform: "x", _csrf: viewerCsrf }),
            raw: true
          })).status,
          403
        )
        assert.isFalse(yield* enabled())
      }))
  }
)

layer(testApp({ trustProxy: true, baseUrl: "https://herald.example" }), { timeout: 60_000, excludeTestServices: true })(
  "dashboard over https",
  (it) => {
    it.effect("the session cookie is Secure when the service is reached over https", () =>
      Effect.gen(function*() {
        const { customerId, apiKey } = yield* provision({ status: "active" }).pipe(
          Effect.map((p) => ({ customerId: p.customerId, apiKey: p.apiKey }))
        )
        const res = yield* call("POST", "/dashboard", {
          headers: yield* signInHeaders(),
          body: form({ apiKey }),
          raw: true
        })
        assert.strictEqual(res.status, 303)
        assert.match(res.headers.get("set-cookie")!, /; HttpOnly; SameSite=Lax; Secure$/)
        assert.ok(customerId)
      }))
  }
)
