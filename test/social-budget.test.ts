import { assert, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Option, Redacted } from "effect"
import { rateLimitDefaults } from "../src/Config.ts"
import { type AyrshareFake, startAyrshareFake } from "./support/ayrshare-fake.ts"
import { eventually, sleep } from "./support/eventually.ts"
import { call, externalDatabaseUrl, type Reply, testApp, TestServer } from "./support/harness.ts"
import { httpClient } from "./support/mcp-clients.ts"
import { assertError, bearer, provision, type Provisioned } from "./support/processes.ts"

/**
 * Every path that queues a piece for publication (publish, retry, the MCP
 * tools, a workflow's hand-off after an approval in the dashboard) charges an
 * ad's spend to the same ledger, once per piece, and refuses it past a cap.
 * Ayrshare's fake stands in for the network so that a post can fail for good
 * and be retried.
 */
class Fake extends Context.Service<Fake, AyrshareFake>()("test/AyrshareFake") {}

const FakeLive = Layer.effect(
  Fake,
  Effect.acquireRelease(Effect.promise(() => startAyrshareFake()), (fake) => Effect.promise(() => fake.close()))
)

const AppOnFake = Layer.unwrap(Effect.map(Fake, (fake: AyrshareFake) =>
  testApp({
    socialProvider: "ayrshare",
    ayrshareApiKey: Option.some(Redacted.make(fake.apiKey)),
    ayrsharePrivateKey: Option.some(
      Redacted.make("-----BEGIN RSA PRIVATE KEY-----\nMIIfake\n-----END RSA PRIVATE KEY-----")
    ),
    ayrshareBaseUrl: fake.url,
    ayrshareDomain: "acme",
    publishRetrySchedule: [1, 1, 1, 1],
    publishPollIntervalMs: 50,
    workflowBudgetRetrySeconds: 1,
    workflowPollIntervalMs: 200,
    // The tests poll pieces through the API every 50 ms: at the default 60 a minute the answer they wait for would come only with the next window.
    rateLimits: { ...rateLimitDefaults, admin: 100, rest: 100_000 }
  }))).pipe(Layer.provideMerge(FakeLive))

/** Links X at the fake's page and comes back through our callback (the network up). */
const connectX = (owner: Provisioned) =>
  Effect.gen(function*() {
    const fake = yield* Fake
    // Each test starts with the network up, whatever an earlier one left.
    fake.mode = "up"
    const links = yield* call("POST", `/api/connect/${owner.customerId}`, {
      headers: bearer(owner.apiKey),
      body: { platforms: ["x"] }
    })
    assert.strictEqual(links.status, 200, links.text)
    const redirect = new URL(new URL(links.json.connectLinks.x).searchParams.get("redirect")!)
    const profileKey = [...fake.profiles.entries()].find(([, p]) => p.title === `herald-${owner.customerId}`)![0]
    fake.link(profileKey, ["twitter"])
    const back = yield* call("GET", redirect.pathname + redirect.search)
    assert.strictEqual(back.status, 302, back.text)
  })

const capAt = (owner: Provisioned, budget: Record<string, unknown>) =>
  Effect.map(
    call("PUT", `/api/settings/${owner.customerId}/budget`, { headers: bearer(owner.apiKey), body: budget }),
    (res) => {
      assert.strictEqual(res.status, 200, res.text)
    }
  )

/** The customer's ledger rows: which piece, which channel, how much. */
const ledger = (owner: Provisioned) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    const rows = yield* sql<{ contentId: string | null; channel: string; amount: string }>`
      SELECT content_id, channel, amount::text AS amount FROM spend_ledger WHERE customer_id = ${owner.customerId} ORDER BY id`
      .pipe(Effect.orDie)
    return rows.map((r) => [r.contentId, r.channel, Number(r.amount)])
  })

/** The customer's queue rows: which piece, in which state. */
const queued = (owner: Provisioned) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    const rows = yield* sql<{ contentId: string; status: string }>`
      SELECT content_id, status FROM publish_jobs WHERE customer_id = ${owner.customerId} ORDER BY created_at`.pipe(
      Effect.orDie
    )
    return rows.map((r) => [r.contentId, r.status])
  })

