import { load } from "cheerio"
import type { Element } from "domhandler"
import { lighthouseLlmsRule, type LlmsLink, parseLlmsTxt, renderLlmsTxt } from "../../../domain/LlmsTxt.ts"
import type { CheckOutcome } from "../../../domain/Scan.ts"
import { check, examples, plural } from "./item.ts"
import { blockingSources } from "./lighthouse.ts"
import { chrome, elementsIn, type Page, resolveUrl, textOf } from "./Page.ts"

/**
 * GEO: whether AI answer engines can fetch, read and cite the page. Access
 * outweighs content tweaks (C-SEO Bench finds most rewriting methods largely
 * ineffective), so the crawler check carries the most weight.
 */

/** Search and user-triggered fetchers: blocking one keeps the page out of that engine's answers. */
export const aiSearchCrawlers = [
  "OAI-SearchBot",
  "ChatGPT-User",
  "Claude-SearchBot",
  "Claude-User",
  "PerplexityBot",
  "Perplexity-User"
]
/** Training crawlers: blocking them is a legitimate choice, so it only warns. */
export const aiTrainingCrawlers = ["GPTBot", "ClaudeBot", "Google-Extended"]

const aiCrawlers = (page: Page): CheckOutcome => {
  const result = check("geo.ai-crawlers", "geo", "AI crawlers may fetch the page", 3)
  const blockedSearch = aiSearchCrawlers.filter((ua) => blockingSources(page, ua).length > 0)
  const blockedTraining = aiTrainingCrawlers.filter((ua) => blockingSources(page, ua).length > 0)
  if (blockedSearch.length > 0) {
    return result(
      "fail",
      `Blocked AI search crawlers: ${blockedSearch.join(", ")}` +
        (blockedTraining.length > 0 ? `; training crawlers blocked: ${blockedTraining.join(", ")}.` : "."),
      `Allow ${
        blockedSearch.join(", ")
      } in robots.txt (and drop noindex for them): they fetch pages for ChatGPT, Claude and Perplexity answers.`
    )
  }
  if (blockedTraining.length > 0) {
    return result(
      "warn",
      `AI search crawlers allowed; training crawlers blocked: ${blockedTraining.join(", ")}.`,
      "Fine if you do not want your content used for model training; answers can still cite you."
    )
  }
  return result(
    "pass",
    `All ${aiSearchCrawlers.length + aiTrainingCrawlers.length} AI crawlers checked may fetch the page.`
  )
}

const rawHtmlContent = (page: Page): CheckOutcome => {
  const result = check("geo.raw-html-content", "geo", "Content is in the served HTML", 2)
  const n = page.mainText.length
  const fix =
    "Render the main content on the server: AI crawlers do not run JavaScript, so they see only the served HTML."
  return n >= 500
    ? result("pass", `${n} characters of text in the served HTML.`)
    : n >= 100
    ? result("warn", `Only ${n} characters of text in the served HTML.`, fix)
    : result("fail", `${n} characters of text in the served HTML: the content is probably rendered by JavaScript.`, fix)
}

const typesOf = (node: Record<string, unknown>): ReadonlyArray<string> => {
  const type = node["@type"]
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === "string")
}

const knownTypes = new Set([
  "Organization",
  "LocalBusiness",
  "Corporation",
  "Person",
  "WebSite",
  "WebPage",
  "Article",
  "NewsArticle",
  "BlogPosting",
  "TechArticle",
  "Product",
  "Service",
  "SoftwareApplication",
  "FAQPage",
  "HowTo",
  "BreadcrumbList",
  "Event",
  "Recipe",
  "Course",
  "Review",
  "AggregateRating",
  "Offer",
  "ItemList",
  "VideoObject"
])
const identityTypes = new Set(["Organization", "LocalBusiness", "Corporation", "Person", "WebSite"])
const articleTypes = new Set(["Article", "NewsArticle", "BlogPosting", "TechArticle"])

const nameOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.trim() || undefined
  if (Array.isArray(value)) return nameOf(value[0])
  if (typeof value === "object" && value !== null) return nameOf((value as Record<string, unknown>).name)
  return undefined
}

