import { assert, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import { Services } from "../src/App.ts"
import { AppConfig, appConfig, rateLimitDefaults } from "../src/Config.ts"
import { ContentId, CustomerId } from "../src/domain/Ids.ts"
import { SocialProvider } from "../src/features/social/providers/Provider.ts"
import { type AyrshareFake, type FakePost, startAyrshareFake } from "./support/ayrshare-fake.ts"
import { eventually, sleep } from "./support/eventually.ts"
import { call, testApp, testDatabaseUrl, TestServer } from "./support/harness.ts"
import { assertError, bearer, provision, type Provisioned } from "./support/processes.ts"
import { clockBehind } from "./support/skewed-clock.ts"

class Fake extends Context.Service<Fake, AyrshareFake>()("test/AyrshareFake") {}

/** A local Ayrshare whose history cache lasts `cacheSeconds`. */
const fakeLive = (cacheSeconds: number) =>
  Layer.effect(
    Fake,
    Effect.acquireRelease(
      Effect.promise(() => startAyrshareFake(undefined, cacheSeconds * 1000)),
      (fake) => Effect.promise(() => fake.close())
    )
  )

/**
 * The provider's history cache, shortened from Ayrshare's minute (the service is told the same): the cached-page
 * cases wait for it to turn over, and what they show does not depend on its length, as long as it outlasts what
 * each case needs it to (below).
 */
const historyCacheSeconds = 5

const privateKey = "-----BEGIN RSA PRIVATE KEY-----\nMIIfake\n-----END RSA PRIVATE KEY-----"

const settingsFor = (fake: AyrshareFake, cacheSeconds = historyCacheSeconds) => ({
  socialProvider: "ayrshare" as const,
  ayrshareApiKey: Option.some(Redacted.make(fake.apiKey)),
  ayrsharePrivateKey: Option.some(Redacted.make(privateKey)),
  ayrshareBaseUrl: fake.url,
  ayrshareDomain: "acme",
  ayrshareHistoryCacheSeconds: cacheSeconds,
  publishRetrySchedule: [1, 1, 1, 1],
  publishPollIntervalMs: 50,
  metricsRefreshIntervalMs: 300,
  allowPrivateTargets: true,
  // The tests poll pieces every 50 ms for up to two minutes: the REST limit is not what this file tests.
  rateLimits: { ...rateLimitDefaults, rest: 100_000 }
})

const AppOnFake = Layer.unwrap(Effect.map(Fake, (fake: AyrshareFake) => testApp(settingsFor(fake)))).pipe(
  Layer.provideMerge(fakeLive(historyCacheSeconds))
)

const pieceWhere = (owner: Provisioned, id: string, ok: (piece: any) => boolean) =>
  eventually(Effect.map(
    call("GET", `/api/content/${owner.customerId}/${id}`, { headers: bearer(owner.apiKey) }),
    (res) => (ok(res.json) ? res.json : undefined)
  ))

const attemptsOf = (owner: Provisioned, id: string) =>
  Effect.map(
    call("GET", `/api/social/posts/${owner.customerId}/${id}/attempts`, { headers: bearer(owner.apiKey) }),
    (res) => res.json.attempts as Array<any>
  )

/** Someone reads the long history page now: the provider serves it from its cache until the cache turns over. */
const cacheLongPage = (fake: AyrshareFake, profileKey: string) =>
  Effect.promise(async () => {
    const cached = await fetch(`${fake.url}/api/history?lastDays=0&limit=1000`, {
      headers: { authorization: `Bearer ${fake.apiKey}`, "profile-key": profileKey }
    })
    assert.strictEqual(cached.status, 200)
    await cached.text()
  })

/** The profile posts 25 more after `ours`: the fresh (default, 25-post) history page no longer shows it. */
const postMore = (fake: AyrshareFake, ours: FakePost, name: string) => {
  for (let i = 0; i < 25; i++) {
    fake.posts.push({
      ...ours,
      id: `${name}${i}`,
      post: `${name} ${i}`,
      notes: `herald:cnt_${name}_${i}`,
      created: new Date().toISOString()
    })
  }
}

/** Connects X through Ayrshare's linking page: our link, the person links at Ayrshare, Ayrshare redirects to our callback. */
const connectX = (owner: Provisioned) =>
  Effect.gen(function*() {
    const fake = yield* Fake
    const links = yield* call("POST", `/api/connect/${owner.customerId}`, {
      headers: bearer(owner.apiKey),
      body: { platforms: ["x"] }
    })
    assert.strictEqual(links.status, 200, links.text)
    const link = new URL(links.json.connectLinks.x)
    assert.strictEqual(link.host, "profile.ayrshare.com")
    assert.strictEqual(link.searchParams.get("domain"), "acme")
    const redirect = link.searchParams.get("redirect")!
    assert.include(redirect, "/api/integration/callback?state=")
    const profileKey = [...fake.profiles.entries()].find(([, p]) => p.title === `herald-${owner.customerId}`)![0]
    fake.link(profileKey, ["twitter"])
    const back = yield* call("GET", new URL(redirect).pathname + new URL(redirect).search)
    assert.strictEqual(back.status, 302, back.text)
    assert.strictEqual(back.headers.get("location"), "/dashboard?connected=x#social")
    return profileKey
  })

const publishX = (owner: Provisioned, body: string) =>
  Effect.map(
    call("POST", `/api/social/publish/${owner.customerId}`, {
      headers: bearer(owner.apiKey),
      body: { platform: "x", body }
    }),
    (res) => {
      assert.strictEqual(res.status, 200, res.text)
      return res.json.id as string
    }
  )

/**
 * The opening of the cached-history cases: a connected X profile whose long
 * history page is cached, a post the provider makes while `mode` loses (or
 * delays) its answer, then 25 posts named `others` that push ours off the
 * fresh history page, and the provider answering again.
 */
const lostOnBusyProfile = (mode: AyrshareFake["mode"], body: string, others: string) =>
  Effect.gen(function*() {
    const fake = yield* Fake
    const owner = yield* provision()
    const profileKey = yield* connectX(owner)
    yield* cacheLongPage(fake, profileKey)
    fake.mode = mode
    const posted = fake.nextPost()
    const id = yield* publishX(owner, body)
    const ours = yield* Effect.promise(() => posted)
    postMore(fake, ours, others)
    fake.mode = "up"
    return { fake, owner, id, ours }
  })

layer(AppOnFake, { timeout: 120_000 })("Ayrshare provider through the API", (it) => {
  it.effect("connect: a profile per customer, the JWT linking URL, accounts after the callback", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      const profileKey = yield* connectX(owner)
      const created = fake.requests.filter((r) => r.path === "/api/profiles")
      assert.strictEqual(created.length, 1)
      const jwt = fake.requests.find((r) => r.path === "/api/profiles/generateJWT")!
      assert.deepInclude(jwt.body as object, { domain: "acme", privateKey, profileKey })
      const connections = yield* call("GET", `/api/social/connections/${owner.customerId}`, {
        headers: bearer(owner.apiKey)
      })
      assert.strictEqual(connections.json.connections.x.connected, true)
      assert.strictEqual(connections.json.connections.x.accountName, "twitter user")
      assert.strictEqual(connections.json.connections.linkedin.connected, false)
      // A second connect reuses the profile.
      yield* call("POST", `/api/connect/${owner.customerId}`, {
        headers: bearer(owner.apiKey),
        body: { platforms: ["linkedin"] }
      })
      assert.strictEqual(fake.requests.filter((r) => r.path === "/api/profiles").length, 1)
    }))

  it.effect("publish: posted once with our reference, the provider's URL, and its figures in analytics", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      const profileKey = yield* connectX(owner)
      const id = yield* publishX(owner, "Hello from Herald")
      const piece = yield* pieceWhere(owner, id, (p) => p.status === "published")
      const [post] = fake.postsFor(id)
      assert.strictEqual(fake.postsFor(id).length, 1)
      assert.strictEqual(piece.publishedUrl, `https://social.example/twitter/${post.id}`)
      assert.deepStrictEqual(post.platforms, ["twitter"])
      assert.strictEqual(post.profileKey, profileKey)
      assert.strictEqual(post.post, "Hello from Herald")
      const attempts = yield* attemptsOf(owner, id)
      assert.deepStrictEqual(attempts.map((a) => [a.attempt, a.status, a.provider, a.providerPostId]), [[
        1,
        "sent",
        "ayrshare",
        post.id
      ]])
      const report = yield* eventually(Effect.map(
        call("GET", `/api/analytics/${owner.customerId}`, { headers: bearer(owner.apiKey) }),
        (res) => (res.json.channels.x.impressions > 0 ? res.json : undefined)
      ))
      assert.deepStrictEqual(report.channels.x, { posts: 1, clicks: 0, impressions: 120, engagements: 10, revenue: 0 })
    }))

  it.effect("provider down, then up: retried with backoff, then posted once", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      yield* connectX(owner)
      fake.mode = "down"
      const id = yield* publishX(owner, "Down then up")
      yield* eventually(Effect.map(attemptsOf(owner, id), (a) => (a.length >= 2 ? a : undefined)))
      fake.mode = "up"
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.strictEqual(fake.postsFor(id).length, 1)
      const attempts = yield* attemptsOf(owner, id)
      const statuses = attempts.map((a) => a.status)
      assert.strictEqual(statuses[statuses.length - 1], "sent")
      assert.isTrue(statuses.slice(0, -1).every((s) => s === "failed"))
      assert.match(attempts[0].error, /^provider_unavailable: /)
    }))

  it.effect("an answer lost after the post was made: the retry reconciles, nothing is posted twice", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      yield* connectX(owner)
      fake.mode = "lose-answer"
      const id = yield* publishX(owner, "Lost answer")
      yield* eventually(Effect.map(attemptsOf(owner, id), (a) => (a.length >= 1 ? a : undefined)))
      fake.mode = "up"
      const piece = yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.strictEqual(fake.postsFor(id).length, 1)
      const attempts = yield* attemptsOf(owner, id)
      assert.deepStrictEqual(attempts.map((a) => a.status), ["failed", "reconciled"])
      assert.strictEqual(attempts[1].providerPostId, fake.postsFor(id)[0].id)
      assert.strictEqual(piece.publishedUrl, `https://social.example/twitter/${fake.postsFor(id)[0].id}`)
    }))

  it.effect("a try recorded in the millisecond its claim was made is not taken for one still running", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const fake = yield* Fake
      const owner = yield* provision()
      yield* connectX(owner)
      fake.mode = "up"
      const id = `cnt_same_ms_${owner.customerId.slice(0, 8)}`
      // Its first try was claimed 2 s ago at a time with microseconds (the database's clock) and recorded at
      // that millisecond (the service's clock, read after the claim): a claim answered within a millisecond.
      yield* sql`INSERT INTO content (id, customer_id, type, status, platform, body, metadata)
        VALUES (${id}, ${owner.customerId}, 'social', 'approved', 'x', 'Claimed and recorded in one millisecond',
          '{"media": []}'::jsonb)`
      yield* sql`INSERT INTO publish_jobs (content_id, customer_id, platform, status, due_at, next_attempt_at, attempts,
          last_try_at)
        VALUES (${id}, ${owner.customerId}, 'x', 'queued', now(), now() + interval '1 hour', 1,
          date_trunc('milliseconds', now() - interval '2 seconds') + interval '456 microseconds')`
      yield* sql`INSERT INTO publish_attempts (id, content_id, customer_id, attempt, provider, status, error,
          attempted_at)
        SELECT ${`pat_${id}`}, content_id, customer_id, 1, 'ayrshare', 'failed',
          'provider_unavailable: Ayrshare answered HTTP 502', date_trunc('milliseconds', last_try_at)
        FROM publish_jobs WHERE content_id = ${id}`
      yield* sql`UPDATE publish_jobs SET next_attempt_at = now() WHERE content_id = ${id}`
      // The next claim looks the post up and sends it at once, rather than waiting out the provider's 20 s.
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      const attempts = yield* attemptsOf(owner, id)
      assert.deepStrictEqual(attempts.map((a) => a.status), ["failed", "sent"], JSON.stringify(attempts))
      assert.strictEqual(fake.postsFor(id).length, 1)
    }))

  it.effect("the service's clock 5 s behind the database's: a failed try is retried on schedule, not held as running", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      yield* connectX(owner)
      yield* clockBehind(5_000)
      fake.mode = "down"
      const id = yield* publishX(owner, "Clock behind")
      yield* eventually(Effect.map(attemptsOf(owner, id), (a) => (a.length >= 2 ? a : undefined)))
      fake.mode = "up"
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      const attempts = yield* attemptsOf(owner, id)
      // Recorded in the service's clock, the first try looked unrecorded to the next claim (in the database's),
      // which then waited out the provider's 20 s and 5 s more.
      assert.isFalse(
        attempts.some((a: { error: string | null }) => a.error?.startsWith("try_in_flight")),
        JSON.stringify(attempts)
      )
      assert.strictEqual(attempts[attempts.length - 1].status, "sent")
      assert.strictEqual(fake.postsFor(id).length, 1)
    }).pipe(Effect.scoped))

  it.effect(
    "a lost answer, then a busy profile and a cached history page older than the try: the retry waits for a page that can show the post, never posts twice",
    () =>
      Effect.gen(function*() {
        // Before the first retry (1 s later) the profile posts 25 more: the fresh page no longer shows ours.
        const { fake, id, ours, owner } = yield* lostOnBusyProfile(
          "lose-answer",
          "Lost answer on a busy profile",
          "other"
        )
        const piece = yield* eventually(
          Effect.map(call("GET", `/api/content/${owner.customerId}/${id}`, { headers: bearer(owner.apiKey) }), (res) =>
            res.json.status === "published" ? res.json : undefined),
          110_000
        )
        assert.strictEqual(fake.postsFor(id).length, 1)
        assert.strictEqual(piece.publishedUrl, `https://social.example/twitter/${ours.id}`)
        const attempts = yield* attemptsOf(owner, id)
        const statuses = attempts.map((a) =>
          a.status
        )
        assert.strictEqual(statuses[0], "failed")
        assert.strictEqual(statuses[statuses.length - 1], "reconciled")
        assert.isTrue(
          attempts.slice(1, -1).every((a) => a.status === "failed" && /^history_stale: /.test(a.error)),
          JSON.stringify(attempts)
        )
        assert.isAbove(attempts.length, 2, "the cached page was not believed")
      }),
    150_000
  )

  it.effect("provider refusing: final failure with its cause, the piece stays approved; retry works", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      yield* connectX(owner)
      fake.mode = "refuse"
      const id = yield* publishX(owner, "Refused")
      const events = yield* eventually(Effect.map(
        call("GET", `/api/events/${owner.customerId}`, { headers: bearer(owner.apiKey) }),
        (res) => {
          const failed = res.json.events.find((e: any) => e.type === "publish.failed")
          return failed === undefined ? undefined : failed
        }
      ))
      assert.strictEqual(events.data.contentId, id)
      assert.strictEqual(events.data.platform, "x")
      assert.strictEqual(events.data.cause, "provider_rejected")
      assert.include(events.data.error, "Status is a duplicate")
      const attempts = yield* attemptsOf(owner, id)
      assert.strictEqual(attempts.length, 1)
      assert.strictEqual(attempts[0].status, "failed")
      yield* sleep(300)
      const piece = yield* call("GET", `/api/content/${owner.customerId}/${id}`, { headers: bearer(owner.apiKey) })
      assert.strictEqual(piece.json.status, "approved")

      fake.mode = "up"
      const retried = yield* call("POST", `/api/social/posts/${owner.customerId}/${id}/retry`, {
        headers: bearer(owner.apiKey),
        body: {}
      })
      assert.strictEqual(retried.status, 200, retried.text)
      yield* pieceWhere(owner, id, (p) => p.status === "published")
      assert.strictEqual(fake.postsFor(id).length, 1)
      assertError(
        yield* call("POST", `/api/social/posts/${owner.customerId}/${id}/retry`, {
          headers: bearer(owner.apiKey),
          body: {}
        }),
        409,
        "E_INVALID_TRANSITION"
      )
    }))

  it.effect("the provider down at connect time is a 503, not a broken link", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const owner = yield* provision()
      fake.mode = "down"
      const res = yield* call("POST", `/api/connect/${owner.customerId}`, {
        headers: bearer(owner.apiKey),
        body: { platforms: ["x"] }
      })
      fake.mode = "up"
      assertError(res, 503, "E_UNAVAILABLE")
    }))
})

