import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, type Reply, testApp } from "./support/harness.ts"
import { adminSecret, assertError, bearer, provision, randomIp } from "./support/processes.ts"
import { startReceiver, waitFor } from "./support/webhook-receiver.ts"

/** The request as raw JSON text, so it can carry `\u0000` and lone surrogates exactly as a client would send them. */
const rawJson = (text: string) => ({ body: text, raw: true as const })

const assertNamesField = (res: Reply, path: string) => {
  assertError(res, 400, "E_VALIDATION")
  assert.include(res.json.error, path)
  assert.isTrue(res.json.details.some((d: { path: string }) => d.path === path), res.text)
}

layer(testApp({ trustProxy: true, webhookRetrySchedule: [1], webhookPollIntervalMs: 100 }), { timeout: 60_000 })(
  "hostile input",
  (it) => {
    it.effect("NUL characters and lone surrogates in bodies are 400 naming the field, never a 500", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const json = (extra: Record<string, string> = {}) =>
          bearer(a.apiKey, { "content-type": "application/json", "x-forwarded-for": randomIp(), ...extra })
        const post = (path: string, text: string, headers: Record<string, string> = json()) =>
          call("POST", path, { headers, ...rawJson(text) })
        const content = `/api/content/${a.customerId}`

        assertNamesField(yield* post(content, "{\"type\":\"blog\",\"body\":\"a\\u0000b\"}"), "body.body")
        assertNamesField(yield* post(content, "{\"type\":\"blog\",\"body\":\"a\\ud800b\"}"), "body.body")
        assertNamesField(
          yield* post(content, "{\"type\":\"blog\",\"body\":\"ok\",\"title\":\"t\\u0000\"}"),
          "body.title"
        )
        assertNamesField(
          yield* post(content, "{\"type\":\"blog\",\"body\":\"ok\",\"metadata\":{\"k\\u0000\":1}}"),
          "body.metadata"
        )
        assertNamesField(
          yield* post(content, "{\"type\":\"blog\",\"body\":\"ok\",\"metadata\":{\"k\":[\"\\udc00\"]}}"),
          "body.metadata"
        )
        assertNamesField(
          yield* post(
            `/api/hooks/${a.customerId}`,
            "{\"url\":\"https://example.com/a\\u0000b\",\"events\":[\"content.created\"]}"
          ),
          "body.url"
        )
        assertNamesField(
          yield* post(`/api/team/${a.customerId}/members`, "{\"email\":\"a\\u0000b@example.com\",\"role\":\"viewer\"}"),
          "body.email"
        )
        const admin = {
          "content-type": "application/json",
          "x-admin-secret": adminSecret,
          "x-forwarded-for": randomIp()
        }
        assertNamesField(
          yield* post("/api/admin/provision", "{\"email\":\"b@example.com\",\"brandName\":\"x\\u0000\"}", admin),
          "body.brandName"
        )
        assertNamesField(
          yield* post("/api/admin/provision", "{\"email\":\"\\ud800@example.com\"}", admin),
          "body.email"
        )

        const piece = yield* call("POST", content, { headers: json(), body: { type: "blog", body: "ok" } })
        assert.strictEqual(piece.status, 200, piece.text)
        const edit = yield* call("PUT", `${content}/${piece.json.id}`, {
          headers: json(),
          ...rawJson("{\"title\":\"a\\u0000\"}")
        })
        assertNamesField(edit, "body.title")
        const reviewed = yield* post(
          `${content}/${piece.json.id}/review`,
          "{\"action\":\"reject\",\"note\":\"a\\u0000\"}"
        )
        assertNamesField(reviewed, "body.note")
      }))

    it.effect("a JSON body that is not UTF-8 is malformed JSON, after authentication", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const json = { "content-type": "application/json", "x-forwarded-for": randomIp() }
        const bytes = (text: string) =>
          Uint8Array.from(
            Buffer.concat([
              Buffer.from(text.slice(0, text.indexOf("|"))),
              Buffer.from([0xff, 0xfe]),
              Buffer.from(text.slice(text.indexOf("|") + 1))
            ])
          )
        const content = `/api/content/${a.customerId}`
        const bad = bytes("{\"type\":\"blog\",\"body\":\"a|b\"}")
        assertError(
          yield* call("POST", content, { headers: bearer(a.apiKey, json), body: bad, raw: true }),
          400,
          "E_MALFORMED_JSON"
        )
        assertError(yield* call("POST", content, { headers: json, body: bad, raw: true }), 401, "E_AUTH_REQUIRED")
        const admin = { ...json, "x-admin-secret": adminSecret }
        assertError(
          yield* call("POST", "/api/admin/provision", {
            headers: admin,
            body: bytes("{\"email\":\"|x@example.com\"}"),
            raw: true
          }),
          400,
          "E_MALFORMED_JSON"
        )
        // Nothing was stored; well-formed UTF-8, U+FFFD itself included, still passes.
        const list = yield* call("GET", content, { headers: bearer(a.apiKey, { "x-forwarded-for": randomIp() }) })
        assert.strictEqual(list.json.content.length, 0)
        const fine = yield* call("POST", content, {
          headers: bearer(a.apiKey, json),
          body: { type: "blog", body: "caf\u00e9 \ufffd" }
        })
        assert.strictEqual(fine.status, 200, fine.text)
        assert.strictEqual(fine.json.body, "caf\u00e9 \ufffd")
      }))

    it.effect("a path id that names nothing is 404 whatever its shape", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const h = bearer(a.apiKey, { "x-forwarded-for": randomIp() })
        const c = a.customerId
        const shapes = ["a%00b", "c".repeat(65), "%ED%A0%80", "cnt_%F0%9F%98%80", "..%2F..%2Fetc"]
        for (const id of shapes) {
          assertError(yield* call("GET", `/api/content/${c}/${id}`, { headers: h }), 404, "E_NOT_FOUND")
          assertError(
            yield* call("PUT", `/api/content/${c}/${id}`, { headers: h, body: { title: "x" } }),
            404,
            "E_NOT_FOUND"
          )
          assertError(
            yield* call("POST", `/api/content/${c}/${id}/review`, { headers: h, body: { action: "approve" } }),
            404,
            "E_NOT_FOUND"
          )
          assertError(yield* call("DELETE", `/api/hooks/${c}/${id}`, { headers: h }), 404, "E_NOT_FOUND")
          assertError(
            yield* call("POST", `/api/hooks/${c}/${id}/rotate-secret`, { headers: h, body: {} }),
            404,
            "E_NOT_FOUND"
          )
          assertError(yield* call("GET", `/api/hooks/${c}/${id}/deliveries`, { headers: h }), 404, "E_NOT_FOUND")
          assertError(yield* call("DELETE", `/api/team/${c}/members/${id}`, { headers: h }), 404, "E_NOT_FOUND")
        }
      }))

    it.effect("nulls where a value is expected, and metadata nested too deep, are 400", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const h = bearer(a.apiKey, { "x-forwarded-for": randomIp() })
        const content = `/api/content/${a.customerId}`
        const piece = yield* call("POST", content, { headers: h, body: { type: "blog", body: "ok", title: "kept" } })
        for (const field of ["title", "body", "metadata"]) {
          assertNamesField(
            yield* call("PUT", `${content}/${piece.json.id}`, { headers: h, body: { [field]: null } }),
            `body.${field}`
          )
        }
        assertNamesField(
          yield* call("POST", content, { headers: h, body: { type: "blog", body: "b", platform: null } }),
          "body.platform"
        )
        const unchanged = yield* call("GET", `${content}/${piece.json.id}`, { headers: h })
        assert.strictEqual(unchanged.json.title, "kept")

        let deep: unknown = 1
        for (let i = 0; i < 17; i++) deep = { d: deep }
        assertNamesField(
          yield* call("POST", content, { headers: h, body: { type: "blog", body: "b", metadata: { deep } } }),
          "body.metadata"
        )
        const huge = `{"type":"blog","body":"b","metadata":{"k":${"[".repeat(300_000)}${"]".repeat(300_000)}}}`
        assertNamesField(
          yield* call("POST", content, { headers: { ...h, "content-type": "application/json" }, ...rawJson(huge) }),
          "body.metadata"
        )
        let fine: unknown = 1
        for (let i = 0; i < 15; i++) fine = { d: fine }
        const ok = yield* call("POST", content, { headers: h, body: { type: "blog", body: "b", metadata: { fine } } })
        assert.strictEqual(ok.status, 200, ok.text)
        assert.deepStrictEqual(ok.json.metadata, { fine })
      }))

    it.effect("filters take any platform name; events may repeat (kept once); budgets have no upper cap", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const h = bearer(a.apiKey, { "x-forwarded-for": randomIp() })
        yield* call("POST", `/api/content/${a.customerId}`, {
          headers: h,
          body: { type: "social", platform: "linkedin", body: "b" }
        })
        for (const platform of ["LinkedIn", "Foo Bar", "x"]) {
          const res = yield* call("GET", `/api/content/${a.customerId}?platform=${encodeURIComponent(platform)}`, {
            headers: h
          })
          assert.strictEqual(res.status, 200, res.text)
          assert.strictEqual(res.json.content.length, 0)
        }
        assertNamesField(
          yield* call("GET", `/api/content/${a.customerId}?platform=a%00`, { headers: h }),
          "query.platform"
        )

        const events = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? "content.created" : "team.invited"))
        const hook = yield* call("POST", `/api/hooks/${a.customerId}`, {
          headers: h,
          body: { url: "https://example.com/h", events }
        })
        assert.strictEqual(hook.status, 200, hook.text)
        assert.deepStrictEqual([...hook.json.events].sort(), ["content.created", "team.invited"])
        const tooMany = yield* call("POST", `/api/hooks/${a.customerId}`, {
          headers: h,
          body: { url: "https://example.com/h", events: [...events, "content.created"] }
        })
        assertNamesField(tooMany, "body.events")

        const budget = yield* call("PUT", `/api/settings/${a.customerId}/budget`, {
          headers: h,
          body: { daily: 1e300 }
        })
        assert.strictEqual(budget.status, 200, budget.text)
        assert.strictEqual(budget.json.budget.daily, 1e300)
      }))

    it.effect("viewers read neither webhooks nor the team (admin only); one live membership per address", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const owner = bearer(a.apiKey, { "x-forwarded-for": randomIp() })
        const invite = (email: string) =>
          call("POST", `/api/team/${a.customerId}/members`, { headers: owner, body: { email, role: "viewer" } })
        const viewer = yield* invite("viewer@example.com")
        assert.strictEqual(viewer.status, 200, viewer.text)
        assertError(yield* invite("Viewer@Example.com"), 409, "E_CONFLICT")
        const v = bearer(viewer.json.apiKey, { "x-forwarded-for": randomIp() })
        const hook = yield* call("POST", `/api/hooks/${a.customerId}`, {
          headers: owner,
          body: { url: "https://example.com/h", events: ["team.invited"] }
        })
        assertError(yield* call("GET", `/api/hooks/${a.customerId}`, { headers: v }), 403, "E_FORBIDDEN")
        assertError(
          yield* call("GET", `/api/hooks/${a.customerId}/${hook.json.id}/deliveries`, { headers: v }),
          403,
          "E_FORBIDDEN"
        )
        assertError(yield* call("GET", `/api/team/${a.customerId}/members`, { headers: v }), 403, "E_FORBIDDEN")
        const members = yield* call("GET", `/api/team/${a.customerId}/members`, { headers: owner })
        assert.strictEqual(members.status, 200)
        assert.notInclude(members.text, viewer.json.apiKey)
        assertError(
          yield* call("DELETE", `/api/hooks/${a.customerId}/${hook.json.id}`, { headers: v }),
          403,
          "E_FORBIDDEN"
        )

        // Revoked, the address can be invited again.
        assert.strictEqual(
          (yield* call("DELETE", `/api/team/${a.customerId}/members/${viewer.json.memberId}`, { headers: owner }))
            .status,
          200
        )
        assert.strictEqual((yield* invite("viewer@example.com")).status, 200)
      }))

    it.effect("lengths count characters, not UTF-16 units: an emoji is one", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const h = bearer(a.apiKey, { "x-forwarded-for": randomIp() })
        const content = `/api/content/${a.customerId}`
        const emoji = (n: number) => "\u{1F600}".repeat(n)
        const post = (body: Record<string, unknown>) => call("POST", content, { headers: h, body })

        const piece = yield* post({ type: "social", platform: "x", title: emoji(300), body: emoji(280) })
        assert.strictEqual(piece.status, 200, piece.text)
        assertNamesField(yield* post({ type: "social", platform: "x", body: emoji(281) }), "body.body")
        assertNamesField(yield* post({ type: "blog", title: emoji(301), body: "b" }), "body.title")
        const longKey = yield* post({ type: "blog", body: "b", metadata: { [emoji(41)]: 1 } })
        assertError(longKey, 400, "E_VALIDATION")
        assert.include(longKey.json.error, "keys must be at most 40 characters")
        const keyOf40 = yield* post({ type: "blog", body: "b", metadata: { [emoji(40)]: 1 } })
        assert.strictEqual(keyOf40.status, 200, keyOf40.text)

        const review = (note: string) =>
          call("POST", `${content}/${piece.json.id}/review`, { headers: h, body: { action: "reject", note } })
        assertNamesField(yield* review(emoji(1001)), "body.note")
        const reviewed = yield* review(emoji(1000))
        assert.strictEqual(reviewed.status, 200, reviewed.text)
        assert.strictEqual(reviewed.json.reviewNote, emoji(1000))
      }))

    it.effect("an unknown property reads the same in every strict body", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const h = bearer(a.apiKey, { "x-forwarded-for": randomIp() })
        const hook = yield* call("POST", `/api/hooks/${a.customerId}`, {
          headers: h,
          body: { url: "https://example.com/hook", events: ["content.created"] }
        })
        assert.strictEqual(hook.status, 200, hook.text)
        const piece = yield* call("POST", `/api/content/${a.customerId}`, {
          headers: h,
          body: { type: "blog", body: "b" }
        })
        const messages = []
        for (
          const [method, path] of [
            ["PUT", `/api/content/${a.customerId}/${piece.json.id}`],
            ["POST", `/api/hooks/${a.customerId}/${hook.json.id}/rotate-secret`],
            ["POST", `/api/customer/${a.customerId}/rotate-key`]
          ] as const
        ) {
          const res = yield* call(method, path, { headers: h, body: { x: 1 } })
          assertNamesField(res, "body.x")
          messages.push(res.json.details.find((d: { path: string }) => d.path === "body.x").message)
        }
        assert.deepStrictEqual(new Set(messages).size, 1, messages.join(" | "))
      }))

    it.effect("a customer id is the same in any letter case", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const h = bearer(a.apiKey, { "x-forwarded-for": randomIp() })
        const upper = a.customerId.toUpperCase()
        const customer = yield* call("GET", `/api/customer/${upper}`, { headers: h })
        assert.strictEqual(customer.status, 200, customer.text)
        assert.strictEqual(customer.json.id, a.customerId)
        const created = yield* call("POST", `/api/content/${upper}`, { headers: h, body: { type: "blog", body: "b" } })
        assert.strictEqual(created.status, 200, created.text)
        const listed = yield* call("GET", `/api/content/${a.customerId}`, { headers: h })
        assert.strictEqual(listed.json.content[0].id, created.json.id)
        const other = yield* provision({ status: "active" })
        assertError(
          yield* call("GET", `/api/customer/${other.customerId.toUpperCase()}`, { headers: h }),
          403,
          "E_FORBIDDEN"
        )
      }))

    it.effect("a delivery attempt is dated when it was sent, not when its answer came", () =>
      Effect.gen(function*() {
        const a = yield* provision({ status: "active" })
        const h = bearer(a.apiKey, { "x-forwarded-for": randomIp() })
        const receiver = yield* startReceiver
        receiver.state.script.push({ status: 200, delayMs: 1_500 })
        const hook = yield* call("POST", `/api/hooks/${a.customerId}`, {
          headers: h,
          body: { url: receiver.url, events: ["team.invited"] }
        })
        receiver.state.secret = hook.json.secret
        yield* call("POST", `/api/team/${a.customerId}/members`, {
          headers: h,
          body: { email: "late@example.com", role: "viewer" }
        })
        yield* waitFor(receiver.state.received, (r) => r.length >= 1, 10_000)
        const arrived = receiver.state.received[0].at
        let attempt: any
        for (let i = 0; i < 50 && attempt === undefined; i++) {
          const list = yield* call("GET", `/api/hooks/${a.customerId}/${hook.json.id}/deliveries`, { headers: h })
          attempt = list.json.deliveries[0]
          if (attempt === undefined) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
        }
        assert.isDefined(attempt, "the attempt was recorded")
        assert.isAtLeast(attempt.durationMs, 1_400)
        assert.isBelow(Date.parse(attempt.attemptedAt), arrived + 500, "dated at sending, not 1.5 s later")
      }))
  }
)
