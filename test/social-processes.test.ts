import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { type AyrshareFake, startAyrshareFake } from "./support/ayrshare-fake.ts"
import { externalDatabaseUrl, send } from "./support/harness.ts"
import { provisionAt, type ServerProcess, sharedDatabase, startServer, withSql } from "./support/processes.ts"

/**
 * Real server processes (`node src/main.ts`) publishing through Ayrshare (the
 * local fake, which counts posts) from one database.
 */
class Shared
  extends Context.Service<Shared, { readonly database: string; readonly fake: AyrshareFake }>()("test/SocialShared")
{}

const SharedLive = Layer.effect(
  Shared,
  Effect.gen(function*() {
    const database = yield* sharedDatabase
    const fake = yield* Effect.acquireRelease(
      Effect.promise(() => startAyrshareFake()),
      (f) => Effect.promise(() => f.close())
    )
    return { database, fake }
  })
)

const server = (database: string, fake: AyrshareFake, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      startServer({
        env: {
          DATABASE_URL: database,
          ADMIN_SECRET: "test-admin-secret",
          ALLOW_PRIVATE_TARGETS: "true",
          TRUST_PROXY: "true",
          LOG_LEVEL: "error",
          PG_MAX_CONNECTIONS: externalDatabaseUrl() === undefined ? "1" : "4",
          SOCIAL_PROVIDER: "ayrshare",
          AYRSHARE_API_KEY: fake.apiKey,
          AYRSHARE_PRIVATE_KEY: "private",
          AYRSHARE_BASE_URL: fake.url,
          PUBLISH_RETRY_SCHEDULE: "1,1,1,1",
          PUBLISH_POLL_INTERVAL_MS: "50",
          PUBLISH_LEASE_SECONDS: "2",
          ...env
        }
      })
    ),
    (process) => Effect.promise(() => process.kill(500))
  )

const killHard = (process: ServerProcess) =>
  Effect.promise(() =>
    new Promise<void>((resolve) => {
      if (process.child.exitCode !== null || process.child.signalCode !== null) return resolve()
      process.child.once("exit", () => resolve())
      process.child.kill("SIGKILL")
    })
  )

/** A customer with X connected: an Ayrshare profile at the fake with twitter linked, recorded in the database. */
const customerWithX = (app: ServerProcess, database: string, fake: AyrshareFake) =>
  Effect.gen(function*() {
    const owner = yield* Effect.promise(() => provisionAt(app))
    const profileKey = `PK-${randomUUID()}`
    fake.profiles.set(profileKey, {
      title: `herald-${owner.customerId}`,
      refId: randomUUID(),
      linked: new Set(["twitter"])
    })
    yield* withSql(database, (sql) =>
      Effect.andThen(
        sql`INSERT INTO social_profiles (customer_id, provider, profile_key) VALUES (${owner.customerId}, 'ayrshare', ${profileKey})`,
        sql`INSERT INTO social_connections (customer_id, platform, account_name) VALUES (${owner.customerId}, 'x', 'acme')`
      ))
    return owner
  })

const waitUntil = (check: () => Promise<boolean>, ms: number) =>
  Effect.promise(async () => {
    const deadline = Date.now() + ms
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error("condition not met in time")
      await new Promise((r) => setTimeout(r, 100))
    }
  })

