import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { call, testApp, TestServer } from "./support/harness.ts"
import { assertError, bearer, provision, type Provisioned } from "./support/processes.ts"
import { hexHmac, standardV1, startReceiver, waitFor } from "./support/webhook-receiver.ts"

// The dispatcher sleeps on the real clock: no TestClock.
const live = { timeout: 90_000, excludeTestServices: true }

const api = (t: Provisioned, method: string, path: string, body?: unknown) =>
  call(method, path.replace("{c}", t.customerId), {
    headers: bearer(t.apiKey),
    ...(body === undefined ? {} : { body })
  })

const subscribe = (t: Provisioned, url: string, events: ReadonlyArray<string>) =>
  Effect.map(api(t, "POST", "/api/hooks/{c}", { url, events }), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return res.json as { id: string; secret: string; url: string }
  })

const createContent = (t: Provisioned, body = "b") =>
  Effect.map(api(t, "POST", "/api/content/{c}", { type: "blog", body }), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return res.json as { id: string }
  })

const attempts = (t: Provisioned, hookId: string, query = "") =>
  Effect.map(api(t, "GET", `/api/hooks/{c}/${hookId}/deliveries${query}`), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return res.json as { deliveries: Array<any>; nextCursor: string | null }
  })

/** Polls the attempt list until `predicate` holds. */
const waitForAttempts = (
  t: Provisioned,
  hookId: string,
  predicate: (list: Array<any>) => boolean,
  timeoutMs = 10_000
) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const list = (yield* attempts(t, hookId, "?limit=100")).deliveries
      if (predicate(list)) return list
      if (Date.now() > deadline) return yield* Effect.die(new Error(`attempts never matched: ${JSON.stringify(list)}`))
      yield* Effect.sleep("250 millis")
    }
  })

const hookRow = (id: string) =>
  Effect.flatMap(TestServer, ({ sql }) =>
    Effect.map(
      sql<{ disabledAt: Date | null; disabledReason: string | null; previousSecret: string | null }>`
        SELECT disabled_at, disabled_reason, previous_secret FROM webhooks WHERE id = ${id}`,
      (rows) => rows[0]
    ))