const urlOf = (value: unknown): string | undefined => {
  if (Array.isArray(value)) return urlOf(value[0])
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    const url = record.url ?? record["@id"] ?? record.sameAs
    return typeof url === "string" ? url : Array.isArray(url) && typeof url[0] === "string" ? url[0] : undefined
  }
  return undefined
}

const structuredData = (page: Page): CheckOutcome => {
  const result = check("geo.structured-data", "geo", "Structured data identifies the site and content", 2)
  const fix = "Add JSON-LD: an Organization (or Person/WebSite) with name and url, and Article markup with " +
    "datePublished, dateModified and author on content pages."
  const types = page.jsonLd.flatMap(typesOf)
  if (types.length === 0) {
    return page.jsonLdErrors > 0
      ? result("warn", `${plural(page.jsonLdErrors, "JSON-LD block")} could not be parsed.`, fix)
      : result("fail", "No JSON-LD structured data.", fix)
  }
  const identity = page.jsonLd.find((n) =>
    typesOf(n).some((t) => identityTypes.has(t)) && nameOf(n) && typeof n.url === "string"
  )
  const article = page.jsonLd.find((n) =>
    typesOf(n).some((t) => articleTypes.has(t)) && n.datePublished && nameOf(n.author)
  )
  const known = [...new Set(types.filter((t) => knownTypes.has(t)))]
  if (known.length > 0 && (identity !== undefined || article !== undefined) && page.jsonLdErrors === 0) {
    return result(
      "pass",
      `JSON-LD types: ${known.join(", ")}${identity ? `; identity "${nameOf(identity)}"` : ""}${
        article ? "; article with date and author" : ""
      }.`
    )
  }
  return result(
    "warn",
    `JSON-LD types: ${[...new Set(types)].join(", ")}` +
      (page.jsonLdErrors > 0 ? `; ${plural(page.jsonLdErrors, "block")} unparseable` : "") +
      "; no identity with name and url, and no article with date and author.",
    fix
  )
}

// A figure starts at the first digit of its run of digits, commas and dots: a
// later digit would read the same run again to the same verdict (quadratic on
// a long run). A count with a unit may also start at the digit after the
// run's first separator when the run is glued to a word ("v2,5 users"), where
// its first digit is no word start.
const statisticPattern =
  /\d(?<!\d[,.]*\d)[\d,.]*\s?%|[$€£¥]\s?\d[\d,.]*(?:\s?(?:k|m|bn|billion))?|\b\d(?:(?<!\d[,.]*\d)|(?<=[^\W\d]\d+[,.]+\d))[\d,.]*\s?(?:million|billion|thousand|users|customers|people|hours|minutes|days|years|kg|km|mb|gb|tb|ms|x)\b|\b(?:19|20)\d{2}\b/gi

const statistics = (page: Page): CheckOutcome => {
  const result = check("geo.statistics", "geo", "Content cites figures", 2)
  const found = page.mainText.match(statisticPattern) ?? []
  const fix =
    "Add concrete, sourced figures (percentages, amounts, dates): answers quote specific numbers. Use real data, never invented."
  return found.length >= 3
    ? result("pass", `${plural(found.length, "figure")}: ${examples([...new Set(found)])}.`)
    : found.length > 0
    ? result("warn", `Only ${plural(found.length, "figure")}: ${examples(found)}.`, fix)
    : result("fail", "No figures, percentages or dates in the content.", fix)
}

/** Elements named in `names` in the main content (main or article, else body), outside page chrome. */
const inContent = (page: Page, ...names: ReadonlyArray<string>): ReadonlyArray<Element> => {
  const root = page.$("main").get(0) ?? page.$("article").get(0) ?? page.$("body").get(0)
  return root === undefined ? [] : elementsIn(root, new Set(names), chrome)
}

