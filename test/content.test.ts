import { assert, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { RunId } from "../src/domain/Ids.ts"
import { Content } from "../src/features/content/Content.ts"
import { Customers } from "../src/features/customers/Customers.ts"
import { Settings } from "../src/features/settings/Settings.ts"
import { CurrentActor, Events } from "../src/platform/Events.ts"
import { call, testApp } from "./support/harness.ts"
import { type Tenant, tenant } from "./support/processes.ts"
import { testServices } from "./support/services.ts"

const member = (tenant: Tenant, role: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/team/${tenant.id}/members`, {
      headers: tenant.h,
      body: { email: `${role}@x.co`, role }
    })
    assert.strictEqual(res.status, 200)
    return { authorization: `Bearer ${res.json.apiKey}` }
  })

const create = (tenant: Tenant, body: Record<string, unknown>) =>
  Effect.map(call("POST", `/api/content/${tenant.id}`, { headers: tenant.h, body }), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return res.json
  })

const review = (tenant: Tenant, id: string, action: string, note?: string) =>
  call("POST", `/api/content/${tenant.id}/${id}/review`, {
    headers: tenant.h,
    body: note === undefined ? { action } : { action, note }
  })

const list = (tenant: Tenant, query: string) => call("GET", `/api/content/${tenant.id}?${query}`, { headers: tenant.h })

const assert409 = (res: { status: number; json: any }, from: string, to: string) => {
  assert.strictEqual(res.status, 409)
  assert.strictEqual(res.json.code, "E_INVALID_TRANSITION")
  assert.include(res.json.error, `from ${from} to ${to}`)
}

layer(testApp(), { timeout: 60_000 })("content over HTTP", (it) => {
  it.effect("creates drafts and submitted pieces, readable back, with events", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "create@x.co" })
      const draft = yield* create(t, { type: "blog", title: "Hello", body: "Body", metadata: { seo_keyword: "k" } })
      assert.strictEqual(draft.status, "draft")
      assert.match(draft.id, /^cnt_/)
      assert.deepStrictEqual(draft.metadata, { seo_keyword: "k" })
      for (const key of ["publishedUrl", "publishedAt", "scheduledAt", "reviewNote", "agentId", "runId"]) {
        assert.isNull(draft[key])
      }
      const queued = yield* create(t, { type: "social", platform: "x", body: "Short", submit: true })
      assert.strictEqual(queued.status, "pending_approval")
      const read = yield* call("GET", `/api/content/${t.id}/${draft.id}`, { headers: t.h })
      assert.deepStrictEqual(read.json, draft)
      const events = yield* call("GET", `/api/events/${t.id}`, { headers: t.h })
      const created = events.json.events.filter((e: any) => e.type === "content.created").map((e: any) => e.data.id)
      assert.sameMembers(created, [draft.id, queued.id])
    }))

  it.effect("rejects invalid bodies with details", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "invalid@x.co" })
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ type: "video", body: "b" }, "body.type"],
        [{ type: "blog" }, "body.body"],
        [{ type: "blog", body: "" }, "body.body"],
        [{ type: "blog", body: "b", title: "t".repeat(301) }, "body.title"],
        [{ type: "social", platform: "x", body: "b".repeat(281) }, "body.body"],
        [{ type: "blog", body: "b", platform: "Not A Platform" }, "body.platform"],
        [{ type: "blog", body: "b", submit: "yes" }, "body.submit"]
      ]
      for (const [body, path] of cases) {
        const res = yield* call("POST", `/api/content/${t.id}`, { headers: t.h, body })
        assert.strictEqual(res.status, 400, JSON.stringify(body))
        assert.strictEqual(res.json.code, "E_VALIDATION")
        assert.include(res.json.details.map((d: any) => d.path), path)
      }
      const lists = yield* list(t, "")
      assert.deepStrictEqual(lists.json.content, [])
      for (const query of ["limit=0", "limit=101", "limit=2.5", "status=lost", "type=video"]) {
        const res = yield* list(t, query)
        assert.strictEqual(res.status, 400, query)
        assert.strictEqual(res.json.code, "E_VALIDATION")
        assert.isNotEmpty(res.json.details)
      }
    }))

  it.effect("filters combine", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "filters@x.co" })
      const a = yield* create(t, { type: "social", platform: "x", body: "a", submit: true })
      yield* create(t, { type: "social", platform: "x", body: "b" })
      yield* create(t, { type: "social", platform: "linkedin", body: "c", submit: true })
      yield* create(t, { type: "ad", platform: "x", body: "d", submit: true })
      const e = yield* create(t, { type: "social", platform: "x", body: "e", submit: true })
      const ids = (res: { json: any }) => res.json.content.map((p: any) => p.id)
      assert.deepStrictEqual(ids(yield* list(t, "status=pending_approval&type=social&platform=x")), [e.id, a.id])
      assert.strictEqual((yield* list(t, "type=social")).json.content.length, 4)
      assert.strictEqual((yield* list(t, "platform=x")).json.content.length, 4)
      assert.strictEqual((yield* list(t, "status=draft")).json.content.length, 1)
      assert.deepStrictEqual(ids(yield* list(t, "status=approved&platform=x")), [])
    }))

  it.effect("cursor paging visits every row once while rows are inserted", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "paging@x.co" })
      const original: Array<string> = []
      for (let i = 0; i < 23; i++) original.push((yield* create(t, { type: "email", body: `m${i}` })).id)
      const seen: Array<string> = []
      let cursor: string | null = null
      let pages = 0
      do {
        const query: string = `limit=5${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
        const [page] = yield* Effect.all([list(t, query), create(t, { type: "email", body: "late" })], {
          concurrency: 2
        })
        assert.strictEqual(page.status, 200)
        const times = page.json.content.map((p: any) => Date.parse(p.createdAt))
        assert.deepStrictEqual(times, [...times].sort((x, y) => y - x))
        seen.push(...page.json.content.map((p: any) => p.id))
        cursor = page.json.nextCursor
        pages++
      } while (cursor !== null && pages < 20)
      assert.isNull(cursor)
      assert.strictEqual(new Set(seen).size, seen.length, "no row twice")
      for (const id of original) assert.include(seen, id)
      assert.strictEqual(seen.filter((id) => original.includes(id)).length, original.length)
    }))

  it.effect("tampered or foreign cursors are 400 E_INVALID_CURSOR", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "cursor@x.co" })
      const other = yield* tenant({ email: "cursor2@x.co" })
      for (let i = 0; i < 3; i++) yield* create(t, { type: "blog", body: "b" })
      const first = yield* list(t, "limit=1")
      const cursor: string = first.json.nextCursor
      assert.isString(cursor)
      const [payload, signature] = cursor.split(".")
      const forged = Buffer.from(
        JSON.stringify({
          ...JSON.parse(Buffer.from(payload, "base64url").toString()),
          p: { t: "2999-01-01T00:00:00.000000", i: "z" }
        })
      ).toString("base64url")
      const flipped = payload.slice(0, -1) + (payload.endsWith("A") ? "B" : "A")
      for (const bad of [`${forged}.${signature}`, `${flipped}.${signature}`, "garbage", `${payload}.`, `${payload}`]) {
        const res = yield* list(t, `cursor=${encodeURIComponent(bad)}`)
        assert.strictEqual(res.status, 400, bad)
        assert.strictEqual(res.json.code, "E_INVALID_CURSOR")
      }
      const foreign = yield* list(other, `cursor=${encodeURIComponent(cursor)}`)
      assert.strictEqual(foreign.json.code, "E_INVALID_CURSOR")
      const ok = yield* list(t, `limit=1&cursor=${encodeURIComponent(cursor)}`)
      assert.strictEqual(ok.status, 200)
    }))

  it.effect("unknown and foreign pieces are 404; another customer's path is 403", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "mine@x.co" })
      const other = yield* tenant({ email: "theirs@x.co" })
      const theirs = yield* create(other, { type: "blog", body: "secret" })
      for (const id of [theirs.id, "cnt_missing", "x".repeat(64)]) {
        assert.strictEqual((yield* call("GET", `/api/content/${t.id}/${id}`, { headers: t.h })).status, 404)
        assert.strictEqual(
          (yield* call("PUT", `/api/content/${t.id}/${id}`, { headers: t.h, body: { body: "x" } })).status,
          404
        )
        assert.strictEqual((yield* review(t, id, "approve")).status, 404)
      }
      const cross = yield* call("GET", `/api/content/${other.id}/${theirs.id}`, { headers: t.h })
      assert.strictEqual(cross.status, 403)
      const still = yield* call("GET", `/api/content/${other.id}/${theirs.id}`, { headers: other.h })
      assert.strictEqual(still.json.status, "draft")
    }))

  it.effect("viewers read; editors edit, create and review", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "roles@x.co" })
      const viewer = yield* member(t, "viewer")
      const editor = yield* member(t, "editor")
      const piece = yield* create(t, { type: "blog", body: "b" })
      assert.strictEqual((yield* call("GET", `/api/content/${t.id}`, { headers: viewer })).status, 200)
      assert.strictEqual((yield* call("GET", `/api/content/${t.id}/${piece.id}`, { headers: viewer })).status, 200)
      for (
        const [method, path, body] of [
          ["PUT", `/api/content/${t.id}/${piece.id}`, { body: "v" }],
          ["POST", `/api/content/${t.id}/${piece.id}/review`, { action: "approve" }],
          ["POST", `/api/content/${t.id}`, { type: "blog", body: "v" }]
        ] as const
      ) {
        const res = yield* call(method, path, { headers: viewer, body })
        assert.strictEqual(res.status, 403)
        assert.strictEqual(res.json.code, "E_FORBIDDEN")
      }
      assert.strictEqual((yield* call("GET", `/api/content/${t.id}/${piece.id}`, { headers: t.h })).json.body, "b")
      const edited = yield* call("PUT", `/api/content/${t.id}/${piece.id}`, {
        headers: editor,
        body: { title: "T", body: "e", metadata: { a: 1 } }
      })
      assert.strictEqual(edited.status, 200)
      assert.deepInclude(edited.json, { title: "T", body: "e", metadata: { a: 1 }, status: "draft" })
      const approved = yield* call("POST", `/api/content/${t.id}/${piece.id}/review`, {
        headers: editor,
        body: { action: "approve", note: "ok" }
      })
      assert.deepInclude(approved.json, { status: "approved", reviewNote: "ok" })
      assert.strictEqual(
        (yield* call("POST", `/api/content/${t.id}`, { headers: editor, body: { type: "ad", body: "x" } })).status,
        200
      )
    }))
})

