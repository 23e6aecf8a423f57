import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { call, externalDatabaseUrl, testApp, TestServer } from "./support/harness.ts"
import { assertError, bearer, invite, provision, type Provisioned } from "./support/processes.ts"

const create = (t: Provisioned, body: Record<string, unknown>) =>
  Effect.map(call("POST", `/api/content/${t.customerId}`, { headers: bearer(t.apiKey), body }), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return res.json
  })

const events = (t: Provisioned) =>
  Effect.map(
    call("GET", `/api/events/${t.customerId}?limit=200`, { headers: bearer(t.apiKey) }),
    (res) => res.json.events as Array<{ type: string; data: any; actor: any }>
  )

// Real time: one test holds a transaction open for a moment.
layer(testApp({ trustProxy: true }), { timeout: 60_000, excludeTestServices: true })("content moves", (it) => {
  it.effect("submit moves a draft to pending_approval (editor), and nothing else", () =>
    Effect.gen(function*() {
      const t = yield* provision()
      const editor = yield* invite(t, "editor")
      const viewer = yield* invite(t, "viewer")
      const draft = yield* create(t, { type: "blog", body: "b" })
      const path = `/api/content/${t.customerId}/${draft.id}/submit`
      assertError(yield* call("POST", path, { headers: bearer(viewer.apiKey), body: {} }), 403, "E_FORBIDDEN")
      assertError(yield* call("POST", path, { headers: bearer(editor.apiKey), body: { x: 1 } }), 400, "E_VALIDATION")
      const submitted = yield* call("POST", path, { headers: bearer(editor.apiKey), body: {} })
      assert.strictEqual(submitted.status, 200, submitted.text)
      assert.deepInclude(submitted.json, { id: draft.id, status: "pending_approval", body: "b" })
      // Already pending, approved, rejected: 409 naming the status.
      const again = yield* call("POST", path, { headers: bearer(editor.apiKey) })
      assertError(again, 409, "E_INVALID_TRANSITION")
      assert.include(again.json.error, "pending approval")
      const approved = yield* call("POST", `/api/content/${t.customerId}/${draft.id}/review`, {
        headers: bearer(editor.apiKey),
        body: { action: "approve" }
      })
      assert.strictEqual(approved.json.status, "approved")
      assertError(yield* call("POST", path, { headers: bearer(editor.apiKey), body: {} }), 409, "E_INVALID_TRANSITION")
      assertError(
        yield* call("POST", `/api/content/${t.customerId}/cnt_nothing/submit`, {
          headers: bearer(editor.apiKey),
          body: {}
        }),
        404,
        "E_NOT_FOUND"
      )
      const log = yield* events(t)
      const submittedEvent = log.find((e) => e.type === "content.submitted")!
      assert.strictEqual(submittedEvent.data.id, draft.id)
      assert.strictEqual(submittedEvent.data.status, "pending_approval")
      assert.deepStrictEqual(submittedEvent.actor, { type: "member", id: editor.memberId })
      const read = yield* call("GET", `/api/content/${t.customerId}/${draft.id}`, { headers: bearer(t.apiKey) })
      assert.strictEqual(read.json.status, "approved")
    }))

  it.effect("delete takes drafts and rejected pieces; approved, pending and published stay (409)", () =>
    Effect.gen(function*() {
      const t = yield* provision()
      const viewer = yield* invite(t, "viewer")
      const draft = yield* create(t, { type: "blog", body: "d" })
      const rejected = yield* create(t, { type: "blog", body: "r" })
      yield* call("POST", `/api/content/${t.customerId}/${rejected.id}/review`, {
        headers: bearer(t.apiKey),
        body: { action: "reject" }
      })
      const pending = yield* create(t, { type: "blog", body: "p", submit: true })
      const approved = yield* create(t, { type: "blog", body: "a" })
      yield* call("POST", `/api/content/${t.customerId}/${approved.id}/review`, {
        headers: bearer(t.apiKey),
        body: { action: "approve" }
      })

      const del = (id: string, key = t.apiKey) =>
        call("DELETE", `/api/content/${t.customerId}/${id}`, { headers: bearer(key) })
      assertError(yield* del(draft.id, viewer.apiKey), 403, "E_FORBIDDEN")
      for (const piece of [draft, rejected]) {
        const res = yield* del(piece.id)
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.json, { deleted: true })
        assertError(
          yield* call("GET", `/api/content/${t.customerId}/${piece.id}`, { headers: bearer(t.apiKey) }),
          404,
          "E_NOT_FOUND"
        )
        assertError(yield* del(piece.id), 404, "E_NOT_FOUND")
      }
      for (const [piece, status] of [[pending, "pending approval"], [approved, "approved"]] as const) {
        const res = yield* del(piece.id)
        assertError(res, 409, "E_INVALID_TRANSITION")
        assert.strictEqual(res.json.error, `${status} content cannot be deleted (only draft and rejected pieces can)`)
        assert.strictEqual(
          (yield* call("GET", `/api/content/${t.customerId}/${piece.id}`, { headers: bearer(t.apiKey) })).status,
          200
        )
      }
      const list = yield* call("GET", `/api/content/${t.customerId}`, { headers: bearer(t.apiKey) })
      assert.deepStrictEqual(list.json.content.map((p: any) => p.id).sort(), [pending.id, approved.id].sort())
      const deletions = (yield* events(t)).filter((e) => e.type === "content.deleted")
      assert.deepStrictEqual(deletions.map((e) => e.data), [
        { id: rejected.id, status: "rejected" },
        { id: draft.id, status: "draft" }
      ])
    }))

  it.effect("edits write content.updated (a rejected piece's return to draft included); approved and published say so", () =>
    Effect.gen(function*() {
      const t = yield* provision()
      const piece = yield* create(t, { type: "blog", body: "one" })
      const put = (body: unknown) =>
        call("PUT", `/api/content/${t.customerId}/${piece.id}`, { headers: bearer(t.apiKey), body })
      assert.strictEqual((yield* put({ body: "two" })).status, 200)
      yield* call("POST", `/api/content/${t.customerId}/${piece.id}/review`, {
        headers: bearer(t.apiKey),
        body: { action: "reject" }
      })
      const back = yield* put({ title: "three" })
      assert.strictEqual(back.json.status, "draft")
      const log = (yield* events(t)).filter((e) => e.type.startsWith("content."))
      assert.deepStrictEqual(log.map((e) => [e.type, e.data.status]), [
        ["content.updated", "draft"],
        ["content.rejected", "rejected"],
        ["content.updated", "draft"],
        ["content.created", "draft"]
      ])
      assert.strictEqual(log[0].data.title, "three")
      assert.strictEqual(log[2].data.body, "two")
      yield* call("POST", `/api/content/${t.customerId}/${piece.id}/review`, {
        headers: bearer(t.apiKey),
        body: { action: "approve" }
      })
      const refused = yield* put({ body: "four" })
      assertError(
        refused,
        409,
        "E_INVALID_TRANSITION",
        "approved content cannot be edited (only draft, pending_approval and rejected pieces can)"
      )
    }))

  it.effect("metadata keeps the key order it was given, nested too, through create, edit, read, list and events", () =>
    Effect.gen(function*() {
      const t = yield* provision()
      // jsonb would sort these by length, then bytes: {"a", "b", "zz", "yyy"} and {"id", "ad"} reversed.
      const metadata = { zz: 1, yyy: { b: 2, a: 1, ccc: [{ z: 1, a: 2 }] }, b: true, a: null, "10": "x", "9": "y" }
      const created = yield* create(t, { type: "ad", body: "b", metadata })
      const expected = JSON.stringify({
        "9": "y",
        "10": "x",
        zz: 1,
        yyy: { b: 2, a: 1, ccc: [{ z: 1, a: 2 }] },
        b: true,
        a: null
      })
      // JavaScript itself puts integer-like keys first; every other key keeps its place.
      assert.strictEqual(JSON.stringify(created.metadata), expected)
      const read = yield* call("GET", `/api/content/${t.customerId}/${created.id}`, { headers: bearer(t.apiKey) })
      assert.deepStrictEqual(Object.keys(read.json.metadata), ["9", "10", "zz", "yyy", "b", "a"])
      assert.include(
        read.text,
        `"metadata":{"9":"y","10":"x","zz":1,"yyy":{"b":2,"a":1,"ccc":[{"z":1,"a":2}]},"b":true,"a":null}`
      )
      const edited = yield* call("PUT", `/api/content/${t.customerId}/${created.id}`, {
        headers: bearer(t.apiKey),
        body: { metadata: { spend: 5, campaign: "c", ad: 1 } }
      })
      assert.deepStrictEqual(Object.keys(edited.json.metadata), ["spend", "campaign", "ad"])
      const list = yield* call("GET", `/api/content/${t.customerId}`, { headers: bearer(t.apiKey) })
      assert.deepStrictEqual(Object.keys(list.json.content[0].metadata), ["spend", "campaign", "ad"])
      const updated = (yield* events(t)).find((e) => e.type === "content.updated")!
      assert.deepStrictEqual(Object.keys(updated.data.metadata), ["spend", "campaign", "ad"])
    }))

  it.effect("POST /api/content refuses unknown properties, as PUT does", () =>
    Effect.gen(function*() {
      const t = yield* provision()
      const res = yield* call("POST", `/api/content/${t.customerId}`, {
        headers: bearer(t.apiKey),
        body: { type: "blog", body: "b", titel: "typo" }
      })
      assertError(res, 400, "E_VALIDATION")
      assert.include(JSON.stringify(res.json.details), "titel")
      const list = yield* call("GET", `/api/content/${t.customerId}`, { headers: bearer(t.apiKey) })
      assert.deepStrictEqual(list.json.content, [])
    }))

  it.effect("of many concurrent reviews of one piece exactly one approves it, with one approval event", () =>
    Effect.gen(function*() {
      const t = yield* provision()
      for (let round = 0; round < 3; round++) {
        const piece = yield* create(t, { type: "blog", body: `race ${round}` })
        const replies = yield* Effect.all(
          Array.from({ length: 12 }, () =>
            call("POST", `/api/content/${t.customerId}/${piece.id}/review`, {
              headers: bearer(t.apiKey),
              body: { action: "approve" }
            })),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(replies.map((r) => r.status).sort(), [200, ...Array(11).fill(409)])
        const approvals = (yield* events(t)).filter((e) => e.type === "content.approved" && e.data.id === piece.id)
        assert.strictEqual(approvals.length, 1)
      }
    }))

  it.effect(
    "a move waits for a concurrent change of the piece and decides on what it committed",
    () =>
      Effect.gen(function*() {
        const { sql } = yield* TestServer
        const t = yield* provision()
        const piece = yield* create(t, { type: "blog", body: "locked" })
        // A refused move still locked the row it read (SELECT ... FOR UPDATE writes the locker into xmax, even
        // when rolled back): this holds on PGlite as on PostgreSQL, where the wait below is the observable effect.
        yield* call("POST", `/api/content/${t.customerId}/${piece.id}/review`, {
          headers: bearer(t.apiKey),
          body: { action: "approve" }
        })
        const before = yield* sql<{ xmax: string }>`SELECT xmax::text AS xmax FROM content WHERE id = ${piece.id}`
        const refused = yield* call("POST", `/api/content/${t.customerId}/${piece.id}/review`, {
          headers: bearer(t.apiKey),
          body: { action: "approve" }
        })
        assert.strictEqual(refused.status, 409)
        const after = yield* sql<{ xmax: string }>`SELECT xmax::text AS xmax FROM content WHERE id = ${piece.id}`
        assert.notStrictEqual(after[0].xmax, before[0].xmax, "the refused move did not lock the piece")

        const url = externalDatabaseUrl()
        if (url === undefined) return
        // PostgreSQL: another session approves the piece and holds its transaction open while a review arrives.
        // The review must wait and then see `approved` (409), not approve it a second time.
        const second = yield* create(t, { type: "blog", body: "held" })
        const outcome = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`UPDATE content SET status = 'approved' WHERE id = ${second.id}`
          const review = yield* Effect.forkChild(call("POST", `/api/content/${t.customerId}/${second.id}/review`, {
            headers: bearer(t.apiKey),
            body: { action: "approve" }
          }))
          yield* Effect.sleep("400 millis")
          return review
        }))
        const reply = yield* Fiber.join(outcome)
        assertError(reply, 409, "E_INVALID_TRANSITION")
        const approvals = (yield* events(t)).filter((e) => e.type === "content.approved" && e.data.id === second.id)
        assert.strictEqual(approvals.length, 0)
      }),
    { timeout: 30_000 }
  )
})
