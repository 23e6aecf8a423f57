import { Effect, Layer } from "effect"

const describe = (value: unknown): string =>
  value instanceof Error ? (value.stack ?? `${value.name}: ${value.message}`) : String(value)

const report = (message: string, value: unknown) => {
  process.stderr.write(
    JSON.stringify({
      message,
      logLevel: "FATAL",
      timestamp: new Date().toISOString(),
      cause: describe(value),
      annotations: { policy: "logged; the service keeps running" }
    }) + "\n"
  )
}

/**
 * What happens to a failure nobody handled. Node's default ends the process
 * on an unhandled promise rejection or an uncaught exception; in a service
 * shared by many tenants that hands any library callback a tenant can reach
 * (a browser event, a socket error) the power to stop everyone. Here both
 * are logged at FATAL with their stack and the process keeps serving: the
 * failure has already unwound the one callback that threw, requests and
 * background work run in fibers that handle their own failures, durable
 * state lives in the database under leases, and untrusted pages are handled
 * in worker processes whose failures are their job's. Repeated FATAL lines
 * are a bug to fix, not a state to restart out of.
 */
export const ProcessPolicyLive = Layer.effectDiscard(Effect.acquireRelease(
  Effect.sync(() => {
    const onRejection = (reason: unknown) => report("unhandled promise rejection", reason)
    const onException = (error: unknown) => report("uncaught exception", error)
    process.on("unhandledRejection", onRejection)
    process.on("uncaughtException", onException)
    return { onRejection, onException }
  }),
  ({ onRejection, onException }) =>
    Effect.sync(() => {
      process.off("unhandledRejection", onRejection)
      process.off("uncaughtException", onException)
    })
))
