import { Context, Effect, Layer } from "effect"
import { type ChildProcess, fork } from "node:child_process"
import { existsSync } from "node:fs"
import { AppConfig } from "../../Config.ts"
import { PagePool } from "../../platform/PagePool.ts"
import { screenshotJob, screenshotMs, type ScreenshotOutcome } from "./screenshotJob.ts"

/**
 * Full-page screenshots with the machine's Chromium. One browser process
 * serves every scan, started on the first screenshot by a browser host (a
 * child process, browserHost.ts) and closed with the app; after a crash the
 * next screenshot starts it again. The screenshot itself is a page pool job
 * (screenshotJob.ts): a worker connects to the host's endpoint, opens its own
 * incognito context and drives the page, its guarded requests and the
 * capture; this process only starts the host and receives the PNG, so a
 * hostile page's traffic costs the service's event loop nothing, and a worker
 * that dies fails its own screenshot only. Without Chromium, or when the
 * screenshot fails or the pool has no room, `screenshot` answers undefined
 * and scans go on without one.
 */
export class ScanBrowser extends Context.Service<ScanBrowser, {
  readonly available: boolean
  /** A full-page PNG of `url`, or undefined when there is no browser or it did not finish in time. */
  readonly screenshot: (url: string) => Effect.Effect<Uint8Array | undefined>
}>()("herald/features/scan/ScanBrowser") {
  static readonly layer = Layer.effect(ScanBrowser, Effect.suspend(() => make))
}

const hostEntry = new URL("./browserHost.ts", import.meta.url)

/** A job past this is ended with its worker: the screenshot's own limit, its context's close and slack. */
const jobTimeoutMs = screenshotMs + 8_000

interface Host {
  readonly child: ChildProcess
  readonly endpoint: Promise<string>
}

const make = Effect.gen(function*() {
  const config = yield* AppConfig
  const pool = yield* PagePool
  const path = config.chromiumPath
  const available = path !== undefined && existsSync(path)
  let host: Host | undefined

  /** The running host's endpoint, starting one when there is none (first use, or Chromium ended). */
  const endpoint = (): Promise<string> => {
    if (host === undefined) {
      // The service's own flags (a CPU profile covers the host too), less --inspect: its port is the service's.
      const execArgv = process.execArgv.filter((flag) => !flag.startsWith("--inspect"))
      const child = fork(hostEntry, [path!], {
        execArgv,
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        serialization: "advanced"
      })
      const current: Host = {
        child,
        endpoint: new Promise<string>((resolve, reject) => {
          child.once("message", (message: { readonly endpoint: string }) => resolve(message.endpoint))
          child.once("error", reject)
          child.once(
            "exit",
            (code, signal) => reject(new Error(`the browser host stopped (${signal ?? `exit code ${code}`})`))
          )
        })
      }
      current.endpoint.catch(() => undefined)
      child.once("exit", () => {
        if (host === current) host = undefined
      })
      child.on("error", () => undefined)
      // The host does not keep the service alive; it goes when the service's channel closes.
      child.unref()
      child.channel?.unref()
      host = current
    }
    return host.endpoint
  }

  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      const current = host
      if (current === undefined) return Effect.void
      host = undefined
      const exited = new Promise<void>((resolve) => {
        if (current.child.exitCode !== null || current.child.signalCode !== null) return resolve()
        current.child.once("exit", () => resolve())
      })
      // The host closes Chromium when its channel closes; one that does not within 5 s is killed.
      if (current.child.connected) current.child.disconnect()
      return Effect.promise(() => exited).pipe(
        Effect.timeoutOption("5 seconds"),
        Effect.tap(() => Effect.sync(() => current.child.kill("SIGKILL")))
      )
    }).pipe(Effect.ignore)
  )

  const screenshot = (url: string): Effect.Effect<Uint8Array | undefined> =>
    !available
      ? Effect.succeed(undefined)
      : Effect.tryPromise(endpoint).pipe(
        Effect.flatMap((at) =>
          pool.run<ScreenshotOutcome>({
            ...screenshotJob,
            timeoutMs: jobTimeoutMs,
            input: {
              endpoint: at,
              url,
              allowPrivateTargets: config.allowPrivateTargets,
              allowAddresses: config.scanAllowedAddresses,
              maxBytes: config.scanScreenshotMaxBytes
            }
          })
        ),
        Effect.flatMap((outcome) => outcome.ok ? Effect.succeed(outcome.png) : Effect.fail(new Error(outcome.reason))),
        Effect.map((png): Uint8Array | undefined => png),
        Effect.catchCause((cause) =>
          Effect.logWarning("screenshot failed", { url, cause: String(cause) }).pipe(Effect.as(undefined))
        )
      )

  return ScanBrowser.of({ available, screenshot })
})
