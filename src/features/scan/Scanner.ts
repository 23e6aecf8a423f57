import { Context, Effect, Layer, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import { NotFound } from "../../domain/Errors.ts"
import type { ScanResult } from "../../domain/Scan.ts"
import { Events } from "../../platform/Events.ts"
import { ScanBrowser } from "./Browser.ts"
import { analyse } from "./checks/index.ts"
import { fetchSite, type PageUnavailable } from "./Fetch.ts"
import { ScanRepo } from "./Repo.ts"

/** Scans running at once for one customer; more wait their turn. */
export const scansPerCustomer = 2

/** How many scans `list` shows, newest first. */
export const listLimit = 100

const notFound = new NotFound({ error: "Scan not found" })

/**
 * The SEO/GEO/CRO scanner. `scan` fetches the page and its site files through
 * the outbound guard, runs every check, takes a screenshot in parallel when
 * Chromium is available, stores the result and records `scan.completed`; an
 * unreachable, refused or non-HTML page is a `failed` result, not an error.
 * MCP tools (ai_seo_audit, cro_audit, check_ai_visibility) and the
 * monthly-seo-audit workflow call `scan` and read the checklist by category.
 */
export class Scanner extends Context.Service<Scanner, {
  readonly scan: (customerId: string, url: string) => Effect.Effect<ScanResult>
  readonly get: (customerId: string, scanId: string) => Effect.Effect<ScanResult, NotFound>
  readonly list: (customerId: string) => Effect.Effect<ReadonlyArray<ScanResult>>
  readonly screenshot: (customerId: string, scanId: string) => Effect.Effect<Uint8Array, NotFound>
}>()("herald/features/scan/Scanner") {
  static readonly layer = Layer.effect(Scanner, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ScanRepo
    const events = yield* Events
    const browser = yield* ScanBrowser
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

    const run = Effect.fn("Scanner.scan")(function*(customerId: string, url: string) {
      const scanId = `scan_${randomUUID().replaceAll("-", "").slice(0, 24)}`
      yield* repo.start(scanId, customerId, url)
      // The screenshot starts once the page has answered: its browser does not skew the page's measured
      // response time, and a page that cannot be fetched costs no browser run.
      const outcome = yield* fetchSite(url, { allowPrivateTargets: config.allowPrivateTargets, allowAddresses: config.scanAllowedAddresses }).pipe(
        Effect.flatMap((site) => Effect.all([Effect.sync(() => analyse(site)), browser.screenshot(url)], { concurrency: "unbounded" })),
        Effect.result,
        Effect.onInterrupt(() => repo.fail(scanId, "The scan was interrupted"))
      )
      yield* Effect.gen(function*() {
        if (outcome._tag === "Success") {
          const [analysis, png] = outcome.success
          yield* repo.finish(scanId, analysis, png)
          yield* events.record(customerId, "scan.completed", {
            scanId, url, status: "done", seoScore: analysis.seoScore, geoScore: analysis.geoScore,
            croScore: analysis.croScore, citabilityGrade: analysis.citabilityGrade
          })
        } else {
          const failure: PageUnavailable = outcome.failure
          yield* repo.fail(scanId, failure.message)
          yield* events.record(customerId, "scan.completed", { scanId, url, status: "failed", error: failure.message })
        }
      }).pipe(sql.withTransaction, Effect.orDie)
      const stored = yield* repo.get(customerId, scanId, screenshotUrl(customerId))
      return stored!
    })

    const scan = (customerId: string, url: string) => gated(customerId, run(customerId, url))

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

    return Scanner.of({ scan, get, list, screenshot })
  }))

  static readonly layerLive = Scanner.layer.pipe(Layer.provide([ScanRepo.layer, ScanBrowser.layer]))
}