const contentCount = (owner: Provisioned) =>
  Effect.map(
    call("GET", `/api/content/${owner.customerId}`, { headers: bearer(owner.apiKey) }),
    (res) => res.json.content.length as number
  )

const pieceWhere = (owner: Provisioned, id: string, ok: (piece: any) => boolean, ms = 30_000) =>
  eventually(
    Effect.map(
      call("GET", `/api/content/${owner.customerId}/${id}`, { headers: bearer(owner.apiKey) }),
      (res) => (ok(res.json) ? res.json : undefined)
    ),
    ms
  )

const retry = (owner: Provisioned, id: string): Effect.Effect<Reply, never, TestServer> =>
  call("POST", `/api/social/posts/${owner.customerId}/${id}/retry`, { headers: bearer(owner.apiKey), body: {} })

const cancel = (owner: Provisioned, id: string): Effect.Effect<Reply, never, TestServer> =>
  call("POST", `/api/social/posts/${owner.customerId}/${id}/cancel`, { headers: bearer(owner.apiKey), body: {} })

/** The status of the piece's queue row once no try holds it (a try in flight has ended, whatever its outcome). */
const unclaimed = (id: string) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    return yield* eventually(
      Effect.map(
        sql<{ status: string }>`
          SELECT status FROM publish_jobs WHERE content_id = ${id} AND locked_until IS NULL`.pipe(Effect.orDie),
        (rows) => rows[0]?.status
      ),
      30_000
    )
  })

const attemptStatuses = (owner: Provisioned, id: string) =>
  Effect.map(
    call("GET", `/api/social/posts/${owner.customerId}/${id}/attempts`, { headers: bearer(owner.apiKey) }),
    (res) => (res.json.attempts as Array<{ status: string }>).map((a) => a.status)
  )

/** An approved ad written by a person (never queued): the path publish does not take. */
const approvedAd = (owner: Provisioned, spend: number) =>
  Effect.gen(function*() {
    const created = yield* call("POST", `/api/content/${owner.customerId}`, {
      headers: bearer(owner.apiKey),
      body: { type: "ad", platform: "x", body: `Ad worth ${spend}`, metadata: { spend }, submit: true }
    })
    assert.strictEqual(created.status, 200, created.text)
    const approved = yield* call("POST", `/api/content/${owner.customerId}/${created.json.id}/review`, {
      headers: bearer(owner.apiKey),
      body: { action: "approve" }
    })
    assert.strictEqual(approved.status, 200, approved.text)
    return created.json.id as string
  })

/**
 * An ad of 40 queued by a retry whose try the fake holds at the network, then cancelled (200) while held;
 * under a monthly cap of 100 when `capped`.
 */
const cancelledWhileHeld = (capped: boolean) =>
  Effect.gen(function*() {
    const fake = yield* Fake
    const owner = yield* provision()
    yield* connectX(owner)
    if (capped) yield* capAt(owner, { monthly: 100 })
    const id = yield* approvedAd(owner, 40)
    const gate = fake.gate()
    assert.strictEqual((yield* retry(owner, id)).status, 200)
    assert.strictEqual(yield* Effect.promise(() => gate.reached), "POST /api/post")
    const cancelled = yield* cancel(owner, id)
    assert.strictEqual(cancelled.status, 200, cancelled.text)
    return { fake, owner, id, gate, cancelled }
  })

const refusal = (spend: number, cap: string, limit: number, spent: number) =>
  `Spending ${spend} would pass the ${cap} budget cap of ${limit} (already spent ${spent})`

