import { Context, Effect, Layer, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import { NotFound, Unavailable } from "../../domain/Errors.ts"
import type { ScanResult } from "../../domain/Scan.ts"
import { Events } from "../../platform/Events.ts"
import { addResponseHeaders } from "../../platform/http/RequestContext.ts"
import { PagePool } from "../../platform/PagePool.ts"
import { ScanBrowser } from "./Browser.ts"
import { scanJob, type ScanOutcome } from "./jobs.ts"
import { ScanRepo } from "./Repo.ts"

/** Scans running at once for one customer; more wait their turn. */
export const scansPerCustomer = 2

/** How many scans `list` shows, newest first. */
export const listLimit = 100

const notFound = new NotFound({ error: "Scan not found" })

type Checked = Exclude<ScanOutcome, { readonly ok: true }> | (Extract<ScanOutcome, { readonly ok: true }> & { readonly png: Uint8Array | undefined })

/** Seconds a scan refused for want of room is told to wait (Retry-After). */
export const busyRetrySeconds = 10

/**
 * The SEO/GEO/CRO scanner. `scan` has a page pool worker fetch the page and
 * its site files through the outbound guard and run every check, then takes
 * a screenshot when Chromium is available, stores the result and records
 * `scan.completed`; an unreachable, refused, non-HTML, too slow or too heavy
 * page is a `failed` result, not an error. At most `scanMaxConcurrent` scans
 * run at once across customers; `scanOrRefuse` (the API) refuses a scan
 * (Unavailable, Retry-After) before anything is stored when `scanQueueMax`
 * already wait, `scan` (background work) waits its turn.
 * MCP tools (ai_seo_audit, cro_audit, check_ai_visibility) and the
 * monthly-seo-audit workflow call `scan` and read the checklist by category.
 */
export class Scanner extends Context.Service<Scanner, {
  /** Scans `url`, waiting for a place however many scans are ahead (workflows, agent tools). */
  readonly scan: (customerId: string, url: string) => Effect.Effect<ScanResult>
  /** Scans `url`, or refuses (Unavailable, Retry-After) when the running and waiting places are all taken. */
  readonly scanOrRefuse: (customerId: string, url: string) => Effect.Effect<ScanResult, Unavailable>
  readonly get: (customerId: string, scanId: string) => Effect.Effect<ScanResult, NotFound>
  readonly list: (customerId: string) => Effect.Effect<ReadonlyArray<ScanResult>>
  readonly screenshot: (customerId: string, scanId: string) => Effect.Effect<Uint8Array, NotFound>
}>()("herald/features/scan/Scanner") {
  static readonly layer = Layer.effect(Scanner, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ScanRepo
    const events = yield* Events
    const browser = yield* ScanBrowser
    const pool = yield* PagePool
    const config = yield* AppConfig
    const screenshotUrl = (customerId: string) => (scanId: string) =>
      `${config.baseUrl}/api/scan/${customerId}/${scanId}/screenshot.png`

    // One semaphore per customer with scans running or waiting; dropped when the last one ends.
    const gates = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
    const gated = <A, E, R>(customerId: string, effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          let gate = gates.get(customerId)
          if (gate === undefined) gates.set(customerId, gate = { semaphore: Semaphore.makeUnsafe(scansPerCustomer), users: 0 })
          gate.users++
          return gate
        }),
        (gate) => gate.semaphore.withPermits(1)(effect),
        (gate) => Effect.sync(() => {
          if (--gate.users === 0) gates.delete(customerId)
        })
      )

    // Every scan admitted and not finished, running or waiting; the global semaphore lets `scanMaxConcurrent` run.
    let admitted = 0
    const running = Semaphore.makeUnsafe(config.scanMaxConcurrent)
    const busy = new Unavailable({ error: "Too many scans are running; try again shortly" })
    const admit = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        admitted++
        return effect.pipe(Effect.ensuring(Effect.sync(() => admitted--)))
      })
    const admitOrRefuse = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unavailable, R> =>
      Effect.suspend((): Effect.Effect<A, E | Unavailable, R> =>
        admitted >= config.scanMaxConcurrent + config.scanQueueMax
          ? addResponseHeaders({ "retry-after": String(busyRetrySeconds) }).pipe(Effect.andThen(Effect.fail(busy)))
          : admit(effect)
      )

    const inspect = (url: string) =>
      pool.run<ScanOutcome>({
        ...scanJob,
        input: { url, options: { allowPrivateTargets: config.allowPrivateTargets, allowAddresses: config.scanAllowedAddresses } }
      }).pipe(Effect.catchTag("JobFailed", (failed) =>
        Effect.succeed<ScanOutcome>({ ok: false, reason: `The page could not be scanned: ${failed.reason}` })))

    const run = Effect.fn("Scanner.scan")(function*(customerId: string, url: string) {
      const scanId = `scan_${randomUUID().replaceAll("-", "").slice(0, 24)}`
      yield* repo.start(scanId, customerId, url)
      // The screenshot starts once the page has been checked: its browser does not skew the page's measured
      // response time, and a page that cannot be fetched costs no browser run.
      const outcome: Checked = yield* inspect(url).pipe(
        Effect.flatMap((checked): Effect.Effect<Checked> =>
          checked.ok ? Effect.map(browser.screenshot(url), (png) => ({ ...checked, png })) : Effect.succeed(checked)
        ),
        Effect.onInterrupt(() => repo.fail(scanId, "The scan was interrupted"))
      )
      yield* Effect.gen(function*() {
        if (outcome.ok) {
          const { analysis, png } = outcome
          yield* repo.finish(scanId, analysis, png)
          yield* events.record(customerId, "scan.completed", {
            scanId, url, status: "done", seoScore: analysis.seoScore, geoScore: analysis.geoScore,
            croScore: analysis.croScore, citabilityGrade: analysis.citabilityGrade
          })
        } else {
          yield* repo.fail(scanId, outcome.reason)
          yield* events.record(customerId, "scan.completed", { scanId, url, status: "failed", error: outcome.reason })
        }
      }).pipe(sql.withTransaction, Effect.orDie)
      const stored = yield* repo.get(customerId, scanId, screenshotUrl(customerId))
      return stored!
    })

    const scan = (customerId: string, url: string) => admit(gated(customerId, running.withPermits(1)(run(customerId, url))))
    const scanOrRefuse = (customerId: string, url: string) =>
      admitOrRefuse(gated(customerId, running.withPermits(1)(run(customerId, url))))

    const get = Effect.fnUntraced(function*(customerId: string, scanId: string) {
      const found = yield* repo.get(customerId, scanId, screenshotUrl(customerId))
      if (found === undefined) return yield* notFound
      return found
    })

    const list = (customerId: string) => repo.list(customerId, listLimit, screenshotUrl(customerId))

    const screenshot = Effect.fnUntraced(function*(customerId: string, scanId: string) {
      const png = yield* repo.screenshot(customerId, scanId)
      if (png === undefined) return yield* new NotFound({ error: "Screenshot not found" })
      return png
    })

    return Scanner.of({ scan, scanOrRefuse, get, list, screenshot })
  }))

  static readonly layerLive = Scanner.layer.pipe(Layer.provide([ScanRepo.layer, ScanBrowser.layer]))
}
