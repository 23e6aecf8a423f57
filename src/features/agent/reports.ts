import { Effect } from "effect"
import type { CustomerId } from "../../domain/Ids.ts"
import { reportQuestionOf } from "../../domain/Reports.ts"
import type { LinkedReport, LinkedSummary, Reports } from "../reports/Reports.ts"
import { reportsLine } from "./ReportAnswer.ts"

/** What a question about stored reports adds to an agent turn: the prompt's lines and the reports as data. */
export interface ReportsContext {
  /** System prompt lines: how to answer, and the reports line any model reads. */
  readonly lines: ReadonlyArray<string>
  /** The reports found, with their urls: `reports` always, `report` when one was read whole. */
  readonly data: {
    readonly reports: ReadonlyArray<LinkedSummary | LinkedReport>
    readonly report?: LinkedReport
  }
}

/**
 * The stored reports a question asks about ("what did our last SEO audit
 * find?", "list our reports"), read for the customer alone, or undefined
 * (and no query) when the question is not about reports. Chat and ask_cmo
 * both answer reports through this, whatever the model.
 */
export const reportsContext = (
  reports: Reports["Service"],
  customerId: CustomerId,
  question: string
): Effect.Effect<ReportsContext | undefined> => {
  const asked = reportQuestionOf(question)
  if (asked === undefined) return Effect.succeed(undefined)
  return Effect.map(reports.asked(customerId, asked), (found) => {
    const shown = found.whole.length > 0 ? found.whole : found.reports
    return {
      lines: [
        "The question is about the customer's stored reports, given below newest first: answer from them, naming each report's title, date and url; when none is stored, say so.",
        reportsLine(asked, shown)
      ],
      data: { reports: shown, ...(found.whole.length === 1 ? { report: found.whole[0]! } : {}) }
    }
  })
}