// A second app: the admin limit (10 provisions a minute per IP) caps customers per app.
layer(testApp(), { timeout: 60_000 })("content moves over HTTP", (it) => {
  it.effect("PUT takes only title, body and metadata", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "put@x.co" })
      const piece = yield* create(t, { type: "social", platform: "x", body: "b" })
      for (
        const body of [{ status: "approved" }, { body: "x", extra: 1 }, { title: "" }, { body: "b".repeat(281) }, {
          metadata: "no"
        }]
      ) {
        const res = yield* call("PUT", `/api/content/${t.id}/${piece.id}`, { headers: t.h, body })
        assert.strictEqual(res.status, 400, JSON.stringify(body))
        assert.strictEqual(res.json.code, "E_VALIDATION")
        assert.isNotEmpty(res.json.details)
      }
      const read = yield* call("GET", `/api/content/${t.id}/${piece.id}`, { headers: t.h })
      assert.deepInclude(read.json, { status: "draft", body: "b" })
    }))

  it.effect("rejected pieces return to draft when edited; the note is kept", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "reject@x.co" })
      const piece = yield* create(t, { type: "blog", body: "b", submit: true })
      const rejected = yield* review(t, piece.id, "reject", "too long")
      assert.deepInclude(rejected.json, { status: "rejected", reviewNote: "too long" })
      const edited = yield* call("PUT", `/api/content/${t.id}/${piece.id}`, { headers: t.h, body: { body: "shorter" } })
      assert.deepInclude(edited.json, { status: "draft", body: "shorter", reviewNote: "too long" })
      const long = yield* review(t, piece.id, "approve", "n".repeat(1001))
      assert.strictEqual(long.status, 400)
      assert.strictEqual((yield* review(t, piece.id, "publish")).status, 400)
      const events = (yield* call("GET", `/api/events/${t.id}`, { headers: t.h })).json.events.map((e: any) => e.type)
      assert.include(events, "content.rejected")
    }))

  it.effect("every forbidden move is 409 naming from and to", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "forbidden@x.co" })
      const approved = yield* create(t, { type: "blog", body: "b" })
      assert.strictEqual((yield* review(t, approved.id, "approve")).status, 200)
      assert409(yield* review(t, approved.id, "approve"), "approved", "approved")
      assert409(yield* review(t, approved.id, "reject"), "approved", "rejected")
      const edit = yield* call("PUT", `/api/content/${t.id}/${approved.id}`, { headers: t.h, body: { body: "x" } })
      assert.strictEqual(edit.status, 409)
      assert.strictEqual(edit.json.code, "E_INVALID_TRANSITION")
      assert.match(edit.json.error, /^approved content cannot be edited/)
      assert.notInclude(edit.json.error, "from approved to approved")
      const rejected = yield* create(t, { type: "blog", body: "b" })
      assert.strictEqual((yield* review(t, rejected.id, "reject")).status, 200)
      assert409(yield* review(t, rejected.id, "approve"), "rejected", "approved")
      assert409(yield* review(t, rejected.id, "reject"), "rejected", "rejected")
      const read = yield* call("GET", `/api/content/${t.id}/${approved.id}`, { headers: t.h })
      assert.deepInclude(read.json, { status: "approved", body: "b" })
    }))

  it.effect("of concurrent reviews exactly one wins", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "race@x.co" })
      const piece = yield* create(t, { type: "blog", body: "b", submit: true })
      const results = yield* Effect.all(
        Array.from({ length: 8 }, (_, i) => review(t, piece.id, i % 2 === 0 ? "approve" : "reject")),
        { concurrency: "unbounded" }
      )
      const statuses = results.map((r) => r.status)
      assert.strictEqual(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses))
      assert.strictEqual(statuses.filter((s) => s === 409).length, 7)
      const winner = results.find((r) => r.status === 200)!.json.status
      const read = yield* call("GET", `/api/content/${t.id}/${piece.id}`, { headers: t.h })
      assert.strictEqual(read.json.status, winner)
      const events = (yield* call("GET", `/api/events/${t.id}`, { headers: t.h })).json.events
      assert.strictEqual(
        events.filter((e: any) => e.type === "content.approved" || e.type === "content.rejected").length,
        1
      )
    }))
})