/**
 * Here the cache must outlast the wait for the slow try (the provider's 20 s request timeout), so that the page
 * read after that wait is still the cached one and is not believed.
 */
const slowTryCacheSeconds = 25

/** The shortest publish settings the configuration accepts: a retry at once, and a claim that lapses after 1 s. */
const ShortestOnFake = Layer.unwrap(
  Effect.map(
    Fake,
    (fake: AyrshareFake) =>
      testApp({ ...settingsFor(fake, slowTryCacheSeconds), publishRetrySchedule: [0], publishLeaseSeconds: 1 })
  )
).pipe(Layer.provideMerge(fakeLive(slowTryCacheSeconds)))

layer(ShortestOnFake, { timeout: 150_000 })("Ayrshare at the shortest accepted publish settings", (it) => {
  it.effect(
    "a slow try outlives its 1 s claim, its answer is lost, the fresh page fills and the long one is cached, with one retry allowed: posted once and published, never failed",
    () =>
      Effect.gen(function*() {
        // The post appears at the provider 3 s into the request: a claim taken over after 1 s that looked now would not see it.
        const { fake, id, ours, owner } = yield* lostOnBusyProfile("late", "Slow provider, short settings", "short")
        // Done when published, or when the publisher gave up (the piece then stays approved, with a publish.failed event).
        const piece = yield* eventually(
          Effect.gen(function*() {
            const res = yield* call("GET", `/api/content/${owner.customerId}/${id}`, { headers: bearer(owner.apiKey) })
            if (res.json.status === "published") return res.json
            yield* sleep(2000)
            const events = yield* call("GET", `/api/events/${owner.customerId}`, { headers: bearer(owner.apiKey) })
            assert.strictEqual(events.status, 200, events.text)
            return events.json.events.some((e: any) => e.type === "publish.failed") ? res.json : undefined
          }),
          120_000
        )
        assert.strictEqual(fake.postsFor(id).length, 1)
        assert.strictEqual(piece.status, "published")
        assert.strictEqual(piece.publishedUrl, `https://social.example/twitter/${ours.id}`)
        const attempts = yield* attemptsOf(owner, id)
        const causes = attempts.map((a) => a.status === "failed" ? String(a.error).split(":")[0] : a.status)
        assert.include(causes, "try_in_flight", JSON.stringify(attempts))
        assert.include(causes, "history_stale", JSON.stringify(attempts))
        assert.strictEqual(causes[causes.length - 1], "reconciled", JSON.stringify(attempts))
        const events = yield* call("GET", `/api/events/${owner.customerId}`, { headers: bearer(owner.apiKey) })
        assert.isFalse(
          events.json.events.some((e: any) => e.type === "publish.failed"),
          JSON.stringify(events.json.events)
        )
      }),
    150_000
  )
})