const citations = (page: Page): CheckOutcome => {
  const result = check("geo.citations", "geo", "Content cites its sources", 2)
  const host = new URL(page.url).hostname
  const external = new Set(
    inContent(page, "a").flatMap((a) => {
      const url = URL.parse(a.attribs.href ?? "", page.baseUrl)
      return url !== null && /^https?:$/.test(url.protocol) && url.hostname !== host ? [url.href] : []
    })
  )
  const cites = inContent(page, "cite").length
  const sourcesHeading = page.$("h2, h3, h4").toArray().some((h) =>
    /^(?:sources|references|citations|bibliography)\b/i.test(textOf(h))
  )
  const count = external.size + cites + (sourcesHeading ? 1 : 0)
  const fix = "Link the studies, data and experts your claims rest on; answer engines favour pages that cite sources."
  return count >= 2
    ? result(
      "pass",
      `${plural(external.size, "external link")} in the content, ${plural(cites, "<cite>")}${
        sourcesHeading ? ", a sources section" : ""
      }.`
    )
    : count === 1
    ? result("warn", "One citation in the content.", fix)
    : result("fail", "No external sources cited in the content.", fix)
}

const attribution = new Set(["cite", "footer", "figcaption"])

const quotations = (page: Page): CheckOutcome => {
  const result = check("geo.quotations", "geo", "Content carries attributed quotations", 1.5)
  const quotes = page.$("blockquote, q").toArray()
  const fix = "Quote named experts or customers (<blockquote> with a <cite> or a named source); use real quotes only."
  if (quotes.length === 0) return result("fail", "No quotations.", fix)
  const attributed = quotes.filter((q) =>
    q.attribs.cite !== undefined || elementsIn(q, attribution).length > 0 ||
    (q.parent?.type === "tag" && (q.parent as Element).name === "figure" &&
      elementsIn(q.parent, attribution).length > 0) ||
    /(?:^|\s)[—–-]\s*\p{Lu}/u.test(textOf(q).slice(-80))
  )
  return attributed.length > 0
    ? result("pass", `${plural(attributed.length, "attributed quotation")}.`)
    : result("warn", `${plural(quotes.length, "quotation")} without attribution.`, fix)
}

const headings = (page: Page): CheckOutcome => {
  const result = check("geo.headings", "geo", "Headings outline the content", 1.5)
  const levels = page.$("h1, h2, h3, h4, h5, h6").toArray().map((h) => Number(h.name.slice(1)))
  const oneH1 = levels.filter((l) => l === 1).length === 1
  const twoH2 = levels.filter((l) => l === 2).length >= 2
  const noSkip = levels.every((l, i) => i === 0 || l <= levels[i - 1] + 1)
  const met = [oneH1, twoH2, noSkip].filter(Boolean).length
  const detail = `${plural(levels.length, "heading")}: ${oneH1 ? "one H1" : "not exactly one H1"}, ` +
    `${twoH2 ? "at least two H2" : "fewer than two H2"}, ${noSkip ? "no skipped levels" : "skipped levels"}.`
  const fix =
    "Structure the page as one H1 and a H2 per topic (H3 beneath), without skipping levels: engines lift sections by heading."
  return levels.length === 0
    ? result("fail", "No headings.", fix)
    : met === 3
    ? result("pass", detail)
    : result(met === 0 ? "fail" : "warn", detail, fix)
}

const answerable = (page: Page): CheckOutcome => {
  const result = check("geo.answerable-structure", "geo", "Content answers questions in lists, tables or FAQs", 1.5)
  const lists = inContent(page, "ul", "ol").filter((l) => page.$(l).children("li").length >= 2).length +
    inContent(page, "table").length
  const questions = page.$("h2, h3, h4, summary, dt").toArray().filter((h) => textOf(h).endsWith("?")).length
  const faq = page.jsonLd.some((n) => typesOf(n).includes("FAQPage"))
  const hasQuestions = questions > 0 || faq
  const detail = `${plural(lists, "list or table")}; ${plural(questions, "question heading")}${
    faq ? "; FAQPage markup" : ""
  }.`
  const fix =
    "Answer the questions buyers ask under question-form headings, with short lists or tables engines can lift."
  return lists > 0 && hasQuestions
    ? result("pass", detail)
    : lists > 0 || hasQuestions
    ? result("warn", detail, fix)
    : result("fail", detail, fix)
}

const months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

// Dates as people write them in copy: 2026-03-12, 12 March 2026, March 12, 2026 (month names in English).
// Each is a run of fixed parts with single bounded repeats: linear on any text.
const isoDate = /\b(\d{4})-(\d{2})-(\d{2})\b/g
const dayMonthYear =
  /\b(\d{1,2})(?:st|nd|rd|th)? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?,? (\d{4})\b/gi