layer(testServices, { timeout: 60_000 })("content service", (it) => {
  const customer = (email: string) =>
    Effect.gen(function*() {
      const { customer } = yield* (yield* Customers).provision({ email })
      return customer.id
    })

  it.effect("agent pieces start where autonomy puts them", () =>
    Effect.gen(function*() {
      const content = yield* Content
      const settings = yield* Settings
      const id = yield* customer("agent@x.co")
      const make = (type: "blog" | "social", skill?: string) =>
        Effect.map(content.create(id, { type, body: "b" }, { actor: "agent", skill, agentId: "cmo" }), (p) => p.status)
      assert.strictEqual(yield* make("blog"), "pending_approval")
      yield* settings.updateAutonomy(id, {
        globalDefault: 1,
        categories: { social: 4 },
        skills: { ask_cmo: 3, "daily-social-posts": 5 }
      })
      assert.strictEqual(yield* make("blog"), "draft")
      assert.strictEqual(yield* make("social"), "approved")
      assert.strictEqual(yield* make("social", "ask_cmo"), "pending_approval")
      assert.strictEqual(yield* make("blog", "daily-social-posts"), "approved")
      assert.strictEqual(yield* make("blog", "unknown_skill"), "draft")
      const person = yield* content.create(id, { type: "social", body: "b" }, { actor: "person" })
      assert.strictEqual(person.status, "draft")
    }))

  it.effect("markPublished moves approved to published, once, with its event and webhook", () =>
    Effect.gen(function*() {
      const content = yield* Content
      const sql = yield* SqlClient.SqlClient
      const id = yield* customer("publish@x.co")
      const draft = yield* content.create(id, { type: "social", platform: "x", body: "b" }, { actor: "person" })
      const early = yield* Effect.exit(content.markPublished(id, draft.id, "https://x.com/p/1"))
      assert.isTrue(Exit.isFailure(early))
      yield* content.review(id, draft.id, "approve", undefined)
      const published = yield* content.markPublished(id, draft.id, "https://x.com/p/1")
      assert.strictEqual(published.status, "published")
      assert.strictEqual(published.publishedUrl, "https://x.com/p/1")
      assert.isString(published.publishedAt)
      for (
        const attempt of [
          content.markPublished(id, draft.id, "https://x.com/p/2"),
          content.review(id, draft.id, "approve", undefined),
          content.review(id, draft.id, "reject", undefined),
          content.update(id, draft.id, { body: "late" })
        ]
      ) {
        const exit = yield* Effect.exit(attempt)
        assert.isTrue(Exit.isFailure(exit))
        assert.match(JSON.stringify(exit), /from published to|published content cannot be edited/)
      }
      const events = yield* (yield* Events).list(id, { limit: 50, since: undefined })
      assert.deepStrictEqual(
        events.map((e) => e.type).filter((t) => t.startsWith("content.")),
        ["content.published", "content.approved", "content.created"]
      )
      const outbox = yield* sql<{ type: string; data: string }>`
        SELECT type, data::text AS data FROM webhook_events WHERE customer_id = ${id} ORDER BY created_at`
      assert.deepStrictEqual(outbox.map((r) => r.type), ["content.created", "content.approved", "content.published"])
      assert.deepStrictEqual(JSON.parse(outbox[2].data), published)
    }))

  it.effect("events name their actor: an agent, a workflow run, a CurrentActor, else the system", () =>
    Effect.gen(function*() {
      const content = yield* Content
      const id = yield* customer("actors@x.co")
      yield* content.create(id, { type: "blog", body: "a" }, {
        actor: "agent",
        agentId: "agt_1",
        skill: "run_content_creation"
      })
      yield* content.create(id, { type: "blog", body: "w" }, {
        actor: "agent",
        runId: RunId.make("run_1"),
        skill: "weekly-content-plan"
      })
      const piece = yield* content.create(id, { type: "blog", body: "p" }, { actor: "person" })
      yield* Effect.provideService(content.review(id, piece.id, "approve", undefined), CurrentActor, {
        type: "workflow",
        id: "run_2"
      })
      yield* (yield* Events).record(id, "custom.thing", { x: 1 })
      const events = yield* (yield* Events).list(id, { limit: 50, since: undefined })
      assert.deepStrictEqual(events.slice(0, 5).map((e) => [e.type, e.actor]), [
        ["custom.thing", { type: "system", id: null }],
        ["content.approved", { type: "workflow", id: "run_2" }],
        ["content.created", { type: "system", id: null }],
        ["content.created", { type: "workflow", id: "run_1" }],
        ["content.created", { type: "agent", id: "agt_1" }]
      ])
    }))
})
