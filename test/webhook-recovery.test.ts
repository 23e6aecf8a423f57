import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { recoveryWindowDays } from "../src/domain/Webhooks.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { assertError, bearer, customerApi, invite, provision } from "./support/processes.ts"
import { type Received, startReceiver, waitFor } from "./support/webhook-receiver.ts"

// The dispatcher sleeps on the real clock: no TestClock.
const live = { timeout: 90_000, excludeTestServices: true }

/** Polls the database (not the API: its REST limit is for the assertions) until `check` holds. */
const until = <A>(read: Effect.Effect<A, unknown, TestServer>, check: (value: A) => boolean, timeoutMs = 20_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = yield* Effect.orDie(read)
      if (check(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`never held: ${JSON.stringify(value)}`))
      yield* Effect.sleep("100 millis")
    }
  })

const deliveriesOf = (webhookId: string) =>
  Effect.flatMap(
    TestServer,
    ({ sql }) =>
      sql<{ eventId: string; status: string; nextAttemptAt: Date; eventCreatedAt: Date }>`
      SELECT d.event_id, d.status, d.next_attempt_at, e.created_at AS event_created_at
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.webhook_id = ${webhookId} ORDER BY e.created_at, e.id`
  )

const disabledAt = (webhookId: string) =>
  Effect.flatMap(
    TestServer,
    ({ sql }) =>
      Effect.map(sql<{ disabledAt: Date | null }>`SELECT disabled_at FROM webhooks WHERE id = ${webhookId}`, (rows) =>
        rows[0]?.disabledAt ?? null)
  )

/** Accepted (verified, answered 200) requests per event id. */
const acceptedByEvent = (received: ReadonlyArray<Received>, after: number) => {
  const counts = new Map<string, number>()
  for (const r of received) if (r.verified && r.at >= after) counts.set(r.json.id, (counts.get(r.json.id) ?? 0) + 1)
  return counts
}

