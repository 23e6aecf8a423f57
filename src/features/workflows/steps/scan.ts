import { Effect, Schema } from "effect"
import { ScanId } from "../../../domain/Ids.ts"
import { Onboarding } from "../../onboarding/Onboarding.ts"
import { Scanner } from "../../scan/Scanner.ts"
import { once } from "./Once.ts"
import { type RunContext, skipped, type StepDefinition, StepFailed, succeeded, text, texts } from "./Step.ts"

const Score = Schema.NullOr(Schema.Number)

/** What a workflow keeps of a scan: enough to report on it without repeating it. */
export const ScanRecord = Schema.Struct({
  scanId: ScanId,
  url: Schema.String,
  status: Schema.String,
  error: Schema.optionalKey(Schema.NullOr(Schema.String)),
  scores: Schema.Struct({
    seo: Score,
    geo: Score,
    cro: Score,
    lighthouseSeo: Schema.optionalKey(Score),
    citabilityGrade: Schema.NullOr(Schema.String)
  })
})
export type ScanRecord = typeof ScanRecord.Type

/** The exactly-once keys of the scans, read back by the report steps. */
export const siteScanKey = "scan-site"
export const competitorScanKey = (i: number) => `scan-competitor-${i}`

export const isWebUrl = (value: string) => {
  const url = URL.parse(value)
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0 &&
    value.length <= 2048
}

/** Scans a page once per key: a scan recorded before a crash is read back, not repeated. */
const scanOnce = (ctx: RunContext, key: string, url: string) =>
  once(
    ctx.runId,
    key,
    ScanRecord,
    Effect.map(Effect.flatMap(Scanner, (scanner) => scanner.scan(ctx.customerId, url)), (result): ScanRecord => ({
      scanId: result.scanId,
      url: result.url,
      status: result.status,
      error: result.error,
      scores: {
        seo: result.seoScore,
        geo: result.geoScore,
        cro: result.croScore,
        lighthouseSeo: result.lighthouseSeoScore,
        citabilityGrade: result.citabilityGrade
      }
    }))
  )

/** The site to audit: the workflow's config or run input `url`, else the confirmed brand profile's `sourceUrl`. */
const siteUrl = (ctx: RunContext) =>
  Effect.gen(function*() {
    const configured = text(ctx.options.url)
    if (configured !== undefined) return { url: configured, from: "config" }
    const profile = yield* (yield* Onboarding).profile(ctx.customerId)
    const read = (value: unknown) => typeof value === "string" ? text(value) : undefined
    const source = read(profile?.["sourceUrl"]) ?? read(profile?.["url"])
    return source === undefined ? undefined : { url: source, from: "brand profile" }
  })

/** Scans the customer's site for SEO, GEO and CRO issues. */
export const scanSite: StepDefinition = {
  name: "scan-site",
  run: (ctx) =>
    Effect.gen(function*() {
      const site = yield* siteUrl(ctx)
      if (site === undefined) {
        return yield* skipped("no site to scan: set config.url or confirm a brand profile with a sourceUrl")
      }
      if (!isWebUrl(site.url)) {
        return yield* new StepFailed({ message: `the site url from the ${site.from} is not an absolute http(s) URL` })
      }
      const scan = yield* scanOnce(ctx, siteScanKey, site.url)
      if (scan.status !== "done") {
        return yield* new StepFailed({
          message: `the scan of ${site.url} failed: ${scan.error ?? "unknown error"} (scan ${scan.scanId})`
        })
      }
      return succeeded({ scanId: scan.scanId, url: scan.url, scores: scan.scores })
    })
}

/** How many competitor sites one run scans. */
const maxCompetitorScans = 5

export const competitorUrls = (ctx: RunContext) =>
  texts(ctx.options.competitors).filter(isWebUrl).slice(0, maxCompetitorScans)

/** Scans the competitors' sites (the config's competitors that are http(s) URLs). */
export const scanCompetitors: StepDefinition = {
  name: "scan-competitors",
  run: (ctx) =>
    Effect.gen(function*() {
      const urls = competitorUrls(ctx)
      if (urls.length === 0) {
        return yield* skipped("no competitor URLs configured (config.competitors with http(s) URLs)")
      }
      const scans: Array<Record<string, unknown>> = []
      for (const [i, url] of urls.entries()) {
        const scan = yield* scanOnce(ctx, competitorScanKey(i), url)
        scans.push({ scanId: scan.scanId, url, status: scan.status, scores: scan.scores, error: scan.error ?? null })
      }
      return succeeded({ scans })
    })
}
