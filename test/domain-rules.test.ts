import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { isWellFormedKey, parseBearer } from "../src/domain/ApiKeys.ts"
import { initialStatusForLevel, resolveLevel } from "../src/domain/Autonomy.ts"
import { exceededCap, toMicros, windowStarts } from "../src/domain/Budget.ts"
import { Metadata, NewContent, ReviewNote } from "../src/domain/Content.ts"
import { Email, ProvisionRequest, roleAllows, TeamInvite } from "../src/domain/Identity.ts"
import { canonicalBody, openReplay, sealReplay } from "../src/domain/ReplaySeal.ts"
import { safeEqual, sha256Hex } from "../src/domain/Secrets.ts"
import { AutonomyUpdate, BudgetUpdate, defaultSettings, mergeAutonomy, mergeBudget } from "../src/domain/Settings.ts"
import { charLength, isNestedAtMost, isStorableJson, isStorableText } from "../src/domain/Text.ts"
import { classifyStatus, parseRetryAfter, retryDelaySeconds, WebhookCreate } from "../src/domain/Webhooks.ts"

const accepts = <S extends Schema.Top>(schema: S, value: unknown) =>
  Schema.decodeUnknownResult(schema as any)(value, { onExcessProperty: "error" })._tag === "Success"

const budget = (caps: Partial<{ daily: number; weekly: number; monthly: number; channels: Record<string, number> }>) =>
  ({ daily: null, weekly: null, monthly: null, channels: {}, ...caps }) as any

describe("budget windows", () => {
  it("day, ISO week from Monday and month, in UTC", () => {
    const wednesday = windowStarts(new Date("2026-11-18T15:30:00Z"))
    assert.strictEqual(wednesday.day.toISOString(), "2026-11-18T00:00:00.000Z")
    assert.strictEqual(wednesday.week.toISOString(), "2026-11-16T00:00:00.000Z")
    assert.strictEqual(wednesday.month.toISOString(), "2026-11-01T00:00:00.000Z")
    const sunday = windowStarts(new Date("2026-11-22T23:59:59Z"))
    assert.strictEqual(sunday.week.toISOString(), "2026-11-16T00:00:00.000Z")
    const monday = windowStarts(new Date("2026-11-23T00:00:00Z"))
    assert.strictEqual(monday.week.toISOString(), "2026-11-23T00:00:00.000Z")
    // A week spanning two months starts in the earlier one.
    assert.strictEqual(windowStarts(new Date("2026-12-02T10:00:00Z")).week.toISOString(), "2026-11-30T00:00:00.000Z")
  })

  it("each cap is judged against its own window's spending", () => {
    const spent = { daily: toMicros(1), weekly: toMicros(7), monthly: toMicros(20), channel: toMicros(3) }
    assert.isUndefined(exceededCap(budget({ daily: 2, weekly: 8, monthly: 21, channels: { x: 4 } }), "x", spent, 1))
    assert.deepStrictEqual(exceededCap(budget({ daily: 10, weekly: 7.5 }), "x", spent, 1), {
      cap: "weekly",
      limit: 7.5,
      spent: 7,
      amount: 1
    })
    assert.strictEqual(exceededCap(budget({ daily: 1.5 }), "x", spent, 1)?.cap, "daily")
    assert.strictEqual(exceededCap(budget({ monthly: 20.5 }), "x", spent, 1)?.cap, "monthly")
    assert.strictEqual(exceededCap(budget({ channels: { x: 3.5 } }), "x", spent, 1)?.cap, "channel")
    assert.isUndefined(exceededCap(budget({ channels: { linkedin: 0 } }), "x", spent, 1), "another channel's cap")
    // Reaching a cap exactly is allowed.
    assert.isUndefined(exceededCap(budget({ daily: 2 }), "x", spent, 1))
    assert.strictEqual(
      exceededCap(budget({ daily: 0 }), "x", { daily: 0, weekly: 0, monthly: 0, channel: 0 }, 0.000001)?.cap,
      "daily"
    )
    assert.strictEqual(toMicros(0.1 + 0.2), 300_000)
  })
})

