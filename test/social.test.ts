import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { rateLimitDefaults } from "../src/Config.ts"
import { eventually, sleep } from "./support/eventually.ts"
import { call, type Reply, send, testApp, TestServer } from "./support/harness.ts"
import { assertError, bearer, invite, provision, type Provisioned } from "./support/processes.ts"

const hidden = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1]

/** What a person does: open the link, submit the consent form with the cookie, follow the redirects. */
const connectAsPerson = (owner: Provisioned, platform: string, account?: string) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    const links = yield* call("POST", `/api/connect/${owner.customerId}`, {
      headers: bearer(owner.apiKey),
      body: { platforms: [platform] }
    })
    assert.strictEqual(links.status, 200, links.text)
    const link: string = links.json.connectLinks[platform]
    assert.isTrue(link.startsWith(`${url}/connect/sandbox?state=`), link)
    const consent = yield* Effect.promise(() => fetch(link, { redirect: "manual" }))
    const page = yield* Effect.promise(() => consent.text())
    assert.strictEqual(consent.status, 200)
    assert.match(consent.headers.get("content-type") ?? "", /text\/html/)
    assert.include(consent.headers.get("content-security-policy") ?? "", "default-src 'none'")
    const cookie = (consent.headers.get("set-cookie") ?? "").split(";")[0]
    const form = new URLSearchParams({
      state: hidden(page, "state")!,
      _csrf: hidden(page, "_csrf")!,
      decision: "allow"
    })
    if (account !== undefined) form.set("account", account)
    const allowed = yield* Effect.promise(() =>
      fetch(`${url}/connect/sandbox`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: form.toString()
      })
    )
    assert.strictEqual(allowed.status, 303)
    const callback = allowed.headers.get("location")!
    assert.isTrue(callback.startsWith("/api/integration/callback?state="), callback)
    const back = yield* call("GET", callback)
    assert.strictEqual(back.status, 302, back.text)
    assert.strictEqual(back.headers.get("location"), `/dashboard?connected=${platform}#social`)
    return { link, callback, cookie, page }
  })

const publishedPiece = (owner: Provisioned, id: string) =>
  eventually(Effect.map(
    call("GET", `/api/content/${owner.customerId}/${id}`, { headers: bearer(owner.apiKey) }),
    (res) => (res.json.status === "published" ? res.json : undefined)
  ))

