import { Context, Effect, Layer, Schedule, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../Config.ts"
import { type InvalidCursor, NotFound, type Unavailable } from "../../domain/Errors.ts"
import { type CustomerId, newScanId, type ScanId } from "../../domain/Ids.ts"
import type { ScanList, ScanResult } from "../../domain/Scan.ts"
import { CreatedPosition, Cursors } from "../../platform/Cursor.ts"
import { Events } from "../../platform/Events.ts"
import { busyAsUnavailable, PageAdmission, PagePool, type PoolBusy } from "../../platform/PagePool.ts"
import { ScanBrowser } from "./Browser.ts"
import { scanJob, type ScanOutcome } from "./jobs.ts"
import { ScanRepo } from "./Repo.ts"

/** Scans running at once for one customer; more wait their turn. */
export const scansPerCustomer = 2

/** Scans a list page shows when the caller does not say. */
export const defaultListLimit = 25

const notFound = new NotFound({ error: "Scan not found" })

type Checked =
  | Exclude<ScanOutcome, { readonly ok: true }>
  | (Extract<ScanOutcome, { readonly ok: true }> & { readonly png: Uint8Array | undefined })

/**
 * The SEO/GEO/CRO scanner. `scan` has a page pool worker fetch the page and
 * its site files through the outbound guard and run every check, then takes
 * a screenshot when Chromium is available, stores the result and records
 * `scan.completed`; an unreachable, refused, non-HTML, too slow or too heavy
 * page is a `failed` result, not an error. A customer runs 2 scans at once
 * (more wait at its own gate); past that gate the global page admission
 * applies (PageAdmission): `scanOrRefuse` (the API and the MCP tools)
 * refuses a scan (Unavailable, Retry-After) when its places are all taken,
 * or when the page pool has no room for the job, and stores nothing; `scan`
 * (the monthly-seo-audit workflow, which has no one to answer) waits its
 * turn and waits out a full pool.
 */
export class Scanner extends Context.Service<Scanner, {
  /** Scans `url`, waiting for a place however many scans are ahead (workflows). */
  readonly scan: (customerId: CustomerId, url: string) => Effect.Effect<ScanResult>
  /** Scans `url`, or refuses (Unavailable, Retry-After) when the running and waiting places or the pool are full. */
  readonly scanOrRefuse: (customerId: CustomerId, url: string) => Effect.Effect<ScanResult, Unavailable>
  readonly get: (customerId: CustomerId, scanId: ScanId) => Effect.Effect<ScanResult, NotFound>
  /** Newest first, as summaries; `nextCursor` continues the list (null on its last page). */
  readonly list: (
    customerId: CustomerId,
    query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
  ) => Effect.Effect<ScanList, InvalidCursor>
  readonly screenshot: (customerId: CustomerId, scanId: ScanId) => Effect.Effect<Uint8Array, NotFound>
}>()("herald/features/scan/Scanner") {
  static readonly layer = Layer.effect(
    Scanner,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* ScanRepo
      const events = yield* Events
      const browser = yield* ScanBrowser
      const pool = yield* PagePool
      const admission = yield* PageAdmission
      const cursors = yield* Cursors
      const config = yield* AppConfig
      const screenshotUrl = (customerId: CustomerId) => (scanId: ScanId) =>
        `${config.baseUrl}/api/scan/${customerId}/${scanId}/screenshot.png`

      // One semaphore per customer with scans running or waiting; dropped when the last one ends.
      const gates = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
      const gated = <A, E, R>(customerId: CustomerId, effect: Effect.Effect<A, E, R>) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            let gate = gates.get(customerId)
            if (gate === undefined) {
              gates.set(customerId, gate = { semaphore: Semaphore.makeUnsafe(scansPerCustomer), users: 0 })
            }
            gate.users++
            return gate
          }),
          (gate) => gate.semaphore.withPermits(1)(effect),
          (gate) =>
            Effect.sync(() => {
              if (--gate.users === 0) gates.delete(customerId)
            })
        )

      const inspect = (url: string) =>
        pool.run<ScanOutcome>({
          ...scanJob,
          input: {
            url,
            options: { allowPrivateTargets: config.allowPrivateTargets, allowAddresses: config.scanAllowedAddresses }
          }
        }).pipe(
          Effect.catchTag("JobFailed", (failed) =>
            Effect.succeed<ScanOutcome>({ ok: false, reason: `The page could not be scanned: ${failed.reason}` }))
        )

      /**
       * One scan, stored as it starts. A pool with no room for its job (PoolBusy) is no verdict on the page:
       * the stored start is taken back and the scan answers Unavailable, as a scan refused at admission.
       */
      const run = Effect.fn("Scanner.scan")(function*(customerId: CustomerId, url: string) {
        const scanId = newScanId()
        yield* repo.start(scanId, customerId, url)
        // The screenshot starts once the page has been checked: its browser does not skew the page's measured
        // response time, and a page that cannot be fetched costs no browser run.
        const outcome: Checked = yield* inspect(url).pipe(
          Effect.flatMap((checked): Effect.Effect<Checked, PoolBusy> =>
            checked.ok ? Effect.map(browser.screenshot(url), (png) => ({ ...checked, png })) : Effect.succeed(checked)
          ),
          Effect.tapError(() => repo.discard(scanId)),
          Effect.onInterrupt(() => repo.fail(scanId, "The scan was interrupted"))
        )
        yield* Effect.gen(function*() {
          if (outcome.ok) {
            const { analysis, png } = outcome
            yield* repo.finish(scanId, analysis, png)
            yield* events.record(customerId, "scan.completed", {
              scanId,
              url,
              status: "done",
              seoScore: analysis.seoScore,
              geoScore: analysis.geoScore,
              croScore: analysis.croScore,
              citabilityGrade: analysis.citabilityGrade
            })
          } else {
            yield* repo.fail(scanId, outcome.reason)
            yield* events.record(customerId, "scan.completed", { scanId, url, status: "failed", error: outcome.reason })
          }
        }).pipe(sql.withTransaction, Effect.orDie)
        const stored = yield* repo.get(customerId, scanId, screenshotUrl(customerId))
        return stored!
      })

      // Background work has no one to answer 503: a pool with no room is waited out, a job at a time.
      const retryBusy = Schedule.spaced("2 seconds")
      const scan = (customerId: CustomerId, url: string) =>
        gated(customerId, admission.wait(run(customerId, url))).pipe(
          Effect.retry({ schedule: retryBusy }),
          Effect.orDie
        )
      const scanOrRefuse = (customerId: CustomerId, url: string) =>
        busyAsUnavailable(gated(customerId, admission.refuseWhenFull(run(customerId, url))))

      const get = Effect.fnUntraced(function*(customerId: CustomerId, scanId: ScanId) {
        const found = yield* repo.get(customerId, scanId, screenshotUrl(customerId))
        if (found === undefined) return yield* notFound
        return found
      })

      const list = Effect.fnUntraced(
        function*(
          customerId: CustomerId,
          query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
        ) {
          const after = query.cursor === undefined
            ? undefined
            : yield* cursors.decode("scans", customerId, CreatedPosition, query.cursor)
          const page = yield* repo.list(customerId, query.limit ?? defaultListLimit, after)
          return {
            scans: page.scans,
            nextCursor: page.more && page.last !== undefined ? cursors.encode("scans", customerId, page.last) : null
          }
        }
      )

      const screenshot = Effect.fnUntraced(function*(customerId: CustomerId, scanId: ScanId) {
        const png = yield* repo.screenshot(customerId, scanId)
        if (png === undefined) return yield* new NotFound({ error: "Screenshot not found" })
        return png
      })

      return Scanner.of({ scan, scanOrRefuse, get, list, screenshot })
    })
  )

  static readonly layerLive = Scanner.layer.pipe(Layer.provide([ScanRepo.layer, ScanBrowser.layer]))
}
