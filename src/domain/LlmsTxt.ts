/**
 * llms.txt (AnswerDotAI/llms-txt): an optional BOM, `# Name` (the only
 * required part), an optional `> summary`, free Markdown details, then `##`
 * sections each listing `- [name](url): notes`. Pure parse, check and build.
 */

export interface LlmsLink {
  readonly name: string
  readonly url: string
  readonly notes?: string | undefined
}

export interface LlmsTxt {
  readonly title: string
  readonly summary: string | undefined
  readonly details: string
  readonly sections: ReadonlyArray<{ readonly name: string; readonly links: ReadonlyArray<LlmsLink> }>
}

export type LlmsParse =
  | { readonly ok: true; readonly file: LlmsTxt }
  | { readonly ok: false; readonly errors: ReadonlyArray<string> }

/** `- [name](url)` and what follows: nothing, or `: notes` (checked by `linkNotes`). */
const linkLine = /^-\s*\[([^\]]+)\]\(([^)\s]+)\)(.*)$/s

/**
 * The notes after a link: undefined when there are none, null when what
 * follows is not `:` and one line of notes (line breaks only in the blanks
 * right after the colon, as `(?::\s*(.*))?$` reads it without backtracking).
 */
const linkNotes = (rest: string): string | undefined | null => {
  if (rest === "") return undefined
  const notes = rest.slice(1).trimStart()
  return rest[0] !== ":" || /[\n\r\u2028\u2029]/.test(notes) ? null : notes.trim() || undefined
}

/**
 * Whether a line holds a Markdown link `[text](url)` (what `/\[.+?\]\(.+?\)/`
 * finds): the first `[` of the line, the first `](` after its text, then a `)`.
 */
const hasMarkdownLink = (text: string): boolean =>
  text.split(/[\n\r\u2028\u2029]/).some((line) => {
    const open = line.indexOf("[")
    const middle = open < 0 ? -1 : line.indexOf("](", open + 2)
    return middle >= 0 && line.indexOf(")", middle + 3) >= 0
  })

/** Parses by the llmstxt.org format's rules; errors name each line that breaks them. */
export const parseLlmsTxt = (input: string): LlmsParse => {
  const text = input.replace(/^\uFEFF/, "")
  const lines = text.split(/\r\n|\r|\n/)
  const errors: Array<string> = []
  let i = 0
  while (i < lines.length && lines[i].trim() === "") i++
  const h1 = /^#\s+(\S.*)$/.exec(lines[i] ?? "")
  if (h1 === null) return { ok: false, errors: ["the file must start with a `# Name` heading"] }
  const title = h1[1].trim()
  i++
  while (i < lines.length && lines[i].trim() === "") i++
  let summary: string | undefined
  const quote: Array<string> = []
  while (i < lines.length && /^>/.test(lines[i])) quote.push(lines[i++].replace(/^>\s?/, ""))
  if (quote.length > 0) summary = quote.join(" ").trim()
  const details: Array<string> = []
  while (i < lines.length && !/^##\s/.test(lines[i])) {
    if (/^#\s/.test(lines[i])) errors.push(`line ${i + 1}: a second \`#\` heading`)
    details.push(lines[i++])
  }
  const sections: Array<{ name: string; links: Array<LlmsLink> }> = []
  for (; i < lines.length; i++) {
    const line = lines[i]
    const h2 = /^##\s+(\S.*)$/.exec(line)
    if (h2 !== null) {
      sections.push({ name: h2[1].trim(), links: [] })
      continue
    }
    if (line.trim() === "") continue
    const link = linkLine.exec(line.trim())
    const notes = link === null ? null : linkNotes(link[3])
    if (link === null || notes === null || sections.length === 0) {
      errors.push(`line ${i + 1}: a section holds only \`- [name](url): notes\` items`)
      continue
    }
    sections[sections.length - 1].links.push({ name: link[1], url: link[2], notes })
  }
  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, file: { title, summary, details: details.join("\n").trim(), sections } }
}

/** Lighthouse 13's `llms-txt` audit: a `# ` heading, a Markdown link and at least 50 characters. */
export const lighthouseLlmsRule = (text: string): boolean =>
  /^#\s+.+/m.test(text) && hasMarkdownLink(text) && text.length >= 50

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

/** A link name that cannot close its brackets early. */
const linkName = (text: string) => oneLine(text).replace(/[[\]]/g, "").trim()

/** A URL that cannot close the parenthesis or break the line. */
const linkUrl = (url: string) =>
  url.replace(/[()\s]/g, (c) => (c === "(" ? "%28" : c === ")" ? "%29" : encodeURIComponent(c)))

export interface LlmsDraft {
  readonly title: string
  readonly summary?: string | undefined
  readonly sections: ReadonlyArray<{ readonly name: string; readonly links: ReadonlyArray<LlmsLink> }>
}

/** Writes a file that `parseLlmsTxt` accepts whatever the draft holds (empty parts are left out). */
export const renderLlmsTxt = (draft: LlmsDraft): string => {
  const title = linkName(draft.title).replace(/^#+\s*/, "") || "Website"
  const out = [`# ${title}`, ""]
  const summary = draft.summary === undefined ? "" : oneLine(draft.summary)
  if (summary.length > 0) out.push(`> ${summary}`, "")
  for (const section of draft.sections) {
    const links = section.links
      .map((l) => ({ name: linkName(l.name) || linkName(l.url), url: linkUrl(l.url), notes: oneLine(l.notes ?? "") }))
      .filter((l) => l.name.length > 0 && l.url.length > 0)
    const name = linkName(section.name)
    if (links.length === 0 || name.length === 0) continue
    out.push(`## ${name}`, "")
    for (const l of links) out.push(`- [${l.name}](${l.url})${l.notes.length > 0 ? `: ${l.notes}` : ""}`)
    out.push("")
  }
  return out.join("\n").trimEnd() + "\n"
}
