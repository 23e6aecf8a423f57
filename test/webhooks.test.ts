import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp } from "./support/harness.ts"
import { customerApi } from "./support/processes.ts"
import { clockBehind } from "./support/skewed-clock.ts"
import { type Behaviour, startReceiver, waitFor } from "./support/webhook-receiver.ts"

// Admin provisioning is limited per client IP; each customer comes from its own address.
const customerWithInvite = Effect.map(customerApi, (customer) => ({
  ...customer,
  invite: customer.api("POST", "/api/team/{c}/members", {
    email: `m-${crypto.randomUUID()}@example.com`,
    role: "viewer"
  })
}))

/** A customer subscribed to `team.invited` on a fresh receiver that verifies its signatures and answers as `script` says. */
const invitedHook = (...script: Array<Behaviour>) =>
  Effect.gen(function*() {
    const customer = yield* customerWithInvite
    const receiver = yield* startReceiver
    const hook = (yield* customer.api("POST", "/api/hooks/{c}", { url: receiver.url, events: ["team.invited"] })).json
    receiver.state.secret = hook.secret
    receiver.state.script.push(...script)
    return { ...customer, hook, receiver }
  })

const attempts = <R>(api: (m: string, p: string) => Effect.Effect<{ json: any }, never, R>, hookId: string) =>
  Effect.map(api("GET", `/api/hooks/{c}/${hookId}/deliveries`), (r) => r.json.deliveries as Array<any>)

/** The attempt rows once `count` are stored (a delivery's row commits just after the receiver answers). */
const attemptsWhen = <R>(
  api: (m: string, p: string) => Effect.Effect<{ json: any }, never, R>,
  hookId: string,
  count: number
) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    for (;;) {
      const list = yield* attempts(api, hookId)
      if (list.length >= count || Date.now() > deadline) return list
      yield* Effect.sleep("50 millis")
    }
  })

// The dispatcher sleeps on the real clock: no TestClock.
const live = { timeout: 60_000, excludeTestServices: true }