layer(testApp({ webhookRetrySchedule: [1, 1], webhookPollIntervalMs: 100, trustProxy: true }), live)(
  "webhook recovery",
  (it) => {
    it.effect("a receiver down past the whole retry schedule: after recover every event arrives once, signed, under its first webhook-id", () =>
      Effect.gen(function*() {
        const { customerId, api } = yield* customerApi
        const receiver = yield* startReceiver
        const hook = (yield* api("POST", "/api/hooks/{c}", { url: receiver.url, events: ["content.created"] })).json
        receiver.state.secret = hook.secret
        // Down: every connection is dropped, as a stopped receiver's would be.
        receiver.state.decide = () => "drop"
        const since = new Date(Date.now() - 1000).toISOString()
        const created: Array<string> = []
        const piece = (body: string) =>
          Effect.map(api("POST", "/api/content/{c}", { type: "blog", body }), (res) => {
            assert.strictEqual(res.status, 200, res.text)
            created.push(res.json.id)
          })

        // The first spends its three tries and disables the subscription; two more wait behind it meanwhile.
        yield* piece("first")
        yield* piece("second")
        yield* piece("third")
        yield* until(disabledAt(hook.id), (at) => at !== null)
        const listed = (yield* api("GET", "/api/hooks/{c}")).json.hooks[0]
        assert.strictEqual(listed.disabledReason, "failing")
        // While disabled, events are still recorded: as skipped deliveries.
        for (let i = 0; i < 5; i++) yield* piece(`while disabled ${i}`)
        const before = yield* deliveriesOf(hook.id)
        assert.strictEqual(before.length, 8)
        // Which of the first three spends its tries first depends on the dispatcher's timing; one did, the others were cancelled or failed too.
        const firstThree = before.slice(0, 3)
        for (const d of firstThree) assert.include(["cancelled", "failed"], d.status)
        assert.isTrue(firstThree.some((d) => d.status === "failed"))
        assert.deepStrictEqual(before.slice(3).map((d) => d.status), [
          "skipped",
          "skipped",
          "skipped",
          "skipped",
          "skipped"
        ])
        const firstTries = new Map<string, string>()
        for (const r of receiver.state.received) if (!firstTries.has(r.json.id)) firstTries.set(r.json.id, r.webhookId)
        const failed = firstThree.find((d) => d.status === "failed")!
        assert.isTrue(firstTries.has(failed.eventId), "the failed event was tried while the receiver was down")

        // Back up; nothing comes while the subscription stays disabled.
        receiver.state.decide = undefined
        const upAt = Date.now()
        yield* Effect.sleep("500 millis")
        assert.strictEqual(acceptedByEvent(receiver.state.received, upAt).size, 0)

        const recovered = yield* api("POST", `/api/hooks/{c}/${hook.id}/recover`, { since })
        assert.strictEqual(recovered.status, 200, recovered.text)
        assert.deepStrictEqual(recovered.json, { queued: 8 })
        const enabled = (yield* api("GET", "/api/hooks/{c}")).json.hooks[0]
        assert.deepInclude(enabled, { disabledAt: null, disabledReason: null })

        yield* waitFor(receiver.state.received, (all) => acceptedByEvent(all, upAt).size === 8, 20_000)
        const after = yield* until(deliveriesOf(hook.id), (rows) => rows.every((d) => d.status === "succeeded"))
        const eventIds = after.map((d) => d.eventId)
        // Each content.created event carries the piece it reports, in the order they were made.
        const arrivals = receiver.state.received.filter((r) => r.verified && r.at >= upAt)
        assert.sameMembers(arrivals.map((r) => r.json.data.id), created)
        for (const r of arrivals) {
          assert.strictEqual(r.webhookId, r.json.id, "webhook-id is the event id")
          const first = firstTries.get(r.json.id)
          if (first !== undefined) assert.strictEqual(r.webhookId, first, "the same webhook-id as its first try")
          assert.strictEqual(r.json.customerId, customerId)
        }
        // Queued in event order: due times rise with the events' creation.
        const byDue = [...after].sort((a, b) =>
          new Date(a.nextAttemptAt).getTime() - new Date(b.nextAttemptAt).getTime()
        )
        assert.deepStrictEqual(byDue.map((d) => d.eventId), eventIds)

        // Each once: a second recovery finds nothing left to send, and nothing arrives twice.
        const again = yield* api("POST", `/api/hooks/{c}/${hook.id}/recover`, { since })
        assert.deepStrictEqual(again.json, { queued: 0 })
        yield* Effect.sleep("600 millis")
        assert.deepStrictEqual([...acceptedByEvent(receiver.state.received, upAt).values()], eventIds.map(() => 1))

        const log = (yield* api("GET", "/api/events/{c}?limit=50")).json.events as Array<any>
        const entries = log.filter((e) => e.type === "webhook.recovered")
        assert.deepStrictEqual(entries.map((e) => e.data), [
          { id: hook.id, since: new Date(since).toISOString(), queued: 0 },
          { id: hook.id, since: new Date(since).toISOString(), queued: 8 }
        ])
        assert.deepStrictEqual(entries[0].actor, { type: "owner", id: customerId })
        assert.strictEqual(log.filter((e) => e.type === "webhook.enabled").length, 1)
      }))

    it.effect("only what was not delivered, from `since` on", () =>
      Effect.gen(function*() {
        const { api } = yield* customerApi
        const receiver = yield* startReceiver
        const hook = (yield* api("POST", "/api/hooks/{c}", { url: receiver.url, events: ["content.created"] })).json
        receiver.state.secret = hook.secret
        const { sql } = yield* TestServer
        const delivered = (yield* api("POST", "/api/content/{c}", { type: "blog", body: "delivered" })).json.id
        yield* waitFor(receiver.state.received, (r) => r.length >= 1)
        yield* until(deliveriesOf(hook.id), (rows) => rows.length === 1 && rows[0].status === "succeeded")
        // An older failed delivery, before `since`, stays as it is.
        yield* sql`UPDATE webhooks SET disabled_at = now(), disabled_reason = 'gone' WHERE id = ${hook.id}`
        yield* api("POST", "/api/content/{c}", { type: "blog", body: "too old" })
        yield* sql`UPDATE webhook_events SET created_at = now() - interval '2 hours'
        WHERE id = (SELECT event_id FROM webhook_deliveries WHERE webhook_id = ${hook.id} AND status = 'skipped')`
        const since = new Date(Date.now() - 3_600_000).toISOString()
        const missed = (yield* api("POST", "/api/content/{c}", { type: "blog", body: "missed" })).json.id
        const res = yield* api("POST", `/api/hooks/{c}/${hook.id}/recover`, { since })
        assert.deepStrictEqual(res.json, { queued: 1 })
        yield* waitFor(receiver.state.received, (r) => r.length >= 2)
        yield* Effect.sleep("400 millis")
        assert.deepStrictEqual(receiver.state.received.map((r) => r.json.data.id), [delivered, missed])
        const statuses = (yield* deliveriesOf(hook.id)).map((d) => d.status)
        assert.deepStrictEqual(statuses, ["skipped", "succeeded", "succeeded"])
      }))

    it.effect("answers: since in the future or too old 400 naming body.since, unknown webhook 404, another tenant 403, members below admin 403", () =>
      Effect.gen(function*() {
        const { customerId, apiKey, api } = yield* customerApi
        const receiver = yield* startReceiver
        const hook = (yield* api("POST", "/api/hooks/{c}", { url: receiver.url, events: ["content.created"] })).json
        const path = `/api/hooks/{c}/${hook.id}/recover`
        for (
          const [body, message] of [
            [{ since: new Date(Date.now() + 60_000).toISOString() }, "must not be in the future"],
            [
              { since: new Date(Date.now() - (recoveryWindowDays + 1) * 86_400_000).toISOString() },
              `must be within the last ${recoveryWindowDays} days`
            ]
          ] as const
        ) {
          const res = yield* api("POST", path, body)
          assertError(res, 400, "E_VALIDATION")
          assert.deepStrictEqual(res.json.details, [{ path: "body.since", message }])
        }
        for (
          const body of [{}, { since: "yesterday" }, { since: "2026-02-31T00:00:00Z" }, {
            since: new Date().toISOString(),
            extra: 1
          }]
        ) {
          const res = yield* api("POST", path, body)
          assertError(res, 400, "E_VALIDATION")
          assert.include(res.json.error, "body.")
        }
        const now = new Date().toISOString()
        assertError(yield* api("POST", "/api/hooks/{c}/wh_nothing/recover", { since: now }), 404, "E_NOT_FOUND")
        const other = yield* provision()
        assertError(
          yield* api("POST", `/api/hooks/${other.customerId}/${hook.id}/recover`, { since: now }),
          403,
          "E_FORBIDDEN"
        )
        // Another tenant's webhook under one's own customer id names nothing.
        const stranger = yield* customerApi
        const strangerHook =
          (yield* stranger.api("POST", "/api/hooks/{c}", { url: receiver.url, events: ["content.created"] })).json
        assertError(yield* api("POST", `/api/hooks/{c}/${strangerHook.id}/recover`, { since: now }), 404, "E_NOT_FOUND")
        const editor = yield* invite({ customerId, apiKey, email: "", mcpEndpoint: "" }, "editor")
        assertError(
          yield* call("POST", `/api/hooks/${customerId}/${hook.id}/recover`, {
            headers: bearer(editor.apiKey),
            body: { since: now }
          }),
          403,
          "E_FORBIDDEN"
        )
        const ok = yield* api("POST", path, { since: now })
        assert.deepStrictEqual(ok.json, { queued: 0 })
      }))
  }
)
