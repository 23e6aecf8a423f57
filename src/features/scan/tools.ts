import { Effect } from "effect"
import { aiSeoAudit, checkAiVisibility, croAudit } from "../../api/tools/definitions.ts"
import type { ChecklistItem, ScanResult } from "../../domain/Scan.ts"
import { implement, type ToolOutput } from "../../platform/tools/Handler.ts"
import { Scanner } from "./Scanner.ts"

const failedChecks = (items: ReadonlyArray<ChecklistItem>) => items.filter((item) => item.status !== "pass")

const scanFailed = (scan: ScanResult): ToolOutput | undefined =>
  scan.status === "failed"
    ? {
      summary: `The scan ${scan.scanId} of ${scan.url} failed: ${scan.error ?? "no reason recorded"}.`,
      data: { ...scan }
    }
    : undefined

/** ai_seo_audit: a stored scan of the page, all of it. */
export const aiSeoAuditTool = implement(
  aiSeoAudit,
  Effect.gen(function*() {
    const scanner = yield* Scanner
    return (input) =>
      Effect.gen(function*() {
        const scan = yield* scanner.scanOrRefuse(input.customerId, input.url)
        const open = failedChecks(scan.checklist)
        return scanFailed(scan) ?? {
          summary:
            `Scan ${scan.scanId} of ${scan.url}: SEO ${scan.seoScore}, GEO ${scan.geoScore}, CRO ${scan.croScore}, citability ${scan.citabilityGrade}; ${open.length} of ${scan.checklist.length} checks to fix${
              open.length > 0
                ? ` (${open.slice(0, 5).map((i) => i.title).join("; ")}${open.length > 5 ? "; ..." : ""})`
                : ""
            }.`,
          data: { ...scan }
        }
      })
  })
)

/** cro_audit: a stored scan of the page, answered as its CRO score and CRO checklist. */
export const croAuditTool = implement(
  croAudit,
  Effect.gen(function*() {
    const scanner = yield* Scanner
    return (input) =>
      Effect.gen(function*() {
        const scan = yield* scanner.scanOrRefuse(input.customerId, input.url)
        const cro = scan.checklist.filter((item) => item.category === "cro")
        const open = failedChecks(cro)
        return scanFailed(scan) ?? {
          summary:
            `Conversion audit of ${scan.url} (scan ${scan.scanId}): CRO score ${scan.croScore}; ${open.length} of ${cro.length} checks to fix${
              open.length > 0 ? `: ${open.map((i) => i.title).join("; ")}` : ""
            }.`,
          data: {
            scanId: scan.scanId,
            url: scan.url,
            status: scan.status,
            croScore: scan.croScore,
            checklist: cro,
            screenshotUrl: scan.screenshotUrl,
            createdAt: scan.createdAt
          }
        }
      })
  })
)

/** check_ai_visibility: a stored scan of the site, answered as its GEO score, citability, GEO checklist and proposed llms.txt. */
export const checkAiVisibilityTool = implement(
  checkAiVisibility,
  Effect.gen(function*() {
    const scanner = yield* Scanner
    return (input) =>
      Effect.gen(function*() {
        const scan = yield* scanner.scanOrRefuse(input.customerId, input.url)
        const geo = scan.checklist.filter((item) => item.category === "geo")
        const open = failedChecks(geo)
        return scanFailed(scan) ?? {
          summary:
            `AI visibility of ${scan.url} (scan ${scan.scanId}): GEO score ${scan.geoScore}, citability grade ${scan.citabilityGrade}; ${open.length} of ${geo.length} checks to fix${
              open.length > 0 ? `: ${open.map((i) => i.title).join("; ")}` : ""
            }.`,
          data: {
            scanId: scan.scanId,
            url: scan.url,
            status: scan.status,
            geoScore: scan.geoScore,
            citabilityGrade: scan.citabilityGrade,
            checklist: geo,
            llmsTxt: scan.llmsTxt,
            createdAt: scan.createdAt
          }
        }
      })
  })
)