layer(testApp({ webhookRetrySchedule: [1], webhookPollIntervalMs: 100, trustProxy: true }), live)(
  "webhook operations",
  (it) => {
    it.effect("the outbox delivers each event type only to the subscriptions that asked for it", () =>
      Effect.gen(function*() {
        const t = yield* provision()
        const receivers = [yield* startReceiver, yield* startReceiver, yield* startReceiver]
        const created = yield* subscribe(t, receivers[0].url, ["content.created"])
        const approved = yield* subscribe(t, receivers[1].url, ["content.approved"])
        const nothing = yield* subscribe(t, receivers[2].url, ["team.invited"])
        receivers[0].state.secret = created.secret
        receivers[1].state.secret = approved.secret
        receivers[2].state.secret = nothing.secret
        const piece = (yield* api(t, "POST", "/api/content/{c}", {
          type: "ad",
          body: "b",
          metadata: { zz: 1, campaign: "c", a: 2 }
        })).json
        yield* api(t, "POST", `/api/content/{c}/${piece.id}/review`, { action: "approve" })
        yield* waitFor(receivers[0].state.received, (r) => r.length >= 1)
        yield* waitFor(receivers[1].state.received, (r) => r.length >= 1)
        yield* Effect.sleep("500 millis")
        assert.deepStrictEqual(receivers[0].state.received.map((r) => [r.json.type, r.json.data.id, r.verified]), [
          ["content.created", piece.id, true]
        ])
        assert.deepStrictEqual(receivers[1].state.received.map((r) => [r.json.type, r.json.data.status, r.verified]), [
          ["content.approved", "approved", true]
        ])
        assert.strictEqual(receivers[2].state.received.length, 0)
        // The payload keeps the metadata's key order (json, not jsonb, all the way).
        assert.deepStrictEqual(Object.keys(receivers[0].state.received[0].json.data.metadata), ["zz", "campaign", "a"])
        const byHook = (id: string) => Effect.map(attempts(t, id), (a) => a.deliveries.map((d) => d.eventType))
        assert.deepStrictEqual(yield* byHook(created.id), ["content.created"])
        assert.deepStrictEqual(yield* byHook(approved.id), ["content.approved"])
        assert.deepStrictEqual(yield* byHook(nothing.id), [])
        const { sql } = yield* TestServer
        const rows = yield* sql<{ webhookId: string; type: string }>`
        SELECT d.webhook_id, e.type FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE e.customer_id = ${t.customerId} ORDER BY e.type`
        assert.deepStrictEqual(rows.map((r) => [r.webhookId, r.type]), [
          [approved.id, "content.approved"],
          [created.id, "content.created"]
        ])
      }))

    it.effect("a 410 disables; enable brings later events back; the log shows the URL without credentials", () =>
      Effect.gen(function*() {
        const t = yield* provision()
        const receiver = yield* startReceiver
        const withSecrets = receiver.url.replace("http://", "http://user:pa55word@") + "?token=s3cr3t#frag"
        const hook = yield* subscribe(t, withSecrets, ["content.created"])
        receiver.state.secret = hook.secret
        receiver.state.script.push({ status: 410 })
        yield* createContent(t, "first")
        yield* waitFor(receiver.state.received, (r) => r.length >= 1)
        yield* waitForAttempts(t, hook.id, (list) => list.length === 1 && list[0].deliveryStatus === "failed")
        const disabled = (yield* api(t, "GET", "/api/hooks/{c}")).json.hooks[0]
        assert.isString(disabled.disabledAt)
        assert.strictEqual(disabled.disabledReason, "gone")
        yield* createContent(t, "while disabled")
        yield* Effect.sleep("400 millis")
        assert.strictEqual(receiver.state.received.length, 1)

        const enabled = yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/enable`, {})
        assert.strictEqual(enabled.status, 200, enabled.text)
        assert.deepInclude(enabled.json, { id: hook.id, disabledAt: null, disabledReason: null })
        assert.isUndefined(enabled.json.secret)
        const again = yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/enable`)
        assert.deepStrictEqual(again.json, enabled.json)
        yield* createContent(t, "after")
        yield* waitFor(receiver.state.received, (r) => r.length >= 2)
        assert.strictEqual(receiver.state.received[1].json.data.body, "after")
        assert.isTrue(receiver.state.received[1].verified)
        assertError(yield* api(t, "POST", "/api/hooks/{c}/wh_nothing/enable", {}), 404, "E_NOT_FOUND")

        const log = (yield* api(t, "GET", "/api/events/{c}?limit=200")).json.events as Array<any>
        const types = log.map((e) => e.type)
        assert.includeMembers(types, ["webhook.created", "webhook.disabled", "webhook.enabled"])
        const createdEvent = log.find((e) => e.type === "webhook.created")
        assert.strictEqual(createdEvent.data.url, receiver.url)
        assert.notInclude(JSON.stringify(log), "pa55word")
        assert.notInclude(JSON.stringify(log), "s3cr3t")
        assert.strictEqual(log.find((e) => e.type === "webhook.disabled").data.reason, "gone")
        assert.deepStrictEqual(log.find((e) => e.type === "webhook.disabled").actor, { type: "system", id: null })
      }))

    it.effect("a delivery that spends its retries disables the subscription ('failing'); enable restores it", () =>
      Effect.gen(function*() {
        const t = yield* provision()
        const receiver = yield* startReceiver
        const hook = yield* subscribe(t, receiver.url, ["content.created"])
        receiver.state.secret = hook.secret
        receiver.state.script.push({ status: 500 }, { status: 500 })
        yield* createContent(t)
        const list = yield* waitForAttempts(t, hook.id, (l) => l.length === 2 && l[0].deliveryStatus === "failed")
        assert.deepStrictEqual(list.map((a) => a.nextAttemptAt), [null, null])
        const row = yield* hookRow(hook.id)
        assert.strictEqual(row.disabledReason, "failing")
        assert.isNotNull(row.disabledAt)
        const enabled = yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/enable`, {})
        assert.isNull(enabled.json.disabledAt)
        yield* createContent(t, "back")
        yield* waitFor(receiver.state.received, (r) => r.some((x) => x.json.data.body === "back"))
      }))

    it.effect("test sends a signed webhook.test to that subscription only, at once, even when disabled", () =>
      Effect.gen(function*() {
        const t = yield* provision()
        const receiver = yield* startReceiver
        const other = yield* startReceiver
        const hook = yield* subscribe(t, receiver.url, ["content.created"])
        yield* subscribe(t, other.url, ["content.created", "team.invited"])
        receiver.state.secret = hook.secret
        const started = Date.now()
        const res = yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/test`, {})
        assert.strictEqual(res.status, 200, res.text)
        assert.deepInclude(res.json, { webhookId: hook.id, eventType: "webhook.test", status: "pending", attempts: 0 })
        assert.match(res.json.id, /^dlv_/)
        assert.isString(res.json.nextAttemptAt)
        yield* waitFor(receiver.state.received, (r) => r.length >= 1, 3_000)
        assert.isBelow(Date.now() - started, 2_000)
        const [got] = receiver.state.received
        assert.isTrue(got.verified)
        assert.deepInclude(got.json, { type: "webhook.test", customerId: t.customerId, id: res.json.eventId })
        assert.strictEqual(got.json.data.webhookId, hook.id)
        yield* Effect.sleep("300 millis")
        assert.strictEqual(other.state.received.length, 0)

        // A disabled subscription can still be tested (to check it before enabling it).
        const { sql } = yield* TestServer
        yield* sql`UPDATE webhooks SET disabled_at = now(), disabled_reason = 'gone' WHERE id = ${hook.id}`
        assert.strictEqual((yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/test`)).status, 200)
        yield* waitFor(receiver.state.received, (r) => r.length >= 2, 3_000)
        assertError(yield* api(t, "POST", "/api/hooks/{c}/wh_nothing/test", {}), 404, "E_NOT_FOUND")
      }))

    it.effect("redeliver sends the same event again with the same webhook-id; deliveries page with a cursor", () =>
      Effect.gen(function*() {
        const t = yield* provision()
        const receiver = yield* startReceiver
        const hook = yield* subscribe(t, receiver.url, ["content.created"])
        receiver.state.secret = hook.secret
        for (let i = 0; i < 5; i++) yield* createContent(t, `piece ${i}`)
        const all = yield* waitForAttempts(
          t,
          hook.id,
          (l) => l.length === 5 && l.every((a) => a.deliveryStatus === "succeeded")
        )
        for (const a of all) {
          assert.match(a.deliveryId, /^dlv_/)
          assert.isNull(a.nextAttemptAt)
        }
        const seen: Array<any> = []
        let cursor: string | null = null
        do {
          const page: { deliveries: Array<any>; nextCursor: string | null } = yield* attempts(
            t,
            hook.id,
            cursor === null ? "?limit=2" : `?limit=2&cursor=${encodeURIComponent(cursor)}`
          )
          seen.push(...page.deliveries)
          cursor = page.nextCursor
        } while (cursor !== null)
        assert.deepStrictEqual(seen, all)
        assertError(yield* api(t, "GET", `/api/hooks/{c}/${hook.id}/deliveries?cursor=bogus`), 400, "E_INVALID_CURSOR")

        const target = all[4]
        const first = receiver.state.received.find((r) => r.json.id === target.eventId)!
        const res = yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/deliveries/${target.deliveryId}/redeliver`, {})
        assert.strictEqual(res.status, 200, res.text)
        assert.deepInclude(res.json, { id: target.deliveryId, eventId: target.eventId, status: "pending", attempts: 0 })
        assert.isString(res.json.nextAttemptAt)
        yield* waitFor(
          receiver.state.received,
          (r) => r.filter((x) => x.json.id === target.eventId).length === 2,
          3_000
        )
        const second = receiver.state.received.filter((r) => r.json.id === target.eventId)[1]
        assert.strictEqual(second.webhookId, first.webhookId)
        assert.strictEqual(second.body, first.body)
        assert.isTrue(second.verified)
        const after = yield* waitForAttempts(t, hook.id, (l) => l.length === 6 && l[0].deliveryStatus === "succeeded")
        assert.strictEqual(after[0].deliveryId, target.deliveryId)

        assertError(
          yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/deliveries/dlv_nothing/redeliver`, {}),
          404,
          "E_NOT_FOUND"
        )
        const otherHook = yield* subscribe(t, receiver.url, ["team.invited"])
        assertError(
          yield* api(t, "POST", `/api/hooks/{c}/${otherHook.id}/deliveries/${target.deliveryId}/redeliver`, {}),
          404,
          "E_NOT_FOUND"
        )
        const { sql } = yield* TestServer
        yield* sql`UPDATE webhooks SET disabled_at = now(), disabled_reason = 'gone' WHERE id = ${hook.id}`
        assertError(
          yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/deliveries/${target.deliveryId}/redeliver`, {}),
          409,
          "E_CONFLICT"
        )
      }))

    it.effect("after a rotation the second signature is the previous secret's; past the overlap it is erased", () =>
      Effect.gen(function*() {
        const t = yield* provision()
        const receiver = yield* startReceiver
        const hook = yield* subscribe(t, receiver.url, ["content.created"])
        const rotated = yield* api(t, "POST", `/api/hooks/{c}/${hook.id}/rotate-secret`, {})
        const secret = rotated.json.secret as string
        assert.notStrictEqual(secret, hook.secret)
        receiver.state.secret = secret
        yield* createContent(t, "rotated")
        yield* waitFor(receiver.state.received, (r) => r.length >= 1)
        const got = receiver.state.received[0]
        const id = String(got.headers["webhook-id"])
        const timestamp = String(got.headers["webhook-timestamp"])
        // Computed here, not by src/: the new secret first, then the old one.
        assert.strictEqual(
          got.headers["webhook-signature"],
          `${standardV1(secret, id, timestamp, got.body)} ${standardV1(hook.secret, id, timestamp, got.body)}`
        )
        assert.strictEqual(got.headers["x-service-signature"], hexHmac(secret, got.body))
        // A receiver still on the old secret verifies with the reference library.
        new Webhook(hook.secret).verify(got.body, {
          "webhook-id": id,
          "webhook-timestamp": timestamp,
          "webhook-signature": String(got.headers["webhook-signature"])
        })

        const { sql } = yield* TestServer
        yield* sql`UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = ${hook.id}`
        yield* createContent(t, "overlap over")
        yield* waitFor(receiver.state.received, (r) => r.length >= 2)
        const later = receiver.state.received[1]
        assert.strictEqual(
          later.headers["webhook-signature"],
          standardV1(
            secret,
            String(later.headers["webhook-id"]),
            String(later.headers["webhook-timestamp"]),
            later.body
          )
        )
        assert.isNull((yield* hookRow(hook.id)).previousSecret)
      }))

    it.effect("reads at most a few KiB of an answer: an endless 200 body still succeeds at once", () =>
      Effect.gen(function*() {
        const t = yield* provision()
        const receiver = yield* startReceiver
        const hook = yield* subscribe(t, receiver.url, ["content.created"])
        receiver.state.secret = hook.secret
        receiver.state.script.push("endless")
        yield* createContent(t)
        const list = yield* waitForAttempts(
          t,
          hook.id,
          (l) => l.length === 1 && l[0].deliveryStatus !== "pending",
          5_000
        )
        assert.deepInclude(list[0], { statusCode: 200, error: null, deliveryStatus: "succeeded" })
        assert.isBelow(list[0].durationMs, 3_000)
      }))

    it.effect(
      "slow receivers of one customer hold at most 8 slots per endpoint and 16 per customer, across claims",
      () =>
        Effect.gen(function*() {
          // One endpoint: 12 deliveries due at once, never more than 8 in flight, however often the dispatcher claims.
          const single = yield* provision()
          const one = yield* startReceiver
          one.state.enforce = false
          one.state.decide = () => ({ status: 200, delayMs: 1_000 })
          yield* subscribe(single, one.url, ["content.created"])
          for (let i = 0; i < 12; i++) yield* createContent(single, `one ${i}`)
          yield* waitFor(one.state.received, (r) => r.length >= 12, 10_000)
          assert.strictEqual(one.state.maxActive, 8)

          // Three endpoints of one customer: 36 deliveries, never more than 16 in flight for the customer.
          const a = yield* provision()
          const b = yield* provision()
          const slow = yield* startReceiver
          const fast = yield* startReceiver
          slow.state.enforce = false
          slow.state.decide = () => ({ status: 200, delayMs: 1_500 })
          for (const n of [1, 2, 3]) yield* subscribe(a, `${slow.url}?endpoint=${n}`, ["content.created"])
          const bHook = yield* subscribe(b, fast.url, ["content.created"])
          fast.state.secret = bHook.secret
          for (let i = 0; i < 12; i++) yield* createContent(a, `burst ${i}`)
          yield* waitFor(slow.state.received, (r) => r.length >= 16, 5_000)
          const started = Date.now()
          yield* createContent(b, "other tenant")
          yield* waitFor(fast.state.received, (r) => r.length >= 1, 3_000)
          assert.isBelow(Date.now() - started, 1_500, "another customer's event waited behind the slow receivers")
          yield* waitFor(slow.state.received, (r) => r.length >= 36, 20_000)
          assert.strictEqual(slow.state.maxActive, 16)
          for (const n of [1, 2, 3]) assert.isAtMost(slow.state.maxByPath.get(`/hook?endpoint=${n}`) ?? 0, 8)
        }),
      { timeout: 60_000 }
    )
  }
)