layer(AppOnFake, { timeout: 180_000 })("ad budget on every publishing path", (it) => {
  it.effect("publishing an approved ad by its route: refused past the cap with nothing queued or charged; charged once however often it is queued", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      yield* connectX(owner)
      yield* capAt(owner, { channels: { ads: 25 } })
      const id = yield* approvedAd(owner, 30)
      const publishIt = (body: unknown) =>
        call("POST", `/api/social/posts/${owner.customerId}/${id}/publish`, { headers: h, body })
      assertError(yield* publishIt({}), 403, "E_BUDGET_EXCEEDED", refusal(30, "ads channel", 25, 0))
      assert.deepStrictEqual(yield* queued(owner), [])
      assert.deepStrictEqual(yield* ledger(owner), [])

      yield* capAt(owner, { channels: { ads: 50 } })
      const later = new Date(Date.now() + 3600_000).toISOString()
      const scheduled = yield* publishIt({ scheduledAt: later })
      assert.strictEqual(scheduled.status, 200, scheduled.text)
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 30]])
      // Taken off the queue and published now: queued again, charged nothing more (another 30 would pass 50).
      const cancelled = yield* call("POST", `/api/social/posts/${owner.customerId}/${id}/cancel`, {
        headers: h,
        body: {}
      })
      assert.strictEqual(cancelled.status, 200, cancelled.text)
      const now = yield* publishIt({})
      assert.strictEqual(now.status, 200, now.text)
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.strictEqual(fake.postsFor(id).length, 1)
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 30]])
    }))

  it.effect("publish: past the cap nothing is created, queued or charged; under it charged once, even after a final failure and a retry", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      const h = bearer(owner.apiKey)
      yield* connectX(owner)
      yield* capAt(owner, { channels: { ads: 25 } })

      const over = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
        headers: h,
        body: { platform: "x", body: "Too dear", spend: 30 }
      })
      assertError(over, 403, "E_BUDGET_EXCEEDED", refusal(30, "ads channel", 25, 0))
      assert.strictEqual(yield* contentCount(owner), 0)
      assert.deepStrictEqual(yield* queued(owner), [])
      assert.deepStrictEqual(yield* ledger(owner), [])

      fake.mode = "refuse"
      const ok = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
        headers: h,
        body: { platform: "x", body: "Spring sale", spend: 20 }
      })
      assert.strictEqual(ok.status, 200, ok.text)
      const id = ok.json.id as string
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 20]])
      // The network refuses it for good: the piece stays approved with its job failed.
      yield* eventually(Effect.map(queued(owner), (rows) => (rows[0]?.[1] === "failed" ? rows : undefined)), 30_000)
      assert.strictEqual((yield* pieceWhere(owner, id, () => true)).status, "approved")

      // Retried after the failure: queued again, not charged again (a second 20 would pass the cap of 25).
      fake.mode = "up"
      const again = yield* retry(owner, id)
      assert.strictEqual(again.status, 200, again.text)
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.strictEqual(fake.postsFor(id).length, 1)
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 20]])

      // The charge counts against the cap: 10 more would pass it.
      assertError(
        yield* call("POST", `/api/social/publish/${owner.customerId}`, {
          headers: h,
          body: { platform: "x", body: "More", spend: 10 }
        }),
        403,
        "E_BUDGET_EXCEEDED",
        refusal(10, "ads channel", 25, 20)
      )
      assert.strictEqual(yield* contentCount(owner), 1)
      // An amount no ledger row can hold is refused, not a server error.
      const huge = yield* call("POST", `/api/social/publish/${owner.customerId}`, {
        headers: h,
        body: { platform: "x", body: "Huge", spend: 1e15 }
      })
      assertError(
        huge,
        403,
        "E_BUDGET_EXCEEDED",
        "Spending 1000000000000000 is more than any budget can record (at most 99999999999999)"
      )
      assert.strictEqual(yield* contentCount(owner), 1)
    }))

  it.effect("ads published at once by one customer: exactly those that fit the cap are charged and queued, the rest refused", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      yield* connectX(owner)
      yield* capAt(owner, { daily: 30 })
      const replies = yield* Effect.all(
        Array.from(
          { length: 6 },
          (_, i) =>
            call("POST", `/api/social/publish/${owner.customerId}`, {
              headers: bearer(owner.apiKey),
              body: { platform: "x", body: `Ad ${i}`, spend: 10 }
            })
        ),
        { concurrency: "unbounded" }
      )
      const statuses = replies.map((r) => r.status).sort()
      assert.deepStrictEqual(statuses, [200, 200, 200, 403, 403, 403], replies.map((r) => r.text).join("\n"))
      for (const refused of replies.filter((r) => r.status === 403)) {
        assertError(refused, 403, "E_BUDGET_EXCEEDED", refusal(10, "daily", 30, 30))
      }
      const accepted = replies.filter((r) => r.status === 200).map((r) => r.json.id as string).sort()
      assert.deepStrictEqual(
        (yield* ledger(owner)).map((row) => [row[0], row[2]]).sort(),
        accepted.map((id) => [id, 10])
      )
      assert.deepStrictEqual((yield* queued(owner)).map((row) => row[0]).sort(), accepted)
      assert.strictEqual(yield* contentCount(owner), 3)
    }))

  it.effect("retry of an approved ad never queued: refused past the monthly cap with nothing queued; charged once when it fits, however often retried", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      yield* connectX(owner)
      yield* capAt(owner, { monthly: 30 })
      const id = yield* approvedAd(owner, 40)

      assertError(yield* retry(owner, id), 403, "E_BUDGET_EXCEEDED", refusal(40, "monthly", 30, 0))
      assert.deepStrictEqual(yield* queued(owner), [])
      assert.deepStrictEqual(yield* ledger(owner), [])
      const untouched = yield* pieceWhere(owner, id, () => true)
      assert.deepStrictEqual([untouched.status, untouched.scheduledAt], ["approved", null])

      // Two retries at once: one charge between them. The network is down meanwhile, so the piece waits on the queue.
      yield* capAt(owner, { monthly: 100 })
      fake.mode = "down"
      const both = yield* Effect.all([retry(owner, id), retry(owner, id)], { concurrency: 2 })
      assert.deepStrictEqual(both.map((r) => r.status), [200, 200], both.map((r) => r.text).join("\n"))
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
      // Cancelled and queued again before it went out: still the one charge.
      const cancelled = yield* cancel(owner, id)
      assert.strictEqual(cancelled.status, 200, cancelled.text)
      // A try the cancel caught in flight ends as the network answers it (a post it made would be published):
      // the network comes back only once that try has failed.
      assert.strictEqual(yield* unclaimed(id), "cancelled")
      fake.mode = "up"
      assert.strictEqual((yield* retry(owner, id)).status, 200)
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
      assertError(yield* retry(owner, id), 409, "E_INVALID_TRANSITION")
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
    }))

  it.effect("retries and cancels of one ad at once, with the publisher trying it meanwhile: only 200s and 409s, charged once", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      yield* connectX(owner)
      const id = yield* approvedAd(owner, 40)
      // The network down: every claim fails fast and records its try while the next requests arrive.
      fake.mode = "down"
      const replies: Array<Reply> = []
      for (let round = 0; round < 8; round++) {
        replies.push(
          ...(yield* Effect.all([retry(owner, id), retry(owner, id), retry(owner, id), cancel(owner, id)], {
            concurrency: "unbounded"
          }))
        )
        yield* sleep(60)
      }
      const unexpected = replies.filter((r) => r.status !== 200)
      assert.deepStrictEqual(unexpected.map((r) => r.status), [], unexpected.map((r) => r.text).join("\n"))
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
      // The network back: a retry queues it, unless a claim of the last queueing got there first (then 409).
      fake.mode = "up"
      const back = yield* retry(owner, id)
      assert.include([200, 409], back.status, back.text)
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.strictEqual(fake.postsFor(id).length, 1)
      const late = yield* Effect.all([retry(owner, id), retry(owner, id)], { concurrency: 2 })
      for (const reply of late) assertError(reply, 409, "E_INVALID_TRANSITION")
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
    }))

  // Two sessions must wait for each other: PGlite serves one at a time.
  it.effect.skipIf(externalDatabaseUrl() === undefined)(
    "a retry while the publisher records a try of the same ad (its attempt written, the queue row next): 200, not a deadlock's 500",
    () =>
      Effect.gen(function*() {
        const { sql } = yield* TestServer
        const fake = yield* Fake
        const owner = yield* provision()
        yield* connectX(owner)
        const id = yield* approvedAd(owner, 40)
        // Queued once and failed for good, so the retry finds its queue row.
        fake.mode = "refuse"
        assert.strictEqual((yield* retry(owner, id)).status, 200)
        yield* eventually(Effect.map(queued(owner), (rows) => (rows[0]?.[1] === "failed" ? rows : undefined)), 30_000)
        fake.mode = "down"

        // The publisher's way of recording a try, held between its two statements on a session of its own:
        // the attempt (which key-share locks the piece's row) is written, the queue row is updated next.
        const attemptWritten = yield* Deferred.make<number>()
        const goOn = yield* Deferred.make<void>()
        const publisher = yield* Effect.forkChild(
          Effect.gen(function*() {
            const [{ pid }] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
            yield* sql`INSERT INTO publish_attempts (id, content_id, customer_id, attempt, provider, status, error)
              VALUES (${`pat_held_${id}`}, ${id}, ${owner.customerId}, 1, 'ayrshare', 'failed', 'held by the test')`
            yield* Deferred.succeed(attemptWritten, pid)
            yield* Deferred.await(goOn)
            yield* sql`UPDATE publish_jobs SET last_error = 'held by the test' WHERE content_id = ${id}`
          }).pipe(sql.withTransaction, Effect.orDie)
        )
        const holder = yield* Deferred.await(attemptWritten)
        const retried = yield* Effect.forkChild(retry(owner, id))
        // The retry runs until it waits for the held session, or to its end.
        yield* eventually(
          Effect.gen(function*() {
            if (retried.pollUnsafe() !== undefined) return true
            const waiting = yield* sql`SELECT 1 FROM pg_stat_activity WHERE ${holder} = ANY (pg_blocking_pids(pid))`
              .pipe(Effect.orDie)
            return waiting.length > 0 ? true : undefined
          }),
          10_000
        )
        yield* Deferred.succeed(goOn, undefined)
        const reply = yield* Fiber.join(retried)
        yield* Fiber.join(publisher)
        assert.strictEqual(reply.status, 200, reply.text)
        assert.deepStrictEqual([reply.json.status, reply.json.scheduledAt], ["approved", null])
        assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
      }),
    60_000
  )

  it.effect("a cancel while a try is in flight: the try failing leaves the post cancelled, never sent later; a retry queues it once, charged once", () =>
    Effect.gen(function*() {
      const { fake, owner, id, gate, cancelled } = yield* cancelledWhileHeld(true)
      assert.deepStrictEqual([cancelled.json.status, cancelled.json.scheduledAt], ["approved", null])
      fake.mode = "down"
      gate.open()
      assert.strictEqual(yield* unclaimed(id), "cancelled")
      assert.deepStrictEqual(yield* attemptStatuses(owner, id), ["failed"])
      // The network back, past the retry schedule and many polls: nothing goes out.
      fake.mode = "up"
      yield* sleep(3000)
      assert.deepStrictEqual(fake.postsFor(id), [])
      assert.deepStrictEqual(yield* queued(owner), [[id, "cancelled"]])
      assert.deepStrictEqual(yield* attemptStatuses(owner, id), ["failed"])
      const piece = yield* pieceWhere(owner, id, () => true)
      assert.deepStrictEqual([piece.status, piece.scheduledAt], ["approved", null])

      const again = yield* retry(owner, id)
      assert.strictEqual(again.status, 200, again.text)
      assert.deepStrictEqual(yield* queued(owner), [[id, "queued"]])
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.strictEqual(fake.postsFor(id).length, 1)
      assert.deepStrictEqual(yield* queued(owner), [[id, "published"]])
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
    }))

  it.effect("a cancel while a try is in flight: the try succeeding is still recorded published, once; a retry is then 409", () =>
    Effect.gen(function*() {
      const { fake, owner, id, gate } = yield* cancelledWhileHeld(true)
      gate.open()
      const published = yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.strictEqual(published.publishedUrl, `https://social.example/twitter/${fake.postsFor(id)[0]!.id}`)
      assert.strictEqual(yield* unclaimed(id), "published")
      yield* sleep(1500)
      assert.strictEqual(fake.postsFor(id).length, 1)
      assert.deepStrictEqual(yield* attemptStatuses(owner, id), ["sent"])
      assertError(yield* retry(owner, id), 409, "E_INVALID_TRANSITION")
      assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
    }))

  it.effect(
    "a retry while the cancelled try is still in flight: the post goes out once, found rather than sent again",
    () =>
      Effect.gen(function*() {
        const { fake, owner, id, gate } = yield* cancelledWhileHeld(false)
        const again = yield* retry(owner, id)
        assert.strictEqual(again.status, 200, again.text)
        // Polls of the queue come and go while the first try is held: none may send the post again.
        yield* sleep(1500)
        gate.open()
        // Not before the held try could have ended (the provider's longest try, 20 s): then found, not sent.
        const published = yield* pieceWhere(owner, id, (p) => p.status === "published", 60_000)
        const posts = fake.postsFor(id)
        assert.strictEqual(posts.length, 1)
        assert.strictEqual(published.publishedUrl, `https://social.example/twitter/${posts[0]!.id}`)
        assert.strictEqual(yield* unclaimed(id), "published")
        assert.deepStrictEqual((yield* attemptStatuses(owner, id)).filter((s) => s !== "failed"), [
          "sent",
          "reconciled"
        ])
        assert.deepStrictEqual(yield* ledger(owner), [[id, "ads", 40]])
      }),
    90_000
  )

  it.effect("MCP publish_to_social and schedule_content (official SDK client): refused past a cap with nothing queued; each piece charged once", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const owner = yield* provision()
      yield* connectX(owner)
      yield* capAt(owner, { channels: { ads: 15 } })
      const client = yield* httpClient(url, owner.apiKey)
      const tool = (name: string, args: Record<string, unknown>) =>
        Effect.promise(() =>
          client.callTool({ name, arguments: { customerId: owner.customerId, platform: "x", ...args } }, undefined, {
            timeout: 60_000
          })
        ) as Effect.Effect<any>
      const text = (result: any): string => result.content.map((c: any) => c.text).join("\n")
      const refused = (result: any, expected: string) => {
        assert.isTrue(result.isError, text(result))
        assert.strictEqual(result.structuredContent.code, "E_BUDGET_EXCEEDED", text(result))
        assert.strictEqual(text(result), `E_BUDGET_EXCEEDED: ${expected}`)
      }
      const later = new Date(Date.now() + 3_600_000).toISOString()

      refused(yield* tool("publish_to_social", { body: "Now, too dear", spend: 20 }), refusal(20, "ads channel", 15, 0))
      refused(
        yield* tool("schedule_content", { body: "Later, too dear", spend: 20, scheduledAt: later }),
        refusal(20, "ads channel", 15, 0)
      )
      assert.strictEqual(yield* contentCount(owner), 0)
      assert.deepStrictEqual(yield* queued(owner), [])
      assert.deepStrictEqual(yield* ledger(owner), [])

      const scheduled = yield* tool("schedule_content", { body: "Later", spend: 10, scheduledAt: later })
      assert.notStrictEqual(scheduled.isError, true, text(scheduled))
      const now = yield* tool("publish_to_social", { body: "Now", spend: 5 })
      assert.notStrictEqual(now.isError, true, text(now))
      const ids = [scheduled.structuredContent.id, now.structuredContent.id]
      assert.deepStrictEqual(yield* ledger(owner), [[ids[0], "ads", 10], [ids[1], "ads", 5]])
      refused(yield* tool("publish_to_social", { body: "One more", spend: 1 }), refusal(1, "ads channel", 15, 15))
      // A retry of the scheduled one queues it now without a second charge.
      assert.strictEqual((yield* retry(owner, ids[0])).status, 200)
      assert.deepStrictEqual(yield* ledger(owner), [[ids[0], "ads", 10], [ids[1], "ads", 5]])
      assert.strictEqual(yield* contentCount(owner), 2)
    }))

  it.effect(
    "a workflow's hand-off after an approval in the dashboard: past the cap the run suspends on budget with nothing queued; under it the ad is charged once",
    () =>
      Effect.gen(function*() {
        const { sql, url } = yield* TestServer
        const fake = yield* Fake
        const owner = yield* provision()
        const h = bearer(owner.apiKey)
        yield* connectX(owner)
        yield* capAt(owner, { channels: { ads: 20 } })
        yield* call("PUT", `/api/workflows/${owner.customerId}/daily-social-posts`, {
          headers: h,
          body: { config: { platforms: ["x"] } }
        })
        const started = yield* call("POST", `/api/workflows/${owner.customerId}/daily-social-posts/run`, {
          headers: h,
          body: {}
        })
        assert.strictEqual(started.status, 200, started.text)
        const runId = started.json.runId as string
        const run = () =>
          Effect.map(call("GET", `/api/runs/${owner.customerId}/${runId}`, { headers: h }), (res) => res.json)
        const stateOf = () =>
          Effect.map(
            sql<
              { status: string; waitingFor: string | null }
            >`SELECT status, waiting_for FROM workflow_runs WHERE id = ${runId}`.pipe(Effect.orDie),
            (rows) => rows[0]!
          )
        yield* eventually(Effect.map(stateOf(), (s) => (s.waitingFor === "approval" ? s : undefined)), 30_000)
        const [piece] = (yield* call("GET", `/api/content/${owner.customerId}`, { headers: h })).json.content as Array<
          any
        >
        // No catalog workflow writes ads today; the run's piece is made one (with a spend) as an ad-writing step would.
        yield* sql`UPDATE content SET type = 'ad', metadata = jsonb_set(metadata::jsonb, '{spend}', '30')::json WHERE id = ${piece.id}`

        // Approved in the dashboard: signed in with the key, the form with its CSRF token.
        const signedIn = yield* call("POST", "/dashboard", {
          headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
          body: new URLSearchParams({ apiKey: owner.apiKey }).toString(),
          raw: true
        })
        assert.strictEqual(signedIn.status, 303, signedIn.text)
        const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!
        const page = yield* call("GET", "/dashboard", { headers: { cookie } })
        const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!
        const approved = yield* call("POST", `/dashboard/content/${piece.id}/review`, {
          headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: url },
          body: new URLSearchParams({ action: "approve", _csrf: csrf }).toString(),
          raw: true
        })
        assert.strictEqual(approved.status, 303, approved.text)

        const suspended = yield* eventually(
          Effect.map(stateOf(), (s) => (s.waitingFor === "budget" ? s : undefined)),
          30_000
        )
        assert.deepStrictEqual(suspended, { status: "suspended", waitingFor: "budget" })
        const detail = yield* run()
        const handOff = detail.steps.find((s: any) => s.name === "hand-to-publisher")
        assert.strictEqual(handOff.status, "failed")
        assert.strictEqual(
          handOff.error,
          `could not hand ${piece.id} to the publisher: ${refusal(30, "ads channel", 20, 0)}`
        )
        const events = (yield* call("GET", `/api/events/${owner.customerId}?limit=200`, { headers: h })).json
          .events as Array<any>
        const budgetWait = events.find((e) => e.type === "workflow.suspended" && e.data.waitingFor === "budget")
        assert.include(budgetWait.data.reason, refusal(30, "ads channel", 20, 0))
        assert.deepStrictEqual(yield* queued(owner), [])
        assert.deepStrictEqual(yield* ledger(owner), [])
        assert.strictEqual((yield* pieceWhere(owner, piece.id, () => true)).status, "approved")

        // The cap raised: the run goes on by itself, hands the ad off, and it is charged once and posted once.
        yield* capAt(owner, { channels: { ads: 100 } })
        const done = yield* eventually(
          Effect.map(run(), (r) => (r.status === "succeeded" || r.status === "failed" ? r : undefined)),
          60_000
        )
        assert.strictEqual(done.status, "succeeded", JSON.stringify(done))
        yield* pieceWhere(owner, piece.id, (p) => p.status === "published")
        assert.strictEqual(fake.postsFor(piece.id).length, 1)
        assert.deepStrictEqual(yield* ledger(owner), [[piece.id, "ads", 30]])
      }),
    150_000
  )
})