layer(SharedLive, { timeout: 120_000, excludeTestServices: true })("publishing across processes", (it) => {
  it.effect(
    "kill -9 between the provider's answer and our record: the next process reconciles at start-up, not after the lease, no second post",
    () =>
      Effect.gen(function*() {
        const { database, fake } = yield* Shared
        // A lease of an hour: only the next process's start-up reconciliation can record the post in this test's time.
        const lease = { PUBLISH_LEASE_SECONDS: "3600" }
        const first = yield* server(database, fake, lease)
        const owner = yield* customerWithX(first, database, fake)
        fake.mode = "hold"
        const posted = fake.nextPost()
        const res = yield* Effect.promise(() =>
          send(first.url, "POST", `/api/social/publish/${owner.customerId}`, {
            headers: { authorization: `Bearer ${owner.apiKey}` },
            body: { platform: "x", body: "Crash between sent and recorded" }
          })
        )
        assert.strictEqual(res.status, 200, res.text)
        const contentId: string = res.json.id
        // Ayrshare has the post; our process dies before it hears back.
        yield* Effect.promise(() => posted)
        yield* killHard(first)
        fake.mode = "up"
        assert.strictEqual(fake.postsFor(contentId).length, 1)

        const second = yield* server(database, fake, lease)
        const get = (path: string) =>
          send(second.url, "GET", path, { headers: { authorization: `Bearer ${owner.apiKey}` } })
        yield* waitUntil(
          async () => (await get(`/api/content/${owner.customerId}/${contentId}`)).json.status === "published",
          30_000
        )
        assert.strictEqual(fake.postsFor(contentId).length, 1)
        const piece = (yield* Effect.promise(() => get(`/api/content/${owner.customerId}/${contentId}`))).json
        assert.strictEqual(piece.publishedUrl, `https://social.example/twitter/${fake.postsFor(contentId)[0].id}`)
        const attempts = (yield* Effect.promise(() =>
          get(`/api/social/posts/${owner.customerId}/${contentId}/attempts`)
        )).json.attempts
        assert.deepStrictEqual(attempts.map((a: any) => [a.attempt, a.status]), [[2, "reconciled"]])
      }),
    100_000
  )

  /**
   * A post queued in a first process, its try held at the provider, cancelled (200) while held, then the process
   * killed: nothing of that process is left to record how the try ended.
   */
  const cancelledInFlightThenKilled = (env: Record<string, string>) =>
    Effect.gen(function*() {
      const { database, fake } = yield* Shared
      fake.mode = "up"
      const first = yield* server(database, fake, env)
      const owner = yield* customerWithX(first, database, fake)
      const auth = { authorization: `Bearer ${owner.apiKey}` }
      const gate = fake.gate()
      const res = yield* Effect.promise(() =>
        send(first.url, "POST", `/api/social/publish/${owner.customerId}`, {
          headers: auth,
          body: { platform: "x", body: "Cancelled while with the provider" }
        })
      )
      assert.strictEqual(res.status, 200, res.text)
      const contentId: string = res.json.id
      assert.strictEqual(yield* Effect.promise(() => gate.reached), "POST /api/post")
      const cancelled = yield* Effect.promise(() =>
        send(first.url, "POST", `/api/social/posts/${owner.customerId}/${contentId}/cancel`, {
          headers: auth,
          body: {}
        })
      )
      assert.strictEqual(cancelled.status, 200, cancelled.text)
      yield* killHard(first)
      return { database, fake, owner, contentId, gate }
    })

  /** The post went out after all: a fresh process records it published, with the provider's id, once. */
  const recordedOnce = (
    env: Record<string, string>
  ) =>
    Effect.gen(function*() {
      const { database, fake, owner, contentId, gate } = yield* cancelledInFlightThenKilled(env)
      // The held request goes on and the provider makes the post; its answer reaches no one.
      gate.open()
      yield* waitUntil(async () => fake.postsFor(contentId).length === 1, 10_000)
      const [post] = fake.postsFor(contentId)

      const second = yield* server(database, fake, env)
      const get = (path: string) =>
        Effect.promise(() => send(second.url, "GET", path, { headers: { authorization: `Bearer ${owner.apiKey}` } }))
      yield* waitUntil(
        async () =>
          (await send(second.url, "GET", `/api/content/${owner.customerId}/${contentId}`, {
            headers: { authorization: `Bearer ${owner.apiKey}` }
          })).json.status === "published",
        30_000
      )
      const piece = (yield* get(`/api/content/${owner.customerId}/${contentId}`)).json
      assert.strictEqual(piece.publishedUrl, `https://social.example/twitter/${post!.id}`)
      const [job] = yield* withSql(database, (sql) =>
        sql<{ status: string; providerPostId: string; lockedUntil: Date | null }>`
          SELECT status, provider_post_id, locked_until FROM publish_jobs WHERE content_id = ${contentId}`)
      assert.deepStrictEqual(job, { status: "published", providerPostId: post!.id, lockedUntil: null })
      // Several sweeps later: still one post, one record of it.
      yield* Effect.sleep("2 seconds")
      assert.strictEqual(fake.postsFor(contentId).length, 1)
      const attempts = (yield* get(`/api/social/posts/${owner.customerId}/${contentId}/attempts`)).json.attempts
      assert.deepStrictEqual(attempts.map((a: any) => [a.attempt, a.status, a.providerPostId]), [[
        2,
        "reconciled",
        post!.id
      ]])
    })

  it.effect(
    "kill -9 while a cancelled post's try is with the provider, its lease lapsed: the next process finds the post and records it published, once",
    () => recordedOnce({}),
    100_000
  )

  it.effect(
    "kill -9 while a cancelled post's try is with the provider, its lease still running: recorded at the next process's start",
    () => recordedOnce({ PUBLISH_LEASE_SECONDS: "3600" }),
    100_000
  )

  it.effect(
    "kill -9 while a cancelled post's try is with the provider, which never made it: nothing recorded published, the claim ended",
    () =>
      Effect.gen(function*() {
        const { database, fake, owner, contentId, gate } = yield* cancelledInFlightThenKilled({})
        // The held request is refused: the provider has no post.
        fake.mode = "refuse"
        gate.open()
        yield* waitUntil(async () => fake.requests.some((r) => r.path === "/api/post"), 10_000)
        yield* Effect.sleep("200 millis")
        fake.mode = "up"
        assert.strictEqual(fake.postsFor(contentId).length, 0)

        const second = yield* server(database, fake)
        const jobRow = withSql(database, (sql) =>
          sql<{ status: string; lockedUntil: Date | null; providerPostId: string | null }>`
            SELECT status, locked_until, provider_post_id FROM publish_jobs WHERE content_id = ${contentId}`)
        // Not before the try could have ended (Ayrshare's longest try, 20 s): then looked up, found absent.
        yield* waitUntil(async () =>
          (await Effect.runPromise(jobRow))[0]!.lockedUntil === null, 60_000)
        assert.deepStrictEqual((yield* jobRow)[0], { status: "cancelled", lockedUntil: null, providerPostId: null })
        const get = (path: string) =>
          Effect.promise(() =>
            send(second.url, "GET", path, { headers: { authorization: `Bearer ${owner.apiKey}` } })
          )
        const piece = (yield* get(`/api/content/${owner.customerId}/${contentId}`)).json
        assert.deepStrictEqual([piece.status, piece.publishedUrl, piece.scheduledAt], ["approved", null, null])
        const attempts = (yield* get(`/api/social/posts/${owner.customerId}/${contentId}/attempts`)).json.attempts
        assert.deepStrictEqual(attempts.filter((a: any) => a.status !== "failed"), [])
        assert.strictEqual(fake.postsFor(contentId).length, 0)
      }),
    100_000
  )

  // PGlite is a single session: several processes sharing it is not a supported deployment,
  // so this runs against PostgreSQL only (DATABASE_URL=postgres://...).
  it.effect.skipIf(externalDatabaseUrl() === undefined)(
    "two publishers on one PostgreSQL: many due posts, each posted exactly once",
    () =>
      Effect.gen(function*() {
        const { database, fake } = yield* Shared
        fake.mode = "up"
        // A lease longer than any try (the default is 60 s): a live worker never loses a claim it is using.
        const env = { PUBLISH_LEASE_SECONDS: "30" }
        // The second process reaches the provider at another loopback address, so each post says which process sent it.
        const [a] = yield* Effect.all([
          server(database, fake, env),
          server(database, fake, { ...env, AYRSHARE_BASE_URL: fake.aliasUrl })
        ], { concurrency: 2 })
        const owner = yield* customerWithX(a, database, fake)
        const count = 1000
        // Due posts written straight into the queue (the API's rate limit would take minutes to create them).
        yield* withSql(database, (sql) =>
          Effect.andThen(
            sql`INSERT INTO content (id, customer_id, type, status, platform, body, metadata)
            SELECT 'cnt_bulk_' || g, ${owner.customerId}, 'social', 'approved', 'x', 'Bulk post ' || g, '{"media": []}'::jsonb
            FROM generate_series(1, ${count}) AS g`,
            sql`INSERT INTO publish_jobs (content_id, customer_id, platform, status, due_at, next_attempt_at)
            SELECT 'cnt_bulk_' || g, ${owner.customerId}, 'x', 'queued', now(), now() FROM generate_series(1, ${count}) AS g`
          ))
        const started = Date.now()
        yield* waitUntil(async () => {
          const rows = await Effect.runPromise(withSql(database, (sql) =>
            sql<
              { n: string }
            >`SELECT count(*)::text AS n FROM content WHERE customer_id = ${owner.customerId} AND status = 'published'`))
          return Number(rows[0].n) === count
        }, 90_000)
        console.log(`two publishers: ${count} posts published in ${Date.now() - started} ms`)
        const perPiece = new Map<string, number>()
        for (const post of fake.posts) {
          if (post.notes?.startsWith("herald:cnt_bulk_")) {
            perPiece.set(post.notes, (perPiece.get(post.notes) ?? 0) + 1)
          }
        }
        assert.strictEqual(perPiece.size, count)
        assert.deepStrictEqual([...new Set(perPiece.values())], [1])
        const attempts = yield* withSql(database, (sql) =>
          sql<{ n: string; pieces: string }>`SELECT count(*)::text AS n, count(DISTINCT content_id)::text AS pieces
          FROM publish_attempts WHERE customer_id = ${owner.customerId}`)
        assert.strictEqual(Number(attempts[0].n), count)
        assert.strictEqual(Number(attempts[0].pieces), count)
        const senders = new Map<string, number>()
        for (const request of fake.requests) {
          if (request.method === "POST" && request.path === "/api/post") {
            senders.set(String(request.headers.host), (senders.get(String(request.headers.host)) ?? 0) + 1)
          }
        }
        console.log("two publishers: posts per process", Object.fromEntries(senders))
        assert.strictEqual(senders.size, 2, "both processes published")
      }),
    110_000
  )
})
