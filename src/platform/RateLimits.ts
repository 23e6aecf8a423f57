import { Clock, Context, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig, rateLimitDefaults, type RateLimitSettings } from "../Config.ts"
import { RateLimited } from "../domain/Errors.ts"
import { addResponseHeaders, CurrentRequest } from "./http/RequestContext.ts"

/** Fixed-window counters: `hit` adds `cost` (0 peeks) and returns the new count. */
export class RateLimitStore extends Context.Service<RateLimitStore, {
  readonly hit: (key: string, cost: number, windowMs: number) => Effect.Effect<number, Error>
  readonly ping: Effect.Effect<void, Error>
}>()("herald/platform/RateLimitStore") {
  static readonly layerMemory = Layer.sync(RateLimitStore, () => {
    const counters = new Map<string, { count: number; expiresAt: number }>()
    let hits = 0
    const sweep = (now: number) => {
      for (const [key, entry] of counters) if (entry.expiresAt <= now) counters.delete(key)
    }
    return RateLimitStore.of({
      hit: (key, cost, windowMs) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          if (++hits % 10_000 === 0) sweep(now)
          const entry = counters.get(key)
          if (entry === undefined || entry.expiresAt <= now) {
            counters.set(key, { count: cost, expiresAt: now + windowMs })
            return cost
          }
          entry.count += cost
          return entry.count
        }),
      ping: Effect.void
    })
  })

  /**
   * Counters in Redis. Start-up waits for Redis at most `connectWaitMs`, and no
   * command waits for it: while it is down or slow a count fails (after at most
   * `commandTimeoutMs`, then at once for as long again) and the limiter fails
   * open, and the client keeps reconnecting in the background.
   */
  static readonly layerRedis = (url: string, keyPrefix = "herald:", commandTimeoutMs = 1000, connectWaitMs = 3000) =>
    Layer.effect(
      RateLimitStore,
      Effect.gen(function*() {
        // Loaded only when REDIS_URL is set: the package costs ~90 ms of every start.
        const { createClient } = yield* Effect.promise(() => import("redis"))
        const client = createClient({
          url,
          // Commands sent while disconnected fail rather than queue behind the outage.
          disableOfflineQueue: true,
          socket: { connectTimeout: 2000, reconnectStrategy: (n) => Math.min(n * 100, 2000) }
        })
        client.on("error", () => undefined)
        yield* Effect.acquireRelease(
          // Resolves once connected, and the client retries by itself until then;
          // start-up gives it `connectWaitMs` so that a healthy Redis counts from the first request.
          Effect.promise(() => client.connect().then(() => undefined, () => undefined)).pipe(
            Effect.timeoutOrElse({
              duration: connectWaitMs,
              orElse: () => Effect.logWarning("rate limit store unreachable at start; counting in it once it answers")
            })
          ),
          // Nothing to flush (a count is one round trip), and a graceful close would wait on a hung Redis.
          () => Effect.sync(() => client.isOpen && client.destroy())
        )
        const unavailable = (cause: unknown) => new Error("rate limit store unavailable", { cause })
        // After a failure the store is left alone for a while: a hung Redis would
        // otherwise cost every request a timeout per count.
        let restingUntil = 0
        const command = <A>(run: () => Promise<A>) =>
          Effect.suspend(() => {
            if (Date.now() < restingUntil) return Effect.fail(unavailable("resting after a failure"))
            return Effect.tryPromise({ try: run, catch: unavailable }).pipe(
              Effect.timeoutOrElse({
                duration: commandTimeoutMs,
                orElse: () => Effect.fail(unavailable(`no answer within ${commandTimeoutMs} ms`))
              }),
              Effect.tapError(() => Effect.sync(() => void (restingUntil = Date.now() + commandTimeoutMs)))
            )
          })
        const script = `local c = redis.call('INCRBY', KEYS[1], ARGV[1])
if c == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return c`
        return RateLimitStore.of({
          hit: (key, cost, windowMs) =>
            command(() =>
              // The key names its window, so it may outlive it: kept two windows, a process whose clock runs
              // ahead (and opened the window early) cannot make it expire while others still count in it, which
              // would start that window's count again from zero.
              client.eval(script, { keys: [`${keyPrefix}${key}`], arguments: [String(cost), String(windowMs * 2)] })
            )
              .pipe(Effect.map(Number)),
          ping: Effect.asVoid(command(() => client.ping()))
        })
      })
    )

  /** Redis when REDIS_URL is set, so several processes share one budget. */
  static readonly layer = Layer.unwrap(Effect.map(AppConfig, (config) =>
    Option.match(config.redisUrl, {
      onNone: () => RateLimitStore.layerMemory,
      onSome: (url) => RateLimitStore.layerRedis(Redacted.value(url), config.redisKeyPrefix)
    })))
}

export interface Policy {
  /** Shown in the `RateLimit-Policy` header and part of the counter's key. */
  readonly name: string
  /** Requests per window; for a policy with a `setting`, the configured value replaces it. */
  readonly limit: number
  readonly windowSeconds: number
  /** The `RATE_LIMIT_*_PER_MIN` setting that sets `limit` (AppConfig.rateLimits). */
  readonly setting?: keyof RateLimitSettings
}