/** The adapter on its own, against the fake: schedule, delete, accounts, analytics, error bodies. */
const AdapterOnFake = Layer.unwrap(Effect.gen(function*() {
  const fake = yield* Fake
  const base = yield* appConfig.pipe(Effect.orDie)
  const databaseUrl = yield* testDatabaseUrl
  return Services.pipe(Layer.provideMerge(Layer.succeed(AppConfig, {
    ...base,
    ...settingsFor(fake),
    logLevel: "none",
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    redisUrl: Option.none()
  })))
})).pipe(Layer.provideMerge(fakeLive(historyCacheSeconds)))

layer(AdapterOnFake, { timeout: 60_000 })("Ayrshare adapter", (it) => {
  it.effect("schedule, delete, accounts, analytics and error bodies", () =>
    Effect.gen(function*() {
      const fake = yield* Fake
      const provider = yield* SocialProvider
      const sql = yield* (yield* Effect.promise(() => import("effect/sql"))).SqlClient.SqlClient
      const customerId = CustomerId.make("6a1c2f4e-1d5b-4c8e-9f00-1234567890ab")
      yield* sql`INSERT INTO customers (id, email, status) VALUES (${customerId}, 'adapter@example.com', 'active')`
        .pipe(Effect.orDie)
      assert.strictEqual(provider.name, "ayrshare")

      const link = yield* provider.connectLink(
        customerId,
        "linkedin",
        "http://localhost/api/integration/callback?state=s"
      )
      assert.include(link, "jwt=")
      const [profileKey] = [...fake.profiles.keys()]
      assert.deepStrictEqual(yield* provider.accounts(customerId), [])
      fake.link(profileKey, ["linkedin", "twitter", "youtube"])
      assert.deepStrictEqual(
        [...(yield* provider.accounts(customerId))].sort((a, b) => a.platform.localeCompare(b.platform)),
        [{ platform: "linkedin", accountName: "linkedin user" }, { platform: "x", accountName: "twitter user" }]
      )

      const at = new Date(Date.now() + 86_400_000).toISOString()
      const scheduled = yield* provider.publish({
        customerId,
        contentId: ContentId.make("cnt_sched"),
        platform: "linkedin",
        body: "Tomorrow",
        media: ["https://cdn.example.com/a.png"],
        scheduleAt: at
      })
      const stored = fake.posts.find((p) => p.id === scheduled.providerPostId)!
      assert.strictEqual(stored.scheduleDate, at)
      assert.deepStrictEqual(stored.mediaUrls, ["https://cdn.example.com/a.png"])
      assert.strictEqual(stored.notes, "herald:cnt_sched")
      const found = yield* provider.findPost(customerId, ContentId.make("cnt_sched"), "linkedin")
      assert.strictEqual(Option.getOrThrow(found).providerPostId, scheduled.providerPostId)
      assert.isTrue(Option.isNone(yield* provider.findPost(customerId, ContentId.make("cnt_other"), "linkedin")))

      // Reconciliation reads the uncached default page: a long page cached a moment ago cannot hide a new post.
      const before = fake.requests.length
      yield* provider.findPost(customerId, ContentId.make("cnt_later"), "linkedin")
      assert.deepStrictEqual(fake.requests.slice(before).map((r) => r.path), ["/api/history"])
      const later = yield* provider.publish({
        customerId,
        contentId: ContentId.make("cnt_later"),
        platform: "linkedin",
        body: "Later",
        media: ["https://cdn.example.com/a.png"]
      })
      assert.strictEqual(
        Option.getOrThrow(yield* provider.findPost(customerId, ContentId.make("cnt_later"), "linkedin")).providerPostId,
        later.providerPostId
      )
      // A post Ayrshare could not deliver is not there: the publisher must try again.
      fake.posts.find((p) => p.id === later.providerPostId)!.status = "error"
      assert.isTrue(Option.isNone(yield* provider.findPost(customerId, ContentId.make("cnt_later"), "linkedin")))

      const metrics = yield* provider.metrics(customerId, scheduled.providerPostId, "linkedin")
      assert.deepStrictEqual(Option.getOrThrow(metrics), { impressions: 120, engagements: 10 })

      yield* provider.remove(customerId, scheduled.providerPostId)
      assert.strictEqual(stored.status, "deleted")
      assert.isTrue(Option.isNone(yield* provider.findPost(customerId, ContentId.make("cnt_sched"), "linkedin")))

      // Error bodies: a refusal is final and carries Ayrshare's message; an outage is transient.
      fake.mode = "refuse"
      const refused = yield* Effect.exit(
        provider.publish({ customerId, contentId: ContentId.make("cnt_r"), platform: "x", body: "dup", media: [] })
      )
      assert.isTrue(Exit.isFailure(refused))
      const refusal = Exit.isFailure(refused) ? (refused.cause.reasons[0] as any).error : undefined
      assert.strictEqual(refusal.transient, false)
      assert.strictEqual(refusal.cause, "provider_rejected")
      assert.include(refusal.message, "code 110: Status is a duplicate.")
      fake.mode = "down"
      const down = yield* Effect.exit(
        provider.publish({ customerId, contentId: ContentId.make("cnt_d"), platform: "x", body: "x", media: [] })
      )
      const outage = Exit.isFailure(down) ? (down.cause.reasons[0] as any).error : undefined
      assert.strictEqual(outage.transient, true)
      assert.strictEqual(outage.cause, "provider_unavailable")
      fake.mode = "up"
      // A platform not linked at Ayrshare is refused with Ayrshare's error.
      const unlinked = yield* Effect.exit(
        provider.publish({ customerId, contentId: ContentId.make("cnt_u"), platform: "tiktok", body: "x", media: [] })
      )
      assert.include(
        (Exit.isFailure(unlinked) ? (unlinked.cause.reasons[0] as any).error : undefined).message,
        "tiktok is not linked"
      )
      // Every request carried the API key and the customer's profile key.
      for (
        const request of fake.requests.filter((r) =>
          r.path !== "/api/profiles" && r.path !== "/api/profiles/generateJWT"
        )
      ) {
        assert.strictEqual(request.headers["profile-key"], profileKey)
      }
    }))
})