// Every test provisions its own customers: more than the admin limit's 10 a minute.
layer(testApp({ publishPollIntervalMs: 50, clickFlushMs: 100, rateLimits: { ...rateLimitDefaults, admin: 100 } }), {
  timeout: 90_000
})("social publishing (sandbox)", (it) => {
  it.effect("a person connects a platform; tampered, replayed and missing states are refused", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const before = yield* call("GET", `/api/social/connections/${owner.customerId}`, {
        headers: bearer(owner.apiKey)
      })
      assert.strictEqual(before.status, 200)
      assert.deepStrictEqual(Object.keys(before.json.connections).sort(), [
        "facebook",
        "instagram",
        "linkedin",
        "pinterest",
        "tiktok",
        "x"
      ])
      assert.deepStrictEqual(before.json.connections.x, { connected: false, accountName: null, connectedAt: null })

      const { callback, link } = yield* connectAsPerson(owner, "linkedin", "Acme <Corp>")
      const after = yield* call("GET", `/api/connections/${owner.customerId}`, { headers: bearer(owner.apiKey) })
      assert.strictEqual(after.json.customerId, owner.customerId)
      assert.strictEqual(after.json.connections.linkedin.connected, true)
      assert.strictEqual(after.json.connections.linkedin.accountName, "Acme <Corp>")
      assert.isString(after.json.connections.linkedin.connectedAt)
      assert.strictEqual(after.json.connections.x.connected, false)

      // Replay: the state was spent.
      assertError(yield* call("GET", callback), 400, "E_INVALID_STATE")
      // The consent page of a spent link is an HTML error.
      const spent = yield* Effect.promise(() => fetch(link))
      assert.strictEqual(spent.status, 400)
      assert.match(spent.headers.get("content-type") ?? "", /text\/html/)
      assert.isString(spent.headers.get("x-request-id"))
      yield* Effect.promise(() => spent.text())

      // Tampered: one character of the payload changed; forged: a made-up token; missing.
      const fresh = yield* call("POST", `/api/connect/${owner.customerId}`, {
        headers: bearer(owner.apiKey),
        body: { platforms: ["x"] }
      })
      const state = new URL(fresh.json.connectLinks.x).searchParams.get("state")!
      const flipped = state[3] === "A" ? "B" : "A"
      assertError(
        yield* call(
          "GET",
          `/api/integration/callback?state=${encodeURIComponent(state.slice(0, 3) + flipped + state.slice(4))}`
        ),
        400,
        "E_INVALID_STATE"
      )
      assertError(yield* call("GET", `/api/integration/callback?state=forged.token`), 400, "E_INVALID_STATE")
      assertError(yield* call("GET", `/api/integration/callback`), 400, "E_INVALID_STATE")
      assertError(yield* call("GET", `/api/integration/callback?state=${"a".repeat(3000)}.sig`), 400, "E_INVALID_STATE")
      const still = yield* call("GET", `/api/social/connections/${owner.customerId}`, { headers: bearer(owner.apiKey) })
      assert.strictEqual(still.json.connections.x.connected, false)

      const events = yield* call("GET", `/api/events/${owner.customerId}`, { headers: bearer(owner.apiKey) })
      const connected = events.json.events.filter((e: any) => e.type === "platform.connected")
      assert.strictEqual(connected.length, 1)
      assert.strictEqual(connected[0].data.platform, "linkedin")
    }))

  it.effect("the consent form needs this browser's cookie and token (CSRF)", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const owner = yield* provision()
      const links = yield* call("POST", `/api/connect/${owner.customerId}`, { headers: bearer(owner.apiKey), body: {} })
      assert.deepStrictEqual(Object.keys(links.json.connectLinks).sort(), [
        "facebook",
        "instagram",
        "linkedin",
        "pinterest",
        "tiktok",
        "x"
      ])
      const page = yield* Effect.promise(() => fetch(links.json.connectLinks.x).then((r) => r.text()))
      const state = hidden(page, "state")!
      // A cross-site form post carries no cookie (SameSite=Strict) and cannot know the token.
      const forged = yield* Effect.promise(() =>
        fetch(`${url}/connect/sandbox`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: "herald_consent=attacker" },
          body: new URLSearchParams({ state, _csrf: hidden(page, "_csrf")! }).toString()
        })
      )
      assert.strictEqual(forged.status, 403)
      assert.match(forged.headers.get("content-type") ?? "", /text\/html/)
      yield* Effect.promise(() => forged.text())
      const res = yield* call("GET", `/api/social/connections/${owner.customerId}`, { headers: bearer(owner.apiKey) })
      assert.strictEqual(res.json.connections.x.connected, false)
    }))

  it.effect("the callback needs the consent page's token: skipping the page, or a wrong or foreign token, is 400 E_INVALID_STATE", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const links = yield* call("POST", `/api/connect/${owner.customerId}`, {
        headers: bearer(owner.apiKey),
        body: { platforms: ["pinterest", "tiktok"] }
      })
      const state = new URL(links.json.connectLinks.pinterest).searchParams.get("state")!
      const direct = yield* call("GET", `/api/integration/callback?state=${encodeURIComponent(state)}&account=skipped`)
      assertError(direct, 400, "E_INVALID_STATE")
      assert.include(direct.json.error, "consent page")
      assertError(
        yield* call("GET", `/api/integration/callback?state=${encodeURIComponent(state)}&consent=`),
        400,
        "E_INVALID_STATE"
      )
      assertError(
        yield* call("GET", `/api/integration/callback?state=${encodeURIComponent(state)}&consent=forged`),
        400,
        "E_INVALID_STATE"
      )
      // The token of another link's consent (tiktok's, allowed through its page) does not fit this state.
      const { callback: other } = yield* connectAsPerson(owner, "tiktok")
      const otherConsent = new URL(other, "http://local").searchParams.get("consent")!
      assert.isString(otherConsent)
      assertError(
        yield* call(
          "GET",
          `/api/integration/callback?state=${encodeURIComponent(state)}&consent=${encodeURIComponent(otherConsent)}`
        ),
        400,
        "E_INVALID_STATE"
      )
      const none = yield* call("GET", `/api/social/connections/${owner.customerId}`, { headers: bearer(owner.apiKey) })
      assert.strictEqual(none.json.connections.pinterest.connected, false)
      assert.strictEqual(none.json.connections.tiktok.connected, true)

      // The refusals did not spend the link: the consent page still shows and connects it.
      const page = yield* Effect.promise(() =>
        fetch(links.json.connectLinks.pinterest).then(async (r) => ({
          status: r.status,
          text: await r.text(),
          cookie: (r.headers.get("set-cookie") ?? "").split(";")[0]
        }))
      )
      assert.strictEqual(page.status, 200)
      const { url } = yield* TestServer
      const allowed = yield* Effect.promise(() =>
        fetch(`${url}/connect/sandbox`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: page.cookie },
          body: new URLSearchParams({
            state: hidden(page.text, "state")!,
            _csrf: hidden(page.text, "_csrf")!,
            decision: "allow"
          }).toString()
        })
      )
      assert.strictEqual(allowed.status, 303)
      const back = yield* call("GET", allowed.headers.get("location")!)
      assert.strictEqual(back.status, 302, back.text)
      const after = yield* call("GET", `/api/social/connections/${owner.customerId}`, { headers: bearer(owner.apiKey) })
      assert.strictEqual(after.json.connections.pinterest.connected, true)
    }))

  it.effect("connect refuses unknown platforms and non-arrays", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      assertError(
        yield* call("POST", `/api/connect/${owner.customerId}`, { headers: h, body: { platforms: ["myspace"] } }),
        400,
        "E_VALIDATION"
      )
      assertError(
        yield* call("POST", `/api/connect/${owner.customerId}`, { headers: h, body: { platforms: "x" } }),
        400,
        "E_VALIDATION"
      )
      const none = yield* call("POST", `/api/connect/${owner.customerId}`, { headers: h })
      assert.strictEqual(none.status, 200, none.text)
    }))

  it.effect("publish now: validation before 403, queued, published once with tracked links", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      const path = `/api/social/publish/${owner.customerId}`
      // Validation comes first, even on a platform not connected.
      assertError(
        yield* call("POST", path, { headers: h, body: { platform: "instagram", body: "no media" } }),
        400,
        "E_VALIDATION"
      )
      assertError(
        yield* call("POST", path, { headers: h, body: { platform: "x", body: "a".repeat(281) } }),
        400,
        "E_VALIDATION"
      )
      assertError(
        yield* call("POST", path, {
          headers: h,
          body: { platform: "x", body: "hi", scheduledAt: "2020-01-01T00:00:00Z" }
        }),
        400,
        "E_VALIDATION"
      )
      assertError(
        yield* call("POST", path, { headers: h, body: { platform: "myspace", body: "hi" } }),
        400,
        "E_VALIDATION"
      )
      assertError(
        yield* call("POST", path, { headers: h, body: { platform: "x", body: "hi" } }),
        403,
        "E_PLATFORM_NOT_CONNECTED"
      )

      yield* connectAsPerson(owner, "x")
      const viewer = yield* invite(owner, "viewer")
      assertError(
        yield* call("POST", path, { headers: bearer(viewer.apiKey), body: { platform: "x", body: "hi" } }),
        403,
        "E_FORBIDDEN"
      )
      const editor = yield* invite(owner, "editor")
      const body =
        "Launch <b>day</b>! Read https://example.com/post?utm_source=keep. Also mailto:a@b.co and https://example.org"
      const queued = yield* call("POST", path, { headers: bearer(editor.apiKey), body: { platform: "x", body } })
      assert.strictEqual(queued.status, 200, queued.text)
      assert.strictEqual(queued.json.status, "approved")
      assert.strictEqual(queued.json.scheduledAt, null)
      assert.strictEqual(queued.json.type, "social")

      const piece = yield* publishedPiece(owner, queued.json.id)
      assert.strictEqual(piece.publishedUrl, `${url}/p/${queued.json.id}`)
      assert.isString(piece.publishedAt)
      assert.strictEqual(piece.body, body)

      const attempts = yield* call("GET", `/api/social/posts/${owner.customerId}/${queued.json.id}/attempts`, {
        headers: h
      })
      assert.strictEqual(attempts.json.attempts.length, 1)
      assert.strictEqual(attempts.json.attempts[0].status, "sent")
      assert.strictEqual(attempts.json.attempts[0].provider, "sandbox")
      assert.strictEqual(attempts.json.attempts[0].attempt, 1)
      assert.isString(attempts.json.attempts[0].providerPostId)
      // Posted once at the provider.
      const { sql: db } = yield* TestServer
      const stored = yield* db<
        { n: string }
      >`SELECT count(*)::text AS n FROM sandbox_posts WHERE content_id = ${queued.json.id}`.pipe(Effect.orDie)
      assert.strictEqual(Number(stored[0].n), 1)

      // The permalink shows the post escaped, its links tracked.
      const permalink = yield* Effect.promise(() => fetch(piece.publishedUrl))
      const html = yield* Effect.promise(() => permalink.text())
      assert.strictEqual(permalink.status, 200)
      assert.include(html, "Launch &lt;b&gt;day&lt;/b&gt;!")
      assert.notInclude(html, "<b>day</b>")
      assert.include(html, "mailto:a@b.co")
      const codes = [
        ...new Set(
          [...html.matchAll(new RegExp(`${url.replace(/[.:/]/g, "\\$&")}/r/([A-Za-z0-9_-]+)`, "g"))].map((m) => m[1])
        )
      ]
      assert.strictEqual(codes.length, 2, html)
      assert.include(html, `/r/${codes[0]}</a>.`)
      // Each link is clickable, marked as user content; mailto: stays text.
      for (const code of codes) {
        assert.include(html, `<a href="${url}/r/${code}" rel="nofollow noopener ugc" target="_blank">`)
      }
      assert.notInclude(html, `href="mailto:`)

      // A click: 302 to the target with UTM added and the existing utm_source kept.
      const click = yield* call("GET", `/r/${codes[0]}`, {
        headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" }
      })
      assert.strictEqual(click.status, 302)
      const target = new URL(click.headers.get("location")!)
      assert.strictEqual(target.origin + target.pathname, "https://example.com/post")
      assert.strictEqual(target.searchParams.get("utm_source"), "keep")
      assert.strictEqual(target.searchParams.get("utm_medium"), "social")
      assert.strictEqual(target.searchParams.get("utm_campaign"), "herald")
      const second = new URL(
        (yield* call("GET", `/r/${codes[1]}`, { headers: { "user-agent": "Mozilla/5.0" } })).headers.get("location")!
      )
      assert.strictEqual(second.searchParams.get("utm_source"), "x")
      // A bot is counted apart.
      assert.strictEqual(
        (yield* call("GET", `/r/${codes[0]}`, { headers: { "user-agent": "Twitterbot/1.0" } })).status,
        302
      )
      // Ids no row could hold are unknown ids (they were a 500: the query failed on the NUL).
      for (const path of ["/r/%00", "/r/a%00b", "/p/%00", "/p/cnt%00x"]) {
        const refused = yield* call("GET", path)
        assert.strictEqual(refused.status, 404, `${path}: ${refused.text}`)
        assert.include(refused.headers.get("content-type") ?? "", "text/html")
      }
      const { sql } = yield* TestServer
      const clicks = yield* eventually(Effect.map(
        sql<
          { bot: boolean; n: string }
        >`SELECT bot, sum(clicks)::text AS n FROM link_clicks WHERE customer_id = ${owner.customerId} GROUP BY bot ORDER BY bot`
          .pipe(Effect.orDie),
        (rows) => (rows.length === 2 ? rows : undefined)
      ))
      assert.deepStrictEqual(clicks.map((r) => [r.bot, Number(r.n)]), [[false, 2], [true, 1]])
      const unknown = yield* call("GET", `/r/nosuchcode`)
      assert.strictEqual(unknown.status, 404)
      assert.match(unknown.headers.get("content-type") ?? "", /text\/html/)

      // Clicks are written in batches (CLICK_FLUSH_MS).
      const report = yield* eventually(Effect.map(
        call("GET", `/api/analytics/${owner.customerId}?period=last_30_days`, { headers: h }),
        (res) => (res.status === 200 && res.json.totals.clicks === 2 ? res : undefined)
      ))
      assert.strictEqual(report.json.period, "last_30_days")
      assert.deepStrictEqual(report.json.channels.x, {
        posts: 1,
        clicks: 2,
        impressions: 0,
        engagements: 0,
        revenue: 0
      })
      assert.deepStrictEqual(report.json.totals, { posts: 1, clicks: 2, impressions: 0, engagements: 0, revenue: 0 })

      // Published pieces cannot be retried or cancelled.
      assertError(
        yield* call("POST", `/api/social/posts/${owner.customerId}/${queued.json.id}/retry`, { headers: h, body: {} }),
        409,
        "E_INVALID_TRANSITION"
      )
      assertError(
        yield* call("POST", `/api/social/posts/${owner.customerId}/${queued.json.id}/cancel`, { headers: h, body: {} }),
        409,
        "E_INVALID_TRANSITION"
      )
      assertError(
        yield* call("GET", `/api/social/posts/${owner.customerId}/cnt_nothing/attempts`, { headers: h }),
        404,
        "E_NOT_FOUND"
      )

      const events = yield* call("GET", `/api/events/${owner.customerId}?limit=200`, { headers: h })
      const published = events.json.events.filter((e: any) => e.type === "content.published")
      assert.strictEqual(published.length, 1)
    }))

  it.effect("a batch due at once, two customers: each post once, with its own event, webhook and tracked links", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const tracked = yield* provision()
      const plain = yield* provision()
      for (const owner of [tracked, plain]) yield* connectAsPerson(owner, "x")
      const off = yield* call("PUT", `/api/settings/${plain.customerId}/tracking`, {
        headers: bearer(plain.apiKey),
        body: { links: false }
      })
      assert.strictEqual(off.status, 200, off.text)
      const hook = yield* call("POST", `/api/hooks/${tracked.customerId}`, {
        headers: bearer(tracked.apiKey),
        body: { url: "http://127.0.0.1:9/hook", events: ["content.published"] }
      })
      assert.strictEqual(hook.status, 200, hook.text)
      // One instant for all of them, so the publisher claims and records them together; far enough
      // ahead that 30 requests on a loaded machine are all sent before it.
      const due = new Date(Date.now() + 8_000).toISOString()
      const queued: Array<{ owner: Provisioned; id: string; body: string }> = []
      for (let i = 0; i < 15; i++) {
        for (const owner of [tracked, plain]) {
          const body = `Post ${i}: https://example.com/${i} and https://example.org/same`
          const res = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
            headers: bearer(owner.apiKey),
            body: { platform: "x", body, scheduledAt: due }
          })
          assert.strictEqual(res.status, 200, res.text)
          queued.push({ owner, id: res.json.id, body })
        }
      }
      // Waited for in the database: polling 30 pieces through the API would pass the REST limit.
      const ids = queued.map((q) => q.id)
      const urls = yield* eventually(Effect.map(
        sql<{ id: string; publishedUrl: string }>`SELECT id, published_url FROM content WHERE id IN ${
          sql.in(ids)
        } AND status = 'published'`.pipe(Effect.orDie),
        (rows) => (rows.length === ids.length ? rows : undefined)
      ))
      for (const row of urls) assert.isTrue(row.publishedUrl.endsWith(`/p/${row.id}`), row.publishedUrl)
      const perPiece = yield* sql<{ contentId: string; attempts: string; posts: string; codes: string; body: string }>`
        SELECT c.id AS content_id,
          (SELECT count(*) FROM publish_attempts a WHERE a.content_id = c.id)::text AS attempts,
          (SELECT count(*) FROM sandbox_posts s WHERE s.content_id = c.id)::text AS posts,
          (SELECT count(*) FROM tracked_links l WHERE l.content_id = c.id)::text AS codes,
          (SELECT s.body FROM sandbox_posts s WHERE s.content_id = c.id) AS body
        FROM content c WHERE c.id IN ${sql.in(queued.map((q) => q.id))}`.pipe(Effect.orDie)
      assert.strictEqual(perPiece.length, queued.length)
      for (const row of perPiece) {
        const sent = queued.find((q) => q.id === row.contentId)!
        assert.strictEqual(Number(row.attempts), 1, row.contentId)
        assert.strictEqual(Number(row.posts), 1, row.contentId)
        if (sent.owner === tracked) {
          assert.strictEqual(Number(row.codes), 2, row.contentId)
          assert.notInclude(row.body, "https://example.com/")
          assert.strictEqual(row.body.match(/\/r\//g)?.length, 2, row.body)
        } else {
          assert.strictEqual(Number(row.codes), 0, row.contentId)
          assert.strictEqual(row.body, sent.body)
        }
      }
      // Each customer's log holds one content.published per piece of its own, naming that piece.
      for (const owner of [tracked, plain]) {
        const events = yield* call("GET", `/api/events/${owner.customerId}?limit=200`, {
          headers: bearer(owner.apiKey)
        })
        const ids = events.json.events.filter((e: any) => e.type === "content.published").map((e: any) => e.data.id)
          .sort()
        assert.deepStrictEqual(ids, queued.filter((q) => q.owner === owner).map((q) => q.id).sort())
      }
      // A webhook delivery per piece of the subscriber, none for the other customer.
      const deliveries = yield* sql<{ customerId: string; n: string }>`
        SELECT e.customer_id, count(d.id)::text AS n FROM webhook_events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id
        WHERE e.type = 'content.published' AND e.customer_id IN (${tracked.customerId}, ${plain.customerId})
        GROUP BY e.customer_id ORDER BY e.customer_id`.pipe(Effect.orDie)
      assert.deepStrictEqual(
        Object.fromEntries(deliveries.map((row) => [row.customerId, Number(row.n)])),
        { [tracked.customerId]: 15, [plain.customerId]: 0 }
      )
    }))

  it.effect("a code answered from memory answers exactly as its first answer (read from the database) did", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const owner = yield* provision()
      const code = `lane${Date.now().toString(36)}`
      const target = "https://example.com/landing?utm_source=x"
      yield* sql`INSERT INTO tracked_links (code, customer_id, platform, target) VALUES (${code}, ${owner.customerId}, 'x', ${target})`
        .pipe(Effect.orDie)
      const headersOf = (reply: Reply) =>
        Object.fromEntries([...reply.headers.entries()].filter(([name]) => name !== "date" && name !== "x-request-id"))
      const first = yield* call("GET", `/r/${code}`, { headers: { "user-agent": "Mozilla/5.0" } })
      const again = yield* call("GET", `/r/${code}`, { headers: { "user-agent": "Mozilla/5.0" } })
      assert.strictEqual(first.status, 302)
      assert.strictEqual(again.status, 302)
      assert.deepStrictEqual(headersOf(again), headersOf(first))
      assert.strictEqual(again.headers.get("location"), target)
      assert.strictEqual(again.headers.get("x-content-type-options"), "nosniff")
      assert.strictEqual(again.text, "")
      for (const reply of [first, again]) assert.match(reply.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{32}$/)
      // A caller's own valid request id is echoed, an invalid one replaced.
      const echoed = yield* call("GET", `/r/${code}`, {
        headers: { "x-request-id": "trace-123_abc", "user-agent": "curl/8" }
      })
      assert.strictEqual(echoed.headers.get("x-request-id"), "trace-123_abc")
      const replaced = yield* call("GET", `/r/${code}`, {
        headers: { "x-request-id": "bad id!", "user-agent": "Mozilla/5.0" }
      })
      assert.match(replaced.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{32}$/)
      // Other methods, a trailing slash, a query, an unknown code.
      const post = yield* call("POST", `/r/${code}`, { body: {} })
      assert.strictEqual(post.status, 405)
      assert.strictEqual((yield* call("GET", `/r/${code}/`)).headers.get("location"), target)
      assert.strictEqual((yield* call("GET", `/r/${code}?from=mail`)).headers.get("location"), target)
      assert.strictEqual((yield* call("GET", `/r/${code}x`)).status, 404)
      // Every click counted, bots apart (curl is a bot).
      const clicks = yield* eventually(Effect.map(
        sql<
          { bot: boolean; n: string }
        >`SELECT bot, sum(clicks)::text AS n FROM link_clicks WHERE code = ${code} GROUP BY bot ORDER BY bot`.pipe(
          Effect.orDie
        ),
        (rows) => (rows.reduce((sum, r) => sum + Number(r.n), 0) === 6 ? rows : undefined)
      ))
      assert.deepStrictEqual(clicks.map((r) => [r.bot, Number(r.n)]), [[false, 5], [true, 1]])
    }))

  it.effect("scheduled: the offset is honoured, published when due, not before", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      yield* connectAsPerson(owner, "linkedin")
      const due = new Date(Date.now() + 2_000)
      // The same instant written in UTC+02:00.
      const local = new Date(due.getTime() + 2 * 3600_000).toISOString().replace("Z", "+02:00")
      const queued = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
        headers: h,
        body: { platform: "linkedin", body: "Scheduled post", scheduledAt: local }
      })
      assert.strictEqual(queued.status, 200, queued.text)
      assert.strictEqual(queued.json.status, "approved")
      assert.strictEqual(queued.json.scheduledAt, due.toISOString())
      const early = yield* call("GET", `/api/content/${owner.customerId}/${queued.json.id}`, { headers: h })
      assert.strictEqual(early.json.status, "approved")
      const piece = yield* publishedPiece(owner, queued.json.id)
      assert.isAtLeast(Date.parse(piece.publishedAt), due.getTime())
      const events = yield* call("GET", `/api/events/${owner.customerId}`, { headers: h })
      const scheduled = events.json.events.find((e: any) => e.type === "content.scheduled")
      assert.strictEqual(scheduled.data.contentId, queued.json.id)
      assert.strictEqual(scheduled.data.scheduledAt, due.toISOString())
    }))

  it.effect("cancel takes a piece off the queue; retry queues it again", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      yield* connectAsPerson(owner, "facebook")
      const later = new Date(Date.now() + 3600_000).toISOString()
      const queued = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
        headers: h,
        body: { platform: "facebook", body: "Later", scheduledAt: later }
      })
      const cancelled = yield* call("POST", `/api/social/posts/${owner.customerId}/${queued.json.id}/cancel`, {
        headers: h,
        body: {}
      })
      assert.strictEqual(cancelled.status, 200, cancelled.text)
      assert.strictEqual(cancelled.json.status, "approved")
      assert.strictEqual(cancelled.json.scheduledAt, null)
      yield* sleep(400)
      assert.strictEqual(
        (yield* call("GET", `/api/content/${owner.customerId}/${queued.json.id}`, { headers: h })).json.status,
        "approved"
      )
      const retried = yield* call("POST", `/api/social/posts/${owner.customerId}/${queued.json.id}/retry`, {
        headers: h,
        body: {}
      })
      assert.strictEqual(retried.status, 200, retried.text)
      yield* publishedPiece(owner, queued.json.id)
    }))

  it.effect("an approved piece is published by its own route; other statuses 409, other tenants 404; the platform's rules as everywhere", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const other = yield* provision()
      const h = bearer(owner.apiKey)
      yield* connectAsPerson(owner, "instagram")
      yield* connectAsPerson(owner, "linkedin")
      const written = (platform: string, body: string, metadata: Record<string, unknown>, approve: boolean) =>
        Effect.gen(function*() {
          const created = yield* call("POST", `/api/content/${owner.customerId}`, {
            headers: h,
            body: { type: "social", platform, body, metadata, submit: true }
          })
          assert.strictEqual(created.status, 200, created.text)
          if (approve) {
            const approved = yield* call("POST", `/api/content/${owner.customerId}/${created.json.id}/review`, {
              headers: h,
              body: { action: "approve" }
            })
            assert.strictEqual(approved.status, 200, approved.text)
          }
          return created.json.id as string
        })
      const publishPiece = (id: string, body: unknown, headers = h) =>
        call("POST", `/api/social/posts/${owner.customerId}/${id}/publish`, { headers, body })

      // Instagram without media: refused with the same answer on every path that publishes it.
      const bare = yield* written("instagram", "No picture", {}, true)
      const direct = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
        headers: h,
        body: { platform: "instagram", body: "No picture" }
      })
      assertError(direct, 400, "E_VALIDATION", "Invalid body.media: instagram posts need at least one media item")
      for (
        const refused of [
          yield* publishPiece(bare, {}),
          yield* call("POST", `/api/social/posts/${owner.customerId}/${bare}/retry`, { headers: h, body: {} })
        ]
      ) {
        assertError(refused, 400, "E_VALIDATION", "Invalid body.media: instagram posts need at least one media item")
        assert.deepStrictEqual(refused.json.details, direct.json.details)
      }
      yield* sleep(300)
      const attempts = yield* call("GET", `/api/social/posts/${owner.customerId}/${bare}/attempts`, { headers: h })
      assert.deepStrictEqual(attempts.json.attempts, [])
      assert.strictEqual(
        (yield* call("GET", `/api/content/${owner.customerId}/${bare}`, { headers: h })).json.status,
        "approved"
      )
      // Published elsewhere: the same piece on LinkedIn, where media is not required.
      const moved = yield* publishPiece(bare, { platform: "linkedin" })
      assert.strictEqual(moved.status, 200, moved.text)
      assert.strictEqual(moved.json.platform, "linkedin")
      assert.strictEqual(moved.json.status, "approved")
      assert.strictEqual((yield* publishedPiece(owner, bare)).platform, "linkedin")

      // With media: queued now, then published; once published the route is 409.
      const pictured = yield* written("instagram", "With a picture", { media: ["https://cdn.example/a.jpg"] }, true)
      const now = yield* publishPiece(pictured, null)
      assert.strictEqual(now.status, 200, now.text)
      assert.strictEqual(now.json.status, "approved")
      assert.strictEqual(now.json.scheduledAt, null)
      yield* publishedPiece(owner, pictured)
      assertError(
        yield* publishPiece(pictured, {}),
        409,
        "E_INVALID_TRANSITION",
        "Cannot publish content: the move from published to published is not allowed (only approved pieces are published)"
      )

      // Scheduled: the instant kept, content.scheduled written, not published before it.
      const later = yield* written("linkedin", "Later on", {}, true)
      const at = new Date(Date.now() + 3600_000).toISOString()
      const scheduled = yield* publishPiece(later, { scheduledAt: at })
      assert.strictEqual(scheduled.status, 200, scheduled.text)
      assert.strictEqual(scheduled.json.scheduledAt, at)
      const events = yield* call("GET", `/api/events/${owner.customerId}`, { headers: h })
      assert.isTrue(
        (events.json.events as ReadonlyArray<{ type: string; data: { contentId?: string } }>).some((e) =>
          e.type === "content.scheduled" && e.data.contentId === later
        ),
        events.text
      )

      // Not approved: 409 naming the move; unknown or another tenant's piece: 404; bad bodies: 400.
      const draft = yield* written("linkedin", "Still pending", {}, false)
      assertError(
        yield* publishPiece(draft, {}),
        409,
        "E_INVALID_TRANSITION",
        "Cannot publish content: the move from pending_approval to published is not allowed (only approved pieces are published)"
      )
      assertError(yield* publishPiece("cnt_nope", {}), 404, "E_NOT_FOUND")
      assertError(
        yield* call("POST", `/api/social/posts/${other.customerId}/${later}/publish`, {
          headers: bearer(other.apiKey),
          body: {}
        }),
        404,
        "E_NOT_FOUND"
      )
      assertError(
        yield* call("POST", `/api/social/posts/${other.customerId}/${later}/publish`, { headers: h, body: {} }),
        403,
        "E_FORBIDDEN"
      )
      assertError(yield* publishPiece(later, { scheduledAt: "2001-01-01T00:00:00Z" }), 400, "E_VALIDATION")
      assertError(yield* publishPiece(later, { platform: "myspace" }), 400, "E_VALIDATION")
      assertError(yield* publishPiece(later, { platfrom: "x" }), 400, "E_VALIDATION")
      // The piece untouched by the refusals.
      assert.strictEqual(
        (yield* call("GET", `/api/content/${owner.customerId}/${later}`, { headers: h })).json.scheduledAt,
        at
      )

      const spec = yield* call("GET", "/openapi.json")
      const operation = spec.json.paths["/api/social/posts/{customerId}/{contentId}/publish"]?.post
      assert.isDefined(operation, "the route is in the OpenAPI document")
      assert.includeMembers(Object.keys(operation.responses), ["200", "400", "403", "404", "409"])
    }))

  it.effect("the dashboard's social section lists approved pieces ready to publish and publishes one with the same rules", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      yield* connectAsPerson(owner, "instagram")
      const approvedPiece = (metadata: Record<string, unknown>) =>
        Effect.gen(function*() {
          const created = yield* call("POST", `/api/content/${owner.customerId}`, {
            headers: h,
            body: { type: "social", platform: "instagram", body: "From the dashboard", metadata, submit: true }
          })
          yield* call("POST", `/api/content/${owner.customerId}/${created.json.id}/review`, {
            headers: h,
            body: { action: "approve" }
          })
          return created.json.id as string
        })
      const pictured = yield* approvedPiece({ media: ["https://cdn.example/b.jpg"] })
      const bare = yield* approvedPiece({})
      const signedIn = yield* call("POST", "/dashboard", {
        headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
        body: new URLSearchParams({ apiKey: owner.apiKey }).toString(),
        raw: true
      })
      assert.strictEqual(signedIn.status, 303, signedIn.text)
      const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!
      const page = yield* call("GET", "/dashboard", { headers: { cookie } })
      assert.include(page.text, `data-content="${pictured}"`)
      assert.include(page.text, `data-content="${bare}"`)
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!
      const press = (contentId: string) =>
        call("POST", "/dashboard/social/publish", {
          headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: url },
          body: new URLSearchParams({ contentId, _csrf: csrf }).toString(),
          raw: true
        })
      const done = yield* press(pictured)
      assert.strictEqual(done.status, 303, done.text)
      assert.strictEqual(done.headers.get("location"), "/dashboard#social")
      yield* publishedPiece(owner, pictured)
      const refused = yield* press(bare)
      assert.strictEqual(refused.status, 400, refused.text)
      assert.include(refused.text, "instagram posts need at least one media item")
      const after = yield* call("GET", "/dashboard", { headers: { cookie } })
      assert.notInclude(after.text, `data-content="${pictured}"`)
      assert.include(after.text, `data-content="${bare}"`)
    }))

  it.effect("ad spend is checked against the budget before anything is queued", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      yield* connectAsPerson(owner, "pinterest")
      const cap = yield* call("PUT", `/api/settings/${owner.customerId}/budget`, {
        headers: h,
        body: { channels: { ads: 10 } }
      })
      assert.strictEqual(cap.status, 200)
      const body = { platform: "pinterest", body: "Sale", media: ["https://cdn.example.com/a.png"] }
      assertError(
        yield* call("POST", `/api/social/publish/${owner.customerId}`, { headers: h, body: { ...body, spend: 11 } }),
        403,
        "E_BUDGET_EXCEEDED"
      )
      const ok = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
        headers: h,
        body: { ...body, spend: 10 }
      })
      assert.strictEqual(ok.status, 200, ok.text)
      assert.strictEqual(ok.json.type, "ad")
      assert.deepStrictEqual(ok.json.metadata, { media: ["https://cdn.example.com/a.png"], spend: 10 })
      const list = yield* call("GET", `/api/content/${owner.customerId}`, { headers: h })
      assert.strictEqual(list.json.content.length, 1)
    }))

  it.effect("tracking off leaves links alone; a new customer's analytics are zeros", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      const report = yield* call("GET", `/api/analytics/${owner.customerId}`, { headers: h })
      assert.strictEqual(report.json.period, "last_7_days")
      assert.deepStrictEqual(Object.keys(report.json.channels).sort(), [
        "email",
        "facebook",
        "instagram",
        "linkedin",
        "pinterest",
        "tiktok",
        "web",
        "x"
      ])
      for (const metrics of Object.values(report.json.channels)) {
        assert.deepStrictEqual(metrics, { posts: 0, clicks: 0, impressions: 0, engagements: 0, revenue: 0 })
      }
      assertError(
        yield* call("GET", `/api/analytics/${owner.customerId}?period=yesterday`, { headers: h }),
        400,
        "E_VALIDATION"
      )

      const off = yield* call("PUT", `/api/settings/${owner.customerId}/tracking`, {
        headers: h,
        body: { links: false }
      })
      assert.strictEqual(off.status, 200, off.text)
      assert.deepStrictEqual(off.json.tracking, { links: false })
      yield* connectAsPerson(owner, "x")
      const queued = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
        headers: h,
        body: { platform: "x", body: "See https://example.com/" }
      })
      const piece = yield* publishedPiece(owner, queued.json.id)
      const page: Reply = yield* Effect.promise(() =>
        send(piece.publishedUrl.replace(/\/p\/.*/, ""), "GET", `/p/${queued.json.id}`)
      )
      assert.include(page.text, "See https://example.com/")
      assert.notInclude(page.text, "/r/")
    }))
})

layer(testApp({ connectStateTtlSeconds: 1 }), { timeout: 30_000 })("connect links expire", (it) => {
  it.effect("an expired state is refused and connects nothing", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const links = yield* call("POST", `/api/connect/${owner.customerId}`, {
        headers: bearer(owner.apiKey),
        body: { platforms: ["tiktok"] }
      })
      const state = new URL(links.json.connectLinks.tiktok).searchParams.get("state")!
      yield* sleep(2_100)
      assertError(
        yield* call("GET", `/api/integration/callback?state=${encodeURIComponent(state)}`),
        400,
        "E_INVALID_STATE"
      )
      const res = yield* call("GET", `/api/social/connections/${owner.customerId}`, { headers: bearer(owner.apiKey) })
      assert.strictEqual(res.json.connections.tiktok.connected, false)
    }))
})
