import type { Category, ChecklistItem, CheckStatus } from "../../../domain/Scan.ts"

/** A check's fixed parts; `result` adds what this page showed. */
export const check =
  (id: string, category: Category, title: string, weight: number) =>
  (status: CheckStatus, detail: string, recommendation = ""): ChecklistItem => ({
    id,
    category,
    title,
    status,
    weight,
    detail,
    recommendation: status === "pass" ? "" : recommendation
  })

/** At most `n` examples, quoted, for a detail line. */
export const examples = (values: ReadonlyArray<string>, n = 3): string => {
  const shown = values.slice(0, n).map((v) => `"${v.length > 80 ? v.slice(0, 77) + "..." : v}"`).join(", ")
  return values.length > n ? `${shown} and ${values.length - n} more` : shown
}

export const plural = (count: number, word: string) =>
  `${count} ${count === 1 ? word : word.endsWith("y") ? word.slice(0, -1) + "ies" : word + "s"}`
