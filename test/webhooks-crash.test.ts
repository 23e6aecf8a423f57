import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { externalDatabaseUrl, freePort, send } from "./support/harness.ts"
import { sharedDatabase } from "./support/processes.ts"
import { startReceiver, waitFor } from "./support/webhook-receiver.ts"

/**
 * Real server processes (`node src/main.ts`) sharing one database: the
 * harness's PostgreSQL (a fresh schema) when DATABASE_URL is set, else a
 * PGlite served on a loopback port (`sharedDatabase`).
 */
class SharedDatabase extends Context.Service<SharedDatabase, { readonly url: string }>()("test/SharedDatabase") {}

const SharedDatabaseLive = Layer.effect(SharedDatabase, Effect.map(sharedDatabase, (url) => ({ url })))

interface Instance {
  readonly url: string
  readonly child: ChildProcess
}

/** Starts `node src/main.ts` and waits until it answers; killed (SIGKILL) with the scope at the latest. */
const startServer = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Instance> => {
      const { url: database } = env as { url: string }
      const port = await freePort()
      const child = spawn(process.execPath, ["src/main.ts"], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: "127.0.0.1",
          DATABASE_URL: database,
          ADMIN_SECRET: "test-admin-secret",
          ALLOW_PRIVATE_TARGETS: "true",
          TRUST_PROXY: "true",
          LOG_LEVEL: "error",
          PG_MAX_CONNECTIONS: "1",
          WEBHOOK_RETRY_SCHEDULE: "1,1,1",
          WEBHOOK_POLL_INTERVAL_MS: "100",
          ...env,
          url: undefined
        },
        stdio: ["ignore", "ignore", "inherit"]
      })
      const url = `http://127.0.0.1:${port}`
      // A start beside three other test files on a slow two-core machine has taken over 30 s.
      const deadline = Date.now() + 90_000
      for (;;) {
        if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
        const up = await fetch(`${url}/api/health`).then((r) => r.ok, () => false)
        if (up) return { url, child }
        if (Date.now() > deadline) throw new Error("server did not start")
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }),
    ({ child }) => Effect.promise(() => kill(child))
  )

const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

const customer = (base: string) =>
  Effect.promise(async () => {
    const res = await send(base, "POST", "/api/admin/provision", {
      headers: {
        "x-admin-secret": "test-admin-secret",
        "x-forwarded-for": `10.8.0.${Math.floor(Math.random() * 250)}`
      },
      body: { email: `crash-${crypto.randomUUID()}@example.com` }
    })
    assert.strictEqual(res.status, 200)
    const { customerId, apiKey } = res.json as { customerId: string; apiKey: string }
    const api = (baseUrl: string, method: string, path: string, body?: unknown) =>
      send(baseUrl, method, path.replace("{c}", customerId), {
        headers: { authorization: `Bearer ${apiKey}` },
        ...(body === undefined ? {} : { body })
      })
    return { api }
  })

/** A fresh address each time: one address has one live membership. */
const invite = () => ({ email: `someone-${crypto.randomUUID()}@example.com`, role: "viewer" })

layer(SharedDatabaseLive, { timeout: 90_000, excludeTestServices: true })("webhook delivery across processes", (it) => {
  it.effect(
    "an event committed before a crash, and one in flight at a crash, are delivered by the next process",
    () =>
      Effect.gen(function*() {
        const { url: database } = yield* SharedDatabase
        const receiver = yield* startReceiver
        // The first process polls once at start and then not for ten minutes: it never picks the event up.
        const first = yield* startServer({ url: database, WEBHOOK_POLL_INTERVAL_MS: "600000" })
        const { api } = yield* customer(first.url)
        const hook = (yield* Effect.promise(() =>
          api(first.url, "POST", "/api/hooks/{c}", { url: receiver.url, events: ["team.invited"] })
        )).json
        receiver.state.secret = hook.secret
        assert.strictEqual(
          (yield* Effect.promise(() =>
            api(first.url, "POST", "/api/team/{c}/members", invite())
          )).status,
          200
        )
        yield* Effect.promise(() => kill(first.child))

        // The second process claims it and crashes mid-request.
        receiver.state.script.push("hang")
        const second = yield* startServer({ url: database })
        yield* waitFor(receiver.state.received, (r) => r.length >= 1, 10_000)
        yield* Effect.promise(() => kill(second.child))

        // The third takes over once the second's lease lapses, with the same webhook-id.
        const third = yield* startServer({ url: database })
        yield* waitFor(receiver.state.received, (r) => r.length >= 2, 45_000)
        const [lost, delivered] = receiver.state.received
        assert.strictEqual(delivered.webhookId, lost.webhookId)
        assert.isTrue(delivered.verified)
        yield* Effect.sleep("500 millis")
        const attempts = (yield* Effect.promise(() =>
          api(third.url, "GET", `/api/hooks/{c}/${hook.id}/deliveries`)
        )).json
        assert.deepStrictEqual(
          attempts.deliveries.map((d: any) => [d.eventId, d.attempt, d.statusCode]),
          [[lost.webhookId, 2, 200]]
        )
      }),
    240_000
  )

  // PGlite is a single session: several processes sharing it is not a supported deployment, so this
  // runs against PostgreSQL only (DATABASE_URL=postgres://...).
  it.effect.skipIf(externalDatabaseUrl() === undefined)(
    "two dispatchers on one database deliver each attempt once, never in parallel",
    () =>
      Effect.gen(function*() {
        const { url: database } = yield* SharedDatabase
        const receiver = yield* startReceiver
        // Each event fails once, slowly, then succeeds: two attempts per event.
        receiver.state.decide = (request, all) =>
          all.filter((r) => r.webhookId === request.webhookId).length === 1
            ? { status: 500, delayMs: 150 }
            : { status: 200, delayMs: 150 }
        const [a, b] = yield* Effect.all([
          startServer({ url: database, WEBHOOK_POLL_INTERVAL_MS: "50" }),
          startServer({ url: database, WEBHOOK_POLL_INTERVAL_MS: "50" })
        ], { concurrency: 2 })
        const { api } = yield* customer(a.url)
        const hook = (yield* Effect.promise(() =>
          api(a.url, "POST", "/api/hooks/{c}", { url: receiver.url, events: ["team.invited"] })
        )).json
        receiver.state.secret = hook.secret
        const events = 20
        yield* Effect.forEach(
          Array.from({ length: events }, (_, i) =>
            i),
          (i) => Effect.promise(() => api(i % 2 === 0 ? a.url : b.url, "POST", "/api/team/{c}/members", invite())),
          {
            concurrency: 4
          }
        )
        yield* waitFor(receiver.state.received, (r) => r.length >= 2 * events, 30_000)
        yield* Effect.sleep("2 seconds")
        const perId = new Map<string, number>()
        for (const r of receiver.state.received) perId.set(r.webhookId, (perId.get(r.webhookId) ?? 0) + 1)
        assert.strictEqual(perId.size, events)
        assert.isTrue([...perId.values()].every((n) => n === 2))
        assert.strictEqual(receiver.state.maxParallel, 1)
        assert.isTrue(receiver.state.received.every((r) => r.verified))
      }),
    240_000
  )
})