const monthDayYear =
  /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b/gi

const utc = (year: string, month: number, day: string): number => {
  const time = Date.UTC(Number(year), month, Number(day))
  // 31 February is not a date: Date.UTC would roll it into March.
  return new Date(time).getUTCDate() === Number(day) && month >= 0 && month < 12 ? time : Number.NaN
}

/** Every date written in `text` in one of the forms people write them. */
export const datesInText = (text: string): ReadonlyArray<number> => {
  const out: Array<number> = []
  for (const [, y, m, d] of text.matchAll(isoDate)) out.push(utc(y, Number(m) - 1, d))
  for (const [, d, m, y] of text.matchAll(dayMonthYear)) out.push(utc(y, months.indexOf(m.toLowerCase()), d))
  for (const [, m, d, y] of text.matchAll(monthDayYear)) out.push(utc(y, months.indexOf(m.toLowerCase()), d))
  return out.filter((t) => !Number.isNaN(t))
}

/** Markup that is not shown: what the visible text leaves out. */
const hidden: ReadonlySet<string> = new Set(["script", "style", "noscript", "template", "svg", "head"])

/**
 * The dates a reader can see on the page, or that the page states as data:
 * structured data (JSON-LD and microdata `datePublished`/`dateModified`,
 * Open Graph article times), `<time>` elements (their `datetime`, else their
 * text) and dates written in the visible text. Transport headers
 * (`Last-Modified`) say when a file changed on a server, not when its content
 * was written, and a reader never sees them: they do not count.
 */
const dates = (page: Page): ReadonlyArray<number> => {
  const out: Array<string> = []
  for (const node of page.jsonLd) {
    for (const key of ["dateModified", "datePublished"]) {
      if (typeof node[key] === "string") out.push(node[key] as string)
    }
  }
  for (const meta of page.$("meta[property], meta[name]").toArray()) {
    const key = (meta.attribs.property ?? meta.attribs.name ?? "").toLowerCase()
    if (["article:modified_time", "article:published_time", "og:updated_time"].includes(key)) {
      out.push(meta.attribs.content ?? "")
    }
  }
  for (const item of page.$("[itemprop=datePublished], [itemprop=dateModified]").toArray()) {
    out.push(item.attribs.content ?? item.attribs.datetime ?? textOf([item]))
  }
  for (const time of page.$("time").toArray()) out.push(time.attribs.datetime ?? textOf([time]))
  const parsed = out.map((d) => Date.parse(d)).filter((t) => !Number.isNaN(t))
  return [...parsed, ...datesInText(textOf(page.$("body").toArray(), hidden))]
}

const freshness = (page: Page): CheckOutcome => {
  const result = check("geo.freshness", "geo", "Content shows when it was updated", 1)
  const found = dates(page)
  const fix = "Show a visible updated date and set dateModified in Article JSON-LD; refresh content at least yearly."
  if (found.length === 0) return result("fail", "No publication or modification date found.", fix)
  const latest = Math.max(...found)
  const days = Math.floor((page.fetchedAt.getTime() - latest) / 86_400_000)
  const when = new Date(latest).toISOString().slice(0, 10)
  return days <= 365
    ? result("pass", `Last dated ${when}.`)
    : result("warn", `Last dated ${when}, ${days} days ago.`, fix)
}

const author = (page: Page): CheckOutcome => {
  const result = check("geo.author", "geo", "Content names its author", 1)
  const fix = "Name the author with a link to their profile (JSON-LD `author: {name, url}` or rel=author)."
  const ld = page.jsonLd.map((n) => n.author).find((a) => a !== undefined)
  const ldName = nameOf(ld)
  const relAuthor = page.$("a[rel~=author], link[rel~=author]").first()
  const metaName = page.metas.find((m) => m.name === "author")?.content.trim()
  const name = ldName ?? metaName ?? (relAuthor.length > 0 ? textOf(relAuthor.toArray()) : undefined)
  const url = urlOf(ld) ?? (relAuthor.length > 0 ? relAuthor.attr("href") : undefined)
  if (name && url) return result("pass", `Author: ${name} (${url}).`)
  if (name) return result("warn", `Author: ${name}, without a profile link.`, fix)
  return result("fail", "No author named.", fix)
}

