import { Effect } from "effect"
import { aiSeoAudit, checkAiVisibility, croAudit } from "../../api/tools/definitions.ts"
import type { ToolDefinition } from "../../api/tools/Tool.ts"
import type { Category, ChecklistItem, ScanResult } from "../../domain/Scan.ts"
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

/** What every audit tool is asked: whose scan, of which page. */
type AuditInput = { readonly customerId: Parameters<Scanner["Service"]["scanOrRefuse"]>[0]; readonly url: string }

/**
 * An audit tool: it scans the page (the Scanner's admission and stored scans
 * apply) and answers the scan as `answer` reads it, or, when the page could
 * not be scanned, the failed scan with its reason.
 */
const auditTool = <I extends AuditInput>(definition: ToolDefinition<I>, answer: (scan: ScanResult) => ToolOutput) =>
  implement(
    definition,
    Effect.map(
      Effect.service(Scanner),
      (scanner) => (input: I) =>
        Effect.map(scanner.scanOrRefuse(input.customerId, input.url), (scan) => scanFailed(scan) ?? answer(scan))
    )
  )

/** The checks of one category, and how many of them are left to fix, named. */
const categoryChecks = (scan: ScanResult, category: Category) => {
  const checks = scan.checklist.filter((item) => item.category === category)
  const open = failedChecks(checks)
  return {
    checks,
    toFix: `${open.length} of ${checks.length} checks to fix${
      open.length > 0 ? `: ${open.map((i) => i.title).join("; ")}` : ""
    }`
  }
}

/** ai_seo_audit: a stored scan of the page, all of it. */
export const aiSeoAuditTool = auditTool(aiSeoAudit, (scan) => {
  const open = failedChecks(scan.checklist)
  return {
    summary:
      `Scan ${scan.scanId} of ${scan.url}: SEO ${scan.seoScore}, GEO ${scan.geoScore}, CRO ${scan.croScore}, citability ${scan.citabilityGrade}; ${open.length} of ${scan.checklist.length} checks to fix${
        open.length > 0
          ? ` (${open.slice(0, 5).map((i) => i.title).join("; ")}${open.length > 5 ? "; ..." : ""})`
          : ""
      }.`,
    data: { ...scan }
  }
})

/** cro_audit: a stored scan of the page, answered as its CRO score and CRO checklist. */
export const croAuditTool = auditTool(croAudit, (scan) => {
  const cro = categoryChecks(scan, "cro")
  return {
    summary: `Conversion audit of ${scan.url} (scan ${scan.scanId}): CRO score ${scan.croScore}; ${cro.toFix}.`,
    data: {
      scanId: scan.scanId,
      url: scan.url,
      status: scan.status,
      croScore: scan.croScore,
      checklist: cro.checks,
      screenshotUrl: scan.screenshotUrl,
      createdAt: scan.createdAt
    }
  }
})

/** check_ai_visibility: a stored scan of the site, answered as its GEO score, citability, GEO checklist and proposed llms.txt. */
export const checkAiVisibilityTool = auditTool(checkAiVisibility, (scan) => {
  const geo = categoryChecks(scan, "geo")
  return {
    summary:
      `AI visibility of ${scan.url} (scan ${scan.scanId}): GEO score ${scan.geoScore}, citability grade ${scan.citabilityGrade}; ${geo.toFix}.`,
    data: {
      scanId: scan.scanId,
      url: scan.url,
      status: scan.status,
      geoScore: scan.geoScore,
      citabilityGrade: scan.citabilityGrade,
      checklist: geo.checks,
      llmsTxt: scan.llmsTxt,
      createdAt: scan.createdAt
    }
  }
})
