import { joinList, trimTrailing } from "../../domain/Copywriting.ts"
import {
  formatFigure,
  type ReportFigure,
  type ReportKind,
  ReportKind as ReportKinds,
  reportKindNames,
  type ReportQuestion
} from "../../domain/Reports.ts"

/** The line of a system prompt that carries the stored reports a question is about, as JSON. */
export const reportsMarker = "Reports (JSON): "

/** A report as the reports line carries it: the body only for the reports read whole. */
export interface ReportInPrompt {
  readonly reportId: string
  readonly kind: ReportKind
  readonly title: string
  readonly createdAt: string
  readonly url: string
  readonly figures?: ReadonlyArray<ReportFigure> | undefined
  readonly body?: string | undefined
}

export interface ReportsInPrompt extends ReportQuestion {
  readonly reports: ReadonlyArray<ReportInPrompt>
}

/** How much of a report's body goes into a prompt: the answer quotes from it, the data carries it whole. */
const bodyInPrompt = 8_000

/** The reports line of a system prompt (the chat and ask_cmo put it there; any model reads it). */
export const reportsLine = (question: ReportQuestion, reports: ReadonlyArray<ReportInPrompt>): string =>
  `${reportsMarker}${
    JSON.stringify(
      {
        ...question,
        reports: reports.map((report) =>
          report.body === undefined
            ? report
            : { ...report, body: Array.from(report.body).slice(0, bodyInPrompt).join("") }
        )
      } satisfies ReportsInPrompt
    )
  }`

/** The reports line of a system prompt read back, or undefined when there is none (or it is not JSON). */
export const parseReportsLine = (system: string): ReportsInPrompt | undefined => {
  const line = system.split("\n").find((l) => l.startsWith(reportsMarker))
  if (line === undefined) return undefined
  try {
    const value = JSON.parse(line.slice(reportsMarker.length)) as Partial<ReportsInPrompt> | null
    if (typeof value !== "object" || value === null || !Array.isArray(value.reports)) return undefined
    const kinds = Array.isArray(value.kinds)
      ? value.kinds.filter((k): k is ReportKind => (ReportKinds.literals as ReadonlyArray<unknown>).includes(k))
      : []
    return {
      kinds: kinds.length > 0 ? kinds : ReportKinds.literals,
      list: value.list === true,
      about: typeof value.about === "string" ? value.about : undefined,
      reports: value.reports.filter((r): r is ReportInPrompt =>
        typeof r === "object" && r !== null && typeof r.title === "string" && typeof r.url === "string" &&
        typeof r.createdAt === "string" && typeof r.kind === "string"
      )
    }
  } catch {
    return undefined
  }
}

const dateOf = (iso: string): string => {
  const at = new Date(iso)
  return Number.isNaN(at.getTime())
    ? iso
    : at.toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })
}

const kindName = (kind: ReportKind) => reportKindNames[kind] ?? "Report"
const lowerKind = (kind: ReportKind) => kind === "seo-audit" ? "SEO audit" : kindName(kind).toLowerCase()

/** "an SEO audit", "a competitor brief", "a report" for several kinds. */
const aKind = (kinds: ReadonlyArray<ReportKind>) =>
  kinds.length === 1 ? `${kinds[0] === "seo-audit" ? "an" : "a"} ${lowerKind(kinds[0]!)}` : "a report"

/** How to get a report of each kind that is missing: what a marketer does next. */
const howToGet: Record<ReportKind, string> = {
  "seo-audit": "ask me to audit your site (\"audit https://…\") or run the monthly-seo-audit workflow",
  "competitor-brief": "ask me to compare you with your competitors (\"compare us with Rival Co\")",
  "performance-report": "run the performance-report workflow (it reads your figures and writes the report)"
}

/** A report's list items ("- …") under its findings heading, else anywhere, else its first paragraphs. */
const findingsOf = (body: string): ReadonlyArray<string> => {
  const blocks = body.split(/\n+/).map((line) => line.trim()).filter((line) => line.length > 0)
  const items = (lines: ReadonlyArray<string>) =>
    lines.filter((line) => /^(?:[-*•]|\d{1,2}[.)])\s/.test(line)).map((line) =>
      line.replace(/^(?:[-*•]|\d{1,2}[.)])\s+/, "")
    )
  const heading = blocks.findIndex((line) => /^#{1,6}\s.*\bfindings?\b/i.test(line))
  if (heading >= 0) {
    const next = blocks.findIndex((line, i) => i > heading && line.startsWith("#"))
    const under = items(blocks.slice(heading + 1, next < 0 ? undefined : next))
    if (under.length > 0) return under
  }
  const anywhere = items(blocks)
  return anywhere.length > 0 ? anywhere : blocks.filter((line) => !line.startsWith("#")).slice(0, 2)
}