const configured = (setting: keyof RateLimitSettings, name: string): Policy => ({
  name,
  limit: rateLimitDefaults[setting],
  windowSeconds: 60,
  setting
})

/**
 * The six rate limits (docs/api-rules.md, "Rate limits"), each configurable. Features
 * name them here: `limits.enforce(policies.mcp, customerId)`,
 * `policies.checkout` and `policies.preAuth` per client IP,
 * `policies.paymentWebhook` with one global key, `policies.admin` per IP.
 */
export const policies = {
  rest: configured("rest", "rest"),
  mcp: configured("mcp", "mcp"),
  preAuth: configured("preAuth", "pre-auth"),
  checkout: configured("checkout", "checkout"),
  paymentWebhook: configured("paymentWebhook", "payment-webhook"),
  admin: configured("admin", "admin")
} as const satisfies Record<string, Policy>

export interface Usage {
  readonly policy: Policy
  readonly count: number
  readonly remaining: number
  readonly resetSeconds: number
}

/** Which policy's headers a response already shows, so the tighter one wins. */
const shown = new WeakMap<object, number>()

export const rateLimitHeaders = (usage: Usage): Record<string, string> => ({
  "ratelimit-policy": `"${usage.policy.name}";q=${usage.policy.limit};w=${usage.policy.windowSeconds}`,
  ratelimit: `"${usage.policy.name}";r=${usage.remaining};t=${usage.resetSeconds}`
})

export class RateLimits extends Context.Service<RateLimits, {
  /** Counts `cost` against the policy for `key` (0 only reads); shows nothing. */
  readonly count: (policy: Policy, key: string, cost?: number) => Effect.Effect<Usage>
  /** Shows a usage in the response headers unless a tighter one is shown already. */
  readonly show: (usage: Usage) => Effect.Effect<void>
  /** Counts one request and fails with 429 once the window's budget is spent. */
  readonly enforce: (policy: Policy, key: string) => Effect.Effect<Usage, RateLimited>
  /** Fails with 429 when the budget is already spent, without counting. */
  readonly check: (policy: Policy, key: string) => Effect.Effect<Usage, RateLimited>
}>()("herald/platform/RateLimits") {
  static readonly layer = Layer.effect(
    RateLimits,
    Effect.gen(function*() {
      const store = yield* RateLimitStore
      const config = yield* AppConfig
      // A policy with its configured limit, made once per policy so usages compare by identity.
      const effective = new Map<Policy, Policy>()
      const resolve = (policy: Policy): Policy => {
        if (policy.setting === undefined) return policy
        let found = effective.get(policy)
        if (found === undefined) {
          found = { ...policy, limit: config.rateLimits[policy.setting] }
          effective.set(policy, found)
        }
        return found
      }
      let lastWarnedAt = Number.NEGATIVE_INFINITY

      // Untraced, like the other per-request steps of authentication: a span and a captured stack on every request cost more than they tell.
      const count = Effect.fnUntraced(function*(given: Policy, key: string, cost = 1) {
        const policy = resolve(given)
        const now = yield* Clock.currentTimeMillis
        const windowMs = policy.windowSeconds * 1000
        const window = Math.floor(now / windowMs)
        const resetSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000))
        // An unreachable store must not take the API down with it: fail open (one frame for the warning and the 0).
        const used = yield* Effect.catch(store.hit(`${policy.name}:${key}:${window}`, cost, windowMs), (error) => {
          // Once per 10 s at most: an outage under load would otherwise log a line per request.
          if (now - lastWarnedAt < 10_000) return Effect.succeed(0)
          lastWarnedAt = now
          return Effect.as(
            Effect.logWarning("rate limit store unavailable; failing open").pipe(
              Effect.annotateLogs({ reason: String(error.cause ?? error.message) })
            ),
            0
          )
        })
        return { policy, count: used, remaining: Math.max(0, policy.limit - used), resetSeconds } satisfies Usage
      })

      /**
       * Shows a usage on the request's state unless a tighter one shows
       * already, then answers `value`: one step that reads the state and
       * writes the headers on it (what addResponseHeaders does).
       */
      const showing = <A>(usage: Usage, value: A) =>
        Effect.map(Effect.serviceOption(CurrentRequest), (state) => {
          if (Option.isNone(state)) return value
          const previous = shown.get(state.value)
          if (previous !== undefined && usage.remaining > previous) return value
          shown.set(state.value, usage.remaining)
          Object.assign(state.value.responseHeaders, rateLimitHeaders(usage))
          return value
        })

      const show = (usage: Usage) => showing(usage, undefined)

      const refuse = (usage: Usage) =>
        show(usage).pipe(
          Effect.andThen(addResponseHeaders({ "retry-after": String(usage.resetSeconds) })),
          Effect.andThen(Effect.fail(new RateLimited()))
        )

      const enforce = (policy: Policy, key: string) =>
        Effect.flatMap(
          count(policy, key),
          (usage) => usage.count > usage.policy.limit ? refuse(usage) : showing(usage, usage)
        )

      const check = (policy: Policy, key: string) =>
        Effect.flatMap(
          count(policy, key, 0),
          (usage) => usage.count > usage.policy.limit ? refuse(usage) : Effect.succeed(usage)
        )

      return RateLimits.of({ count, show, enforce, check })
    })
  ).pipe(Layer.provideMerge(RateLimitStore.layer))
}
