import { Schema } from "effect"
import { ScanId } from "./Ids.ts"
import { HttpUrl } from "./Text.ts"

// ---- Checklist and scoring (pure) --------------------------------------------

export type Category = "seo" | "geo" | "cro"
export type CheckStatus = "pass" | "warn" | "fail"

export interface ChecklistItem {
  readonly id: string
  readonly category: Category
  readonly title: string
  readonly status: CheckStatus
  readonly weight: number
  readonly detail: string
  readonly recommendation: string
}

/** A check's result; `undefined` is not applicable (weight 0, left out of the checklist). */
export type CheckOutcome = ChecklistItem | undefined

const credit: Record<CheckStatus, number> = { pass: 1, warn: 0.5, fail: 0 }

/** The ten checks that reproduce Lighthouse's SEO audits, with the weights of its SEO category. */
export const lighthouseSeoWeights: Readonly<Record<string, number>> = {
  "is-crawlable": 93 / 23,
  "document-title": 1,
  "meta-description": 1,
  "http-status-code": 1,
  "link-text": 1,
  "crawlable-anchors": 1,
  "robots-txt": 1,
  "image-alt": 1,
  "hreflang": 1,
  "canonical": 1
}

/** round(100 · Σ w·s / Σ w) over applicable items; null when none applies. */
export const weightedScore = (items: ReadonlyArray<CheckOutcome>): number | null => {
  let total = 0
  let earned = 0
  for (const item of items) {
    if (item === undefined || item.weight <= 0) continue
    total += item.weight
    earned += item.weight * credit[item.status]
  }
  return total === 0 ? null : Math.round((100 * earned) / total)
}

const isFailed = (items: ReadonlyArray<CheckOutcome>, id: string) =>
  items.some((item) => item !== undefined && item.id === id && item.status === "fail")

/** Bots that cannot fetch the page cannot cite it: the GEO score is capped then. */
export const geoCapWhenBlocked = 40

export interface Scores {
  readonly seoScore: number | null
  readonly geoScore: number | null
  readonly croScore: number | null
  /** Lighthouse's SEO category score (0-100) as our checks reproduce it. */
  readonly lighthouseSeoScore: number | null
  readonly citabilityGrade: Grade | null
}

export type Grade = "A" | "B" | "C" | "D" | "F"

/** geokit's bands: A >= 90, B >= 75, C >= 60, D >= 40, else F. */
export const gradeOf = (score: number): Grade =>
  score >= 90 ? "A" : score >= 75 ? "B" : score >= 60 ? "C" : score >= 40 ? "D" : "F"

export const scoreChecklist = (items: ReadonlyArray<CheckOutcome>): Scores => {
  const of = (category: Category) => items.filter((item) => item?.category === category)
  const seoScore = weightedScore(of("seo"))
  const croScore = weightedScore(of("cro"))
  const rawGeo = weightedScore(of("geo"))
  const blocked = isFailed(items, "geo.ai-crawlers") || isFailed(items, "is-crawlable")
  const geoScore = rawGeo === null ? null : blocked ? Math.min(rawGeo, geoCapWhenBlocked) : rawGeo
  // Lighthouse counts an audit as passed or failed; our warn never occurs on its ids.
  const lighthouse = items.flatMap((item) =>
    item !== undefined && item.id in lighthouseSeoWeights
      ? [{
        ...item,
        weight: lighthouseSeoWeights[item.id],
        status: item.status === "fail" ? "fail" as const : "pass" as const
      }]
      : []
  )
  return {
    seoScore,
    geoScore,
    croScore,
    lighthouseSeoScore: weightedScore(lighthouse),
    citabilityGrade: geoScore === null ? null : gradeOf(geoScore)
  }
}

// ---- Wire schemas --------------------------------------------------------------

/** An absolute http(s) URL of at most 2048 characters. */
export const PageUrl = HttpUrl

export const ScanRequest = Schema.Struct({
  url: PageUrl.annotate({ description: "The page to scan: an absolute http(s) URL, at most 2048 characters" })
}).annotate({ identifier: "ScanRequest", description: "Only `url`; no other properties" })

export const ChecklistItemSchema = Schema.Struct({
  id: Schema.String.annotate({
    description: "Lighthouse's audit id for the checks that reproduce its SEO audits (`is-crawlable`, " +
      "`document-title`, ...), else `seo.*`, `geo.*` or `cro.*`"
  }),
  category: Schema.Literals(["seo", "geo", "cro"]),
  title: Schema.String,
  status: Schema.Literals(["pass", "warn", "fail"]),
  weight: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 10 })).annotate({
    description: "Weight in its category's score"
  }),
  detail: Schema.String.annotate({ description: "What was found" }),
  recommendation: Schema.String.annotate({ description: "What to change (empty when it passes)" })
}).annotate({ identifier: "ChecklistItem" })

const score = Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })))

export const ScanResult = Schema.Struct({
  scanId: ScanId,
  status: Schema.Literals(["running", "done", "failed"]),
  url: Schema.String.annotate({ format: "uri" }),
  seoScore: score,
  geoScore: score,
  croScore: score,
  lighthouseSeoScore: score.annotate({
    description: "Lighthouse's SEO category score (0-100) as reproduced from the ten Lighthouse checks"
  }),
  citabilityGrade: Schema.NullOr(Schema.Literals(["A", "B", "C", "D", "F"])),
  checklist: Schema.Array(ChecklistItemSchema),
  llmsTxt: Schema.NullOr(Schema.String).annotate({ description: "A proposed llms.txt for the site" }),
  screenshotUrl: Schema.NullOr(Schema.String.annotate({ format: "uri" })),
  error: Schema.NullOr(Schema.String).annotate({ description: "Why a `failed` scan failed" }),
  createdAt: Schema.String.annotate({ format: "date-time" }),
  completedAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
}).annotate({ identifier: "ScanResult" })
export type ScanResult = typeof ScanResult.Type

const count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** A scan as lists show it: its scores and how many checks passed, warned and failed; the checklist is at the scan's own path. */
export const ScanSummary = Schema.Struct({
  scanId: ScanId,
  url: Schema.String.annotate({ format: "uri" }),
  status: Schema.Literals(["running", "done", "failed"]),
  seoScore: score,
  geoScore: score,
  croScore: score,
  citabilityGrade: Schema.NullOr(Schema.Literals(["A", "B", "C", "D", "F"])),
  counts: Schema.Struct({ pass: count, warn: count, fail: count }).annotate({
    description: "Checklist items by status (all 0 until the scan is done)"
  }),
  error: Schema.NullOr(Schema.String).annotate({ description: "Why a `failed` scan failed" }),
  createdAt: Schema.String.annotate({ format: "date-time" }),
  completedAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
}).annotate({ identifier: "ScanSummary" })
export type ScanSummary = typeof ScanSummary.Type

export const ScanList = Schema.Struct({
  scans: Schema.Array(ScanSummary),
  nextCursor: Schema.NullOr(Schema.String).annotate({
    description: "Pass as `cursor` for the next page; null on the last page"
  })
}).annotate({ identifier: "ScanList" })
export type ScanList = typeof ScanList.Type