/** A report's recommendations, when it has a heading for them. */
const recommendationsOf = (body: string): ReadonlyArray<string> => {
  const blocks = body.split(/\n+/).map((line) => line.trim()).filter((line) => line.length > 0)
  const heading = blocks.findIndex((line) => /^#{1,6}\s.*\brecommend/i.test(line))
  if (heading < 0) return []
  const next = blocks.findIndex((line, i) => i > heading && line.startsWith("#"))
  return blocks.slice(heading + 1, next < 0 ? undefined : next).filter((line) => /^[-*•]\s/.test(line)).map((line) =>
    line.replace(/^[-*•]\s+/, "")
  )
}

const figuresLine = (figures: ReadonlyArray<ReportFigure> | undefined): string | undefined =>
  figures === undefined || figures.length === 0
    ? undefined
    : `Key figures: ${figures.map((f) => `${f.label} ${formatFigure(f)}`).join(", ")}.`

const bullets = (lines: ReadonlyArray<string>, max: number) => lines.slice(0, max).map((line) => `- ${line}`).join("\n")

/** The sentences and list items of a body that name every word of the subject asked about. */
const passagesAbout = (body: string, subject: string): ReadonlyArray<string> => {
  const words = subject.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 2)
  if (words.length === 0) return []
  const passages = body.split(/\n+/).map((line) => line.replace(/^(?:#{1,6}|[-*•]|\d{1,2}[.)])\s+/, "").trim())
    .filter((line) => line.length > 0)
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
  return [...new Set(passages.filter((p) => words.every((w) => p.toLowerCase().includes(w))))]
}

/** One report read for the marketer: its title and date, key figures, findings (or what it says about the subject), link. */
const oneReport = (report: ReportInPrompt, about: string | undefined): string => {
  const body = report.body ?? ""
  const intro = `The latest ${lowerKind(report.kind)} is "${report.title}" (${dateOf(report.createdAt)}).`
  if (about !== undefined) {
    const passages = passagesAbout(body, about)
    return [
      passages.length === 0
        ? `${intro} It says nothing about ${trimTrailing(about, ".?! ")}.`
        : `${intro} What it says about ${trimTrailing(about, ".?! ")}:\n\n${bullets(passages, 6)}`,
      passages.length === 0 ? figuresLine(report.figures) : undefined,
      `Read it whole: ${report.url}`
    ].filter((part): part is string => part !== undefined).join("\n\n")
  }
  // A finding that only restates a key figure ("SEO score: 62/100") is left to the figures line.
  const restates = (line: string) =>
    (report.figures ?? []).some((figure) => line.toLowerCase().startsWith(`${figure.label.toLowerCase()}:`))
  const findings = findingsOf(body).filter((line) => !restates(line))
  const recommendations = recommendationsOf(body)
  return [
    intro,
    figuresLine(report.figures),
    findings.length === 0 ? undefined : `What it found:\n${bullets(findings, 6)}`,
    recommendations.length === 0 ? undefined : `What it recommends:\n${bullets(recommendations, 3)}`,
    `Read it whole: ${report.url}`
  ].filter((part): part is string => part !== undefined).join("\n\n")
}

/**
 * The answer to a question about stored reports, from the reports line alone:
 * a list (title, kind, date, link), or the report read (title, date, key
 * figures, findings, link); when none is stored, that, and how to get one.
 */
export const reportsAnswer = (asked: ReportsInPrompt | undefined, brandName: string): string => {
  if (asked === undefined) {
    // Reports are read for a question that names them; a follow-up that does not ("and the other one?") gets this.
    return "Which report do you mean? Name it (\"the latest SEO audit\", \"the competitor brief\", \"the performance report\") or ask me to list your reports; the dashboard lists them under Reports too."
  }
  const missing = asked.kinds.filter((kind) => !asked.reports.some((report) => report.kind === kind))
  const named = asked.kinds.length < ReportKinds.literals.length
  if (asked.reports.length === 0) {
    const what = named ? aKind(asked.kinds).replace(/^an? /, "") : "report"
    return `No ${what} is stored for ${brandName} yet, so I have nothing to read from. To get ${
      named ? aKind(asked.kinds) : "one"
    }, ${
      joinList((named ? asked.kinds : ReportKinds.literals).map((kind) => howToGet[kind]))
    }; it is kept with your reports.`
  }
  if (asked.list) {
    const lines = asked.reports.map((report, i) =>
      `${i + 1}. "${report.title}" (${lowerKind(report.kind)}, ${dateOf(report.createdAt)}): ${report.url}`
    )
    const n = asked.reports.length
    return `${n === 1 ? "One report is" : `${n} reports are`} stored for ${brandName}, newest first:\n\n${
      lines.join("\n")
    }\n\nAsk me "what did the last one find?" or name the kind ("the latest SEO audit") and I will read it.`
  }
  const read = asked.reports.map((report) => oneReport(report, asked.about))
  const absent = named && missing.length > 0
    ? [`No ${joinList(missing.map(lowerKind))} is stored yet: ${joinList(missing.map((kind) => howToGet[kind]))}.`]
    : []
  return [...read, ...absent].join("\n\n")
}
