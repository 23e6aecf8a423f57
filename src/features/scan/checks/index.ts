import { type ChecklistItem, type CheckOutcome, scoreChecklist, type Scores } from "../../../domain/Scan.ts"
import type { SiteSnapshot } from "../Fetch.ts"
import { croChecks } from "./cro.ts"
import { geoChecks, proposeLlmsTxt } from "./geo.ts"
import { lighthouseChecks } from "./lighthouse.ts"
import { toPage } from "./Page.ts"
import { seoChecks } from "./seo.ts"

export const allChecks = [...lighthouseChecks, ...seoChecks, ...geoChecks, ...croChecks]

export interface Analysis extends Scores {
  readonly checklist: ReadonlyArray<ChecklistItem>
  readonly llmsTxt: string
}

/** Every check over one fetched page (n/a ones left out), the scores and a proposed llms.txt. Pure. */
export const analyse = (snapshot: SiteSnapshot): Analysis => {
  const page = toPage(snapshot)
  const outcomes: ReadonlyArray<CheckOutcome> = allChecks.map((run) => run(page))
  const checklist = outcomes.filter((item): item is ChecklistItem => item !== undefined)
  return { ...scoreChecklist(checklist), checklist, llmsTxt: proposeLlmsTxt(page) }
}