layer(testApp({ webhookRetrySchedule: [1, 1, 1], webhookPollIntervalMs: 100, trustProxy: true }), live)(
  "webhooks",
  (it) => {
    it.effect("creates, lists and delivers signed events", () =>
      Effect.gen(function*() {
        const { api, customerId, invite } = yield* customerWithInvite
        const receiver = yield* startReceiver
        const created = yield* api("POST", "/api/hooks/{c}", { url: receiver.url, events: ["team.invited"] })
        assert.strictEqual(created.status, 200)
        assert.match(created.json.id, /^wh_/)
        assert.match(created.json.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
        assert.deepStrictEqual(created.json.events, ["team.invited"])
        assert.isNull(created.json.disabledAt)
        receiver.state.secret = created.json.secret

        const listed = yield* api("GET", "/api/hooks/{c}")
        assert.deepStrictEqual(listed.json.hooks.map((h: any) => h.id), [created.json.id])
        assert.isUndefined(listed.json.hooks[0].secret)
        const log = yield* api("GET", "/api/events/{c}")
        const logged = log.json.events.find((e: any) => e.type === "webhook.created")
        assert.strictEqual(logged.data.id, created.json.id)
        assert.notInclude(JSON.stringify(log.json), created.json.secret)

        const started = Date.now()
        const member = (yield* invite).json
        yield* waitFor(receiver.state.received, (r) => r.length >= 1, 5_000)
        assert.isBelow(Date.now() - started, 2_000)
        const [delivery] = receiver.state.received
        assert.isTrue(delivery.verified)
        assert.deepStrictEqual(Object.keys(delivery.json).sort(), ["createdAt", "customerId", "data", "id", "type"])
        assert.strictEqual(delivery.json.type, "team.invited")
        assert.strictEqual(delivery.json.customerId, customerId)
        assert.strictEqual(delivery.json.id, delivery.webhookId)
        assert.strictEqual(delivery.json.data.memberId, member.memberId)
        assert.isUndefined(delivery.json.data.apiKey)
        assert.strictEqual(delivery.headers["content-type"], "application/json")
        assert.approximately(delivery.timestamp, Date.now() / 1000, 5)

        const list = yield* attemptsWhen(api, created.json.id, 1)
        assert.strictEqual(list.length, 1)
        assert.deepInclude(list[0], {
          eventId: delivery.json.id,
          eventType: "team.invited",
          attempt: 1,
          statusCode: 200,
          error: null
        })
        assert.isNumber(list[0].durationMs)
        assert.match(list[0].id, /^att_/)
      }))

    it.effect("retries a failing endpoint with the same webhook-id; 3xx is a failure", () =>
      Effect.gen(function*() {
        const { api, invite, hook, receiver } = yield* invitedHook("drop", {
          status: 302,
          headers: { location: "http://127.0.0.1:1/" }
        })
        yield* invite
        yield* waitFor(receiver.state.received, (r) => r.length >= 3, 10_000)
        const ids = new Set(receiver.state.received.map((r) => r.webhookId))
        assert.strictEqual(ids.size, 1)
        const [a, b, c] = receiver.state.received
        assert.isAtLeast(b.at - a.at, 900)
        assert.isAtLeast(c.at - b.at, 900)
        const list = yield* attemptsWhen(api, hook.id, 3)
        assert.deepStrictEqual(list.map((x) => [x.attempt, x.statusCode]), [[3, 200], [2, 302], [1, null]])
        assert.match(list[2].error, /network/)
        assert.strictEqual(list[1].error, "HTTP 302")
        assert.isTrue(list.every((x) => x.eventId === a.webhookId))
      }))

    it.effect("attempts are dated by the database: a retry from a process whose clock is an hour behind still lists last", () =>
      Effect.gen(function*() {
        const { api, hook, invite } = yield* invitedHook({ status: 500 })
        yield* invite
        assert.strictEqual((yield* attemptsWhen(api, hook.id, 1)).length, 1)
        yield* clockBehind(3_600_000)
        const list = yield* attemptsWhen(api, hook.id, 2)
        assert.deepStrictEqual(list.map((x) => [x.attempt, x.statusCode]), [[2, 200], [1, 500]])
        const [second, first] = list.map((x) => Date.parse(x.attemptedAt))
        assert.isAbove(second, first)
        assert.isBelow(second - first, 60_000)
      }).pipe(Effect.scoped))

    it.effect("honours Retry-After on 503 and gives up after the schedule", () =>
      Effect.gen(function*() {
        const { api, invite, hook, receiver } = yield* invitedHook(
          { status: 503, headers: { "retry-after": "3" } },
          { status: 500 },
          { status: 500 },
          {
            status: 500
          }
        )
        yield* invite
        yield* waitFor(receiver.state.received, (r) => r.length >= 2, 10_000)
        const [first, second] = receiver.state.received
        assert.isAtLeast(second.at - first.at, 2_900)
        yield* waitFor(receiver.state.received, (r) => r.length >= 4, 10_000)
        yield* Effect.sleep("1500 millis")
        assert.strictEqual(receiver.state.received.length, 4)
        const list = yield* attempts(api, hook.id)
        assert.deepStrictEqual(list.map((x) => x.statusCode), [500, 500, 500, 503])
      }))

    it.effect("410 disables the subscription", () =>
      Effect.gen(function*() {
        const { api, invite, hook, receiver } = yield* invitedHook({ status: 410 })
        yield* invite
        yield* waitFor(receiver.state.received, (r) => r.length >= 1)
        let listed: Array<any> = []
        for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
          listed = (yield* api("GET", "/api/hooks/{c}")).json.hooks
          if (listed[0]?.disabledAt !== null) break
          yield* Effect.sleep("50 millis")
        }
        assert.isString(listed[0].disabledAt)
        yield* invite
        yield* Effect.sleep("1500 millis")
        assert.strictEqual(receiver.state.received.length, 1)
        const list = yield* attempts(api, hook.id)
        assert.deepStrictEqual(list.map((x) => x.statusCode), [410])
        const log = (yield* api("GET", "/api/events/{c}")).json.events
        assert.isDefined(log.find((e: any) => e.type === "webhook.disabled"))
      }))

    it.effect("rotating the secret signs with the new one, the old one still listed", () =>
      Effect.gen(function*() {
        const { api, invite } = yield* customerWithInvite
        const receiver = yield* startReceiver
        const hook = (yield* api("POST", "/api/hooks/{c}", { url: receiver.url, events: ["team.invited"] })).json
        const rotated = yield* api("POST", `/api/hooks/{c}/${hook.id}/rotate-secret`, {})
        assert.strictEqual(rotated.status, 200)
        assert.deepStrictEqual(Object.keys(rotated.json), ["secret"])
        assert.notStrictEqual(rotated.json.secret, hook.secret)
        receiver.state.secret = rotated.json.secret
        yield* invite
        yield* waitFor(receiver.state.received, (r) => r.length >= 1)
        assert.isTrue(receiver.state.received[0].verified)
        assert.strictEqual(String(receiver.state.received[0].headers["webhook-signature"]).split(" ").length, 2)
        const missing = yield* api("POST", "/api/hooks/{c}/wh_nope/rotate-secret", {})
        assert.strictEqual(missing.status, 404)
      }))

    it.effect("deletes, cancels and logs; unknown or foreign ids are 404", () =>
      Effect.gen(function*() {
        const one = yield* customerWithInvite
        const two = yield* customerWithInvite
        const hook =
          (yield* one.api("POST", "/api/hooks/{c}", { url: "http://127.0.0.1:9/x", events: ["team.invited"] })).json
        for (const [method, suffix] of [["DELETE", ""], ["GET", "/deliveries"], ["POST", "/rotate-secret"]] as const) {
          const res = yield* two.api(method, `/api/hooks/{c}/${hook.id}${suffix}`, method === "POST" ? {} : undefined)
          assert.strictEqual(res.status, 404, `${method} ${suffix}`)
          assert.strictEqual(res.json.code, "E_NOT_FOUND")
        }
        const deleted = yield* one.api("DELETE", `/api/hooks/{c}/${hook.id}`)
        assert.deepStrictEqual([deleted.status, deleted.json], [200, { deleted: true }])
        assert.strictEqual((yield* one.api("DELETE", `/api/hooks/{c}/${hook.id}`)).status, 404)
        assert.deepStrictEqual((yield* one.api("GET", "/api/hooks/{c}")).json.hooks, [])
        const log = (yield* one.api("GET", "/api/events/{c}")).json.events
        assert.strictEqual(log.find((e: any) => e.type === "webhook.deleted").data.id, hook.id)
      }))

    it.effect("validates the subscription", () =>
      Effect.gen(function*() {
        const { api } = yield* customerWithInvite
        const url = "https://hooks.example.com/x"
        const kinds = [
          "content.created",
          "content.approved",
          "content.published",
          "content.rejected",
          "workflow.completed",
          "team.invited"
        ]
        for (
          const body of [
            { url: "not a url", events: ["team.invited"] },
            { url: "ftp://example.com/x", events: ["team.invited"] },
            { url: "javascript:alert(1)", events: ["team.invited"] },
            { url: `https://example.com/${"a".repeat(2048)}`, events: ["team.invited"] },
            { url, events: [] },
            { url, events: Array.from({ length: 21 }, (_, i) => kinds[i % 6]) },
            { url, events: ["content.exploded"] },
            { url, events: ["team.invited"], extra: true },
            { events: ["team.invited"] }
          ]
        ) {
          const res = yield* api("POST", "/api/hooks/{c}", body)
          assert.strictEqual(res.status, 400, JSON.stringify(body).slice(0, 80))
          assert.strictEqual(res.json.code, "E_VALIDATION")
          assert.isArray(res.json.details)
        }
        const all = yield* api("POST", "/api/hooks/{c}", { url, events: kinds })
        assert.strictEqual(all.status, 200)
      }))

    it.effect("allows 25 subscriptions, refuses the 26th with 409", () =>
      Effect.gen(function*() {
        const { api } = yield* customerWithInvite
        for (let i = 0; i < 25; i++) {
          const res = yield* api("POST", "/api/hooks/{c}", {
            url: `https://example.com/${i}`,
            events: ["team.invited"]
          })
          assert.strictEqual(res.status, 200)
        }
        const over = yield* api("POST", "/api/hooks/{c}", { url: "https://example.com/26", events: ["team.invited"] })
        assert.strictEqual(over.status, 409)
        assert.strictEqual(over.json.code, "E_LIMIT_REACHED")
        const first = (yield* api("GET", "/api/hooks/{c}")).json.hooks[0]
        yield* api("DELETE", `/api/hooks/{c}/${first.id}`)
        const again = yield* api("POST", "/api/hooks/{c}", { url: "https://example.com/26", events: ["team.invited"] })
        assert.strictEqual(again.status, 200)
      }))

    it.effect("another customer's key is 403; viewers and editors can neither read nor subscribe (URLs carry credentials)", () =>
      Effect.gen(function*() {
        const one = yield* customerWithInvite
        const two = yield* customerWithInvite
        const foreign = yield* two.api("GET", `/api/hooks/${one.customerId}`)
        assert.strictEqual(foreign.status, 403)
        assert.strictEqual(foreign.json.code, "E_FORBIDDEN")
        const post = yield* two.api("POST", `/api/hooks/${one.customerId}`, {
          url: "https://example.com",
          events: ["team.invited"]
        })
        assert.strictEqual(post.status, 403)
        const viewer = (yield* one.invite).json
        const asViewer = yield* call("GET", `/api/hooks/${one.customerId}`, {
          headers: { authorization: `Bearer ${viewer.apiKey}` }
        })
        assert.strictEqual(asViewer.status, 403)
        assert.strictEqual(asViewer.json.code, "E_FORBIDDEN")
        const editor = (yield* one.api("POST", "/api/team/{c}/members", {
          email: `e-${crypto.randomUUID()}@example.com`,
          role: "editor"
        })).json
        const admin = (yield* one.api("POST", "/api/team/{c}/members", {
          email: `a-${crypto.randomUUID()}@example.com`,
          role: "admin"
        })).json
        const asEditor = yield* call("GET", `/api/hooks/${one.customerId}`, {
          headers: { authorization: `Bearer ${editor.apiKey}` }
        })
        assert.strictEqual(asEditor.status, 403)
        const asAdmin = yield* call("GET", `/api/hooks/${one.customerId}`, {
          headers: { authorization: `Bearer ${admin.apiKey}` }
        })
        assert.strictEqual(asAdmin.status, 200)
        const subscribe = yield* call("POST", `/api/hooks/${one.customerId}`, {
          headers: { authorization: `Bearer ${viewer.apiKey}` },
          body: { url: "https://example.com", events: ["team.invited"] }
        })
        assert.strictEqual(subscribe.status, 403)
        assert.strictEqual(subscribe.json.code, "E_FORBIDDEN")
        const noKey = yield* call("GET", `/api/hooks/${one.customerId}`)
        assert.strictEqual(noKey.status, 401)
      }))
  }
)

layer(testApp({ allowPrivateTargets: false, trustProxy: true }), live)("webhooks without private targets", (it) => {
  it.effect("refuses private and local urls with 400", () =>
    Effect.gen(function*() {
      const { api } = yield* customerWithInvite
      for (
        const url of [
          "http://127.0.0.1:8080/x",
          "http://localhost/x",
          "http://[::1]/x",
          "http://169.254.169.254/",
          "http://10.0.0.1/",
          "http://[::ffff:192.168.0.1]/",
          "http://[fd00::1]/"
        ]
      ) {
        const res = yield* api("POST", "/api/hooks/{c}", { url, events: ["team.invited"] })
        assert.strictEqual(res.status, 400, url)
        assert.strictEqual(res.json.code, "E_VALIDATION")
        assert.strictEqual(res.json.details[0].path, "body.url")
      }
      const ok = yield* api("POST", "/api/hooks/{c}", { url: "https://93.184.216.34/hook", events: ["team.invited"] })
      assert.strictEqual(ok.status, 200)
    }))
})