const llmsTxt = (page: Page): CheckOutcome => {
  const result = check("geo.llms-txt", "geo", "Site publishes a valid llms.txt", 1)
  const { status, content, url } = page.llms
  const fix =
    "Publish /llms.txt: `# Name`, a `> summary` line, then `## Section` lists of `- [Page](url): note` (see the proposal in llmsTxt)."
  if (status !== null && status >= 500) return result("fail", `${url} answered HTTP ${status}.`, fix)
  if (content === null) return result("warn", `No llms.txt (${status === null ? "no answer" : `HTTP ${status}`}).`, fix)
  const parsed = parseLlmsTxt(content)
  if (!parsed.ok) return result("fail", `llms.txt is malformed: ${parsed.errors.slice(0, 2).join("; ")}.`, fix)
  const complete = lighthouseLlmsRule(content) && parsed.file.summary !== undefined && parsed.file.sections.length > 0
  const full = page.llmsFull.status !== null && page.llmsFull.status >= 200 && page.llmsFull.status < 300
    ? "; /llms-full.txt is published too"
    : ""
  return complete
    ? result("pass", `llms.txt "${parsed.file.title}" with ${plural(parsed.file.sections.length, "section")}${full}.`)
    : result("warn", "llms.txt parses but lacks a summary, a link section or 50 characters.", fix)
}

export const geoChecks: ReadonlyArray<(page: Page) => CheckOutcome> = [
  aiCrawlers,
  rawHtmlContent,
  structuredData,
  statistics,
  citations,
  quotations,
  headings,
  answerable,
  freshness,
  author,
  llmsTxt
]

// ---- The proposed llms.txt -------------------------------------------------------

const optionalPage = /privacy|terms|legal|cookie|contact|imprint|impressum/i

const sitemapLinks = (page: Page): ReadonlyArray<string> => {
  if (page.sitemap.content === null) return []
  const $ = load(page.sitemap.content, { xml: true })
  return $("url > loc").toArray().map((loc) => $(loc).text().trim()).filter((u) => URL.canParse(u))
}

/** A proposed llms.txt: H1 the organisation, summary the description, the site's main pages, then the optional ones. */
export const proposeLlmsTxt = (page: Page): string => {
  const org = page.jsonLd.find((n) => typesOf(n).some((t) => identityTypes.has(t) && t !== "WebSite") && nameOf(n))
  const siteName = page.metas.find((m) => m.property === "og:site_name")?.content
  const title = (org ? nameOf(org) : undefined) ?? siteName ?? textOf(page.$("title").toArray()) ??
    new URL(page.url).hostname
  const summary = page.metas.find((m) => m.name === "description")?.content ??
    page.metas.find((m) => m.property === "og:description")?.content
  const origin = new URL(page.url).origin
  const seen = new Set<string>()
  const main: Array<LlmsLink> = []
  const optional: Array<LlmsLink> = []
  const add = (href: string, name: string) => {
    const url = resolveUrl(href, page.baseUrl)
    if (url === null || new URL(url).origin !== origin) return
    const key = url.split("#", 1)[0]
    if (seen.has(key)) return
    seen.add(key)
    const link = { name: name || new URL(key).pathname, url: key }
    if (optionalPage.test(key) || optionalPage.test(name)) optional.push(link)
    else if (main.length < 25) main.push(link)
  }
  add(page.url, title || "Home")
  for (const a of page.$("nav a[href], header a[href]").toArray()) add(a.attribs.href ?? "", textOf(a))
  for (const loc of sitemapLinks(page)) add(loc, "")
  for (const a of page.$("footer a[href]").toArray()) {
    if (optionalPage.test(a.attribs.href ?? "") || optionalPage.test(textOf(a))) add(a.attribs.href ?? "", textOf(a))
  }
  return renderLlmsTxt({
    title: title || new URL(page.url).hostname,
    summary,
    sections: [{ name: "Main pages", links: main }, { name: "Optional", links: optional }]
  })
}
