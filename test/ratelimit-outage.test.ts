import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { call, testApp } from "./support/harness.ts"
import { bearer, provision } from "./support/processes.ts"
import { type TcpProxy, tcpProxy } from "./support/tcp-proxy.ts"

const redis = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379")

class RedisProxy extends Context.Service<RedisProxy, TcpProxy>()("test/RedisProxy") {}

/** The app counts in Redis through a proxy that is down when the app starts. */
const AppWithRedisDown = Layer.unwrap(Effect.gen(function*() {
  const proxy = yield* tcpProxy(redis.hostname, Number(redis.port || 6379))
  yield* Effect.promise(() => proxy.cut())
  return Layer.merge(
    testApp({
      redisUrl: Option.some(Redacted.make(`redis://127.0.0.1:${proxy.port}`)),
      redisKeyPrefix: `herald-outage-${randomBytes(6).toString("hex")}:`,
      statusProbeIntervalMs: 200
    }),
    Layer.succeed(RedisProxy, proxy)
  )
}))

/** Seconds a call took. */
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(effect), ([duration, value]) => [Duration.toSeconds(duration), value] as const)

const remaining = (headers: Headers) => Number(/;r=(\d+);/.exec(headers.get("ratelimit") ?? "")?.[1])

layer(AppWithRedisDown, { timeout: 60_000, excludeTestServices: true })("rate limits while Redis is away", (it) => {
  it.effect("the API starts and answers without Redis, fails open, and counts again once Redis is back", () =>
    Effect.gen(function*() {
      const proxy = yield* RedisProxy
      const a = yield* provision({ status: "active" })
      const get = () => timed(call("GET", `/api/customer/${a.customerId}`, { headers: bearer(a.apiKey) }))

      // Down since start: answered at once, not counted.
      const [seconds, down] = yield* get()
      assert.strictEqual(down.status, 200, down.text)
      assert.isBelow(seconds, 2)
      assert.strictEqual(remaining(down.headers), 60)
      const ready = yield* call("GET", "/api/health/ready", { headers: { "x-admin-secret": "test-admin-secret" } })
      assert.strictEqual(ready.json.status, "degraded")

      // Back: counting resumes.
      yield* Effect.promise(() => proxy.restore())
      let counted = -1
      for (let i = 0; i < 50 && counted === -1; i++) {
        yield* Effect.sleep("100 millis")
        const [, res] = yield* get()
        if (remaining(res.headers) < 60) counted = remaining(res.headers)
      }
      assert.isAtLeast(counted, 0, "requests are counted again")
      const [, next] = yield* get()
      assert.strictEqual(remaining(next.headers), counted - 1)

      // Hung (a partition): the first request waits out one count's timeout, the next ones none.
      proxy.stall()
      const [slow, hung] = yield* get()
      assert.strictEqual(hung.status, 200, hung.text)
      assert.isBelow(slow, 2)
      const [quick, after] = yield* get()
      assert.strictEqual(after.status, 200, after.text)
      assert.isBelow(quick, 0.5)
      yield* Effect.promise(() => proxy.restore())
    }))
})