describe("keys and secrets", () => {
  it("key shape, bearer parsing, constant-time comparison", () => {
    const key = "svc_live_" + "a".repeat(64)
    assert.isTrue(isWellFormedKey("svc_live_", key))
    assert.isFalse(isWellFormedKey("svc_live_", key + "a"))
    assert.isFalse(isWellFormedKey("svc_live_", "svc_test_" + "a".repeat(64)))
    assert.isFalse(isWellFormedKey("svc_live_", "svc_live_" + "A".repeat(64)))
    assert.deepStrictEqual(parseBearer(undefined), { _tag: "Missing" })
    assert.deepStrictEqual(parseBearer(""), { _tag: "Missing" })
    assert.deepStrictEqual(parseBearer("Basic abc"), { _tag: "Malformed" })
    assert.deepStrictEqual(parseBearer("Bearer"), { _tag: "Malformed" })
    assert.deepStrictEqual(parseBearer("bearer  abc "), { _tag: "Key", key: "abc" })
    assert.deepStrictEqual(parseBearer("Bearer a b"), { _tag: "Malformed" })
    assert.isTrue(safeEqual("abc", "abc"))
    assert.isFalse(safeEqual("abc", "abd"))
    assert.isFalse(safeEqual("abc", "abcd"))
    assert.strictEqual(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it("a sealed replay opens only with the same key, secret and scope", () => {
    const sealed = sealReplay("{\"apiKey\":\"k\"}", "idem-1", "server", "key:1")
    assert.notInclude(sealed, "apiKey")
    assert.strictEqual(openReplay(sealed, "idem-1", "server", "key:1"), "{\"apiKey\":\"k\"}")
    assert.isUndefined(openReplay(sealed, "idem-2", "server", "key:1"))
    assert.isUndefined(openReplay(sealed, "idem-1", "other", "key:1"))
    assert.isUndefined(openReplay(sealed, "idem-1", "server", "key:2"))
    assert.isUndefined(openReplay(sealed.slice(0, -4) + "AAAA", "idem-1", "server", "key:1"))
    assert.isUndefined(openReplay("garbage", "idem-1", "server", "key:1"))
    assert.notStrictEqual(sealReplay("x", "k", "s", "c"), sealReplay("x", "k", "s", "c"), "a fresh nonce each time")
    assert.strictEqual(
      canonicalBody("{ \"b\": 1, \"a\": [1, {\"d\":2,\"c\":3}] }"),
      canonicalBody("{\"a\":[1,{\"c\":3,\"d\":2}],\"b\":1}")
    )
    assert.notStrictEqual(canonicalBody("{\"a\":1}"), canonicalBody("{\"a\":2}"))
    assert.notStrictEqual(canonicalBody("[1,2]"), canonicalBody("[2,1]"))
    assert.strictEqual(canonicalBody(""), canonicalBody("  "))
  })
})

describe("roles and autonomy", () => {
  it("each role carries the rights of the ones below it, never above", () => {
    const order = ["viewer", "editor", "admin", "owner"] as const
    for (const [i, role] of order.entries()) {
      for (const [j, required] of order.entries()) {
        assert.strictEqual(roleAllows(role, required), i >= j, `${role} vs ${required}`)
      }
    }
  })

  it("skill beats category beats the default; levels map to starting states", () => {
    const autonomy = { globalDefault: 2, categories: { blog: 4 }, skills: { ask_cmo: 1 } } as any
    assert.strictEqual(resolveLevel(autonomy, { category: "blog", skill: "ask_cmo" }), 1)
    assert.strictEqual(resolveLevel(autonomy, { category: "blog" }), 4)
    assert.strictEqual(resolveLevel(autonomy, { category: "social" }), 2)
    assert.strictEqual(resolveLevel(autonomy, { skill: "unknown" }), 2)
    assert.deepStrictEqual([1, 2, 3, 4, 5].map(initialStatusForLevel), [
      "draft",
      "pending_approval",
      "pending_approval",
      "approved",
      "approved"
    ])
  })

  it("settings updates merge; null removes a cap or an override", () => {
    const merged = mergeAutonomy(defaultSettings.autonomy, { categories: { blog: 5 }, skills: { ask_cmo: 3 } } as any)
    assert.deepStrictEqual(merged, { globalDefault: 2, categories: { blog: 5 }, skills: { ask_cmo: 3 } })
    assert.deepStrictEqual(mergeAutonomy(merged, { globalDefault: 4, categories: { blog: null } } as any), {
      globalDefault: 4,
      categories: {},
      skills: { ask_cmo: 3 }
    })
    const caps = mergeBudget(defaultSettings.budget, { daily: 5, channels: { x: 2 } } as any)
    assert.deepStrictEqual(caps, { daily: 5, weekly: null, monthly: null, channels: { x: 2 } })
    assert.deepStrictEqual(mergeBudget(caps, { daily: null, channels: { x: null } } as any), {
      daily: null,
      weekly: null,
      monthly: null,
      channels: {}
    })
  })
})

describe("schema bounds", () => {
  it("emails, brand names and invitations", () => {
    for (const ok of ["a@b.co", "first.last+tag@sub.example.com"]) assert.isTrue(accepts(Email, ok), ok)
    for (const bad of ["a@b", "@b.co", "a b@c.co", "a@-b.co", `${"a".repeat(250)}@b.co`, "a\u0000@b.co"]) {
      assert.isFalse(accepts(Email, bad), bad)
    }
    assert.isTrue(accepts(ProvisionRequest, { email: "a@b.co", brandName: "b".repeat(200), status: "active" }))
    assert.isFalse(accepts(ProvisionRequest, { email: "a@b.co", brandName: "b".repeat(201) }))
    assert.isFalse(accepts(ProvisionRequest, { email: "a@b.co", brandName: "" }))
    assert.isFalse(accepts(ProvisionRequest, { email: "a@b.co", status: "gone" }))
    assert.isTrue(accepts(TeamInvite, { email: "a@b.co", role: "viewer" }))
    assert.isFalse(accepts(TeamInvite, { email: "a@b.co", role: "owner" }))
  })

  it("content: title, body, note, platform lengths and metadata", () => {
    assert.isTrue(accepts(NewContent, { type: "blog", body: "b", title: "t".repeat(300) }))
    assert.isFalse(accepts(NewContent, { type: "blog", body: "b", title: "t".repeat(301) }))
    assert.isFalse(accepts(NewContent, { type: "blog", body: "" }))
    assert.isTrue(
      accepts(NewContent, { type: "blog", body: "😀".repeat(300), title: "😀".repeat(300) }),
      "characters, not UTF-16 units"
    )
    assert.isTrue(accepts(NewContent, { type: "social", platform: "x", body: "y".repeat(280) }))
    assert.isFalse(accepts(NewContent, { type: "social", platform: "x", body: "y".repeat(281) }))
    assert.isTrue(accepts(ReviewNote, "n".repeat(1000)))
    assert.isFalse(accepts(ReviewNote, "n".repeat(1001)))
    assert.isTrue(accepts(Metadata, Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]))))
    assert.isFalse(accepts(Metadata, Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))))
    assert.isTrue(accepts(Metadata, { ["k".repeat(40)]: 1 }))
    assert.isFalse(accepts(Metadata, { ["k".repeat(41)]: 1 }))
    let deep: unknown = 1
    for (let i = 0; i < 16; i++) deep = { d: deep }
    assert.isTrue(accepts(Metadata, deep))
    assert.isFalse(accepts(Metadata, { d: deep }))
    assert.isFalse(accepts(Metadata, { a: "bad\u0000" }))
  })

  it("settings levels and amounts", () => {
    assert.isTrue(accepts(AutonomyUpdate, { globalDefault: 1, categories: { blog: 5 } }))
    for (const bad of [0, 6, 2.5]) assert.isFalse(accepts(AutonomyUpdate, { globalDefault: bad }), String(bad))
    assert.isFalse(accepts(AutonomyUpdate, { categories: { poems: 2 } }))
    assert.isTrue(accepts(BudgetUpdate, { daily: 0, channels: { ads: 10, model: null } }))
    assert.isFalse(accepts(BudgetUpdate, { daily: -0.01 }))
    assert.isFalse(accepts(BudgetUpdate, { channels: { tv: 1 } }))
  })

  it("webhook subscriptions and delivery outcomes", () => {
    assert.isTrue(accepts(WebhookCreate, { url: "https://example.com/h", events: ["content.created"] }))
    assert.isFalse(accepts(WebhookCreate, { url: "ftp://example.com/h", events: ["content.created"] }))
    assert.isFalse(
      accepts(WebhookCreate, { url: `https://example.com/${"p".repeat(2030)}`, events: ["content.created"] })
    )
    assert.isFalse(accepts(WebhookCreate, { url: "https://example.com/h", events: [] }))
    assert.isFalse(accepts(WebhookCreate, { url: "https://example.com/h", events: Array(21).fill("content.created") }))
    assert.isFalse(accepts(WebhookCreate, { url: "https://example.com/h", events: ["content.deleted"] }))
    assert.deepStrictEqual([199, 200, 204, 299, 300, 302, 410, 429, 500].map(classifyStatus), [
      "retry",
      "succeeded",
      "succeeded",
      "succeeded",
      "retry",
      "retry",
      "gone",
      "retry",
      "retry"
    ])
    const now = Date.parse("2026-11-23T12:00:00Z")
    assert.strictEqual(parseRetryAfter("120", now), 120)
    assert.strictEqual(parseRetryAfter(" 7 ", now), 7)
    assert.strictEqual(parseRetryAfter("Mon, 23 Nov 2026 12:01:00 GMT", now), 60)
    assert.strictEqual(parseRetryAfter("Mon, 23 Nov 2026 11:00:00 GMT", now), 0)
    assert.strictEqual(parseRetryAfter("999999", now), 86_400)
    assert.isUndefined(parseRetryAfter("soon", now))
    assert.isUndefined(parseRetryAfter(undefined, now))
    assert.isUndefined(parseRetryAfter(null, now))
    assert.strictEqual(retryDelaySeconds(1, [5, 300]), 5)
    assert.strictEqual(retryDelaySeconds(2, [5, 300]), 300)
    assert.isUndefined(retryDelaySeconds(3, [5, 300]))
    assert.strictEqual(retryDelaySeconds(1, [5, 300], 60), 60)
    assert.strictEqual(retryDelaySeconds(2, [5, 300], 60), 300)
  })

  it("text: characters, storability, nesting", () => {
    assert.strictEqual(charLength("a😀b"), 3)
    assert.isTrue(isStorableText("ok"))
    assert.isFalse(isStorableText("a\u0000"))
    assert.isFalse(isStorableText("\ud800"))
    assert.isTrue(isStorableJson({ a: ["x", { b: "y" }], c: 1 }))
    assert.isFalse(isStorableJson({ a: ["x", { b: "\u0000" }] }))
    assert.isFalse(isStorableJson({ ["k\u0000"]: 1 }))
    assert.isTrue(isNestedAtMost({ a: { b: 1 } }, 2))
    assert.isFalse(isNestedAtMost({ a: { b: { c: 1 } } }, 2))
    assert.isTrue(isNestedAtMost([[1]], 2))
    assert.isFalse(isNestedAtMost([[[1]]], 2))
    fc.assert(fc.property(fc.string(), (s) => charLength(s) === [...s].length), { numRuns: 200 })
  })
})
