import { load } from "cheerio"
import { isValidLanguage } from "../../../domain/LanguageCodes.ts"
import type { CheckOutcome } from "../../../domain/Scan.ts"
import { check, plural } from "./item.ts"
import { type Page, textOf } from "./Page.ts"

/** SEO checks beyond Lighthouse's: lengths, viewport, headings, language, sitemap. */

const charCount = (text: string) => [...text].length

const titleLength = (page: Page): CheckOutcome => {
  const title = page.$("head title").first()
  const text = title.length === 0 ? "" : textOf(title.toArray())
  if (text.length === 0) return undefined
  const result = check("seo.title-length", "seo", "Title is 30-60 characters", 0.5)
  const n = charCount(text)
  return n >= 30 && n <= 60
    ? result("pass", `The title has ${n} characters.`)
    : result(
      "warn",
      `The title has ${n} characters.`,
      n < 30
        ? "Lengthen the title to 30-60 characters with the topic and the brand."
        : "Shorten the title to at most 60 characters; longer ones are cut in results."
    )
}

const descriptionLength = (page: Page): CheckOutcome => {
  const text = page.metas.find((m) => m.name === "description")?.content.trim() ?? ""
  if (text.length === 0) return undefined
  const result = check("seo.meta-description-length", "seo", "Meta description is 50-160 characters", 0.5)
  const n = charCount(text)
  return n >= 50 && n <= 160
    ? result("pass", `The description has ${n} characters.`)
    : result(
      "warn",
      `The description has ${n} characters.`,
      n < 50 ? "Expand the description to 50-160 characters." : "Trim the description to at most 160 characters."
    )
}

export type ViewportVerdict = { readonly status: "pass" | "warn" | "fail"; readonly detail: string }

/** A mobile viewport: width or initial-scale set, zoom not disabled. */
export const viewportVerdict = (page: Page): ViewportVerdict => {
  const meta = page.metas.find((m) => m.name === "viewport")
  if (meta === undefined) {
    return { status: "fail", detail: "No <meta name=\"viewport\">: phones render the desktop layout zoomed out." }
  }
  const content = meta.content.toLowerCase().replace(/\s/g, "")
  const fields = Object.fromEntries(content.split(/[,;]/).map((pair) => pair.split("=") as [string, string?]))
  if (fields.width === undefined && fields["initial-scale"] === undefined) {
    return { status: "fail", detail: `The viewport "${meta.content}" sets neither width nor initial-scale.` }
  }
  const maxScale = Number(fields["maximum-scale"])
  if (
    fields["user-scalable"] === "no" || fields["user-scalable"] === "0" || (!Number.isNaN(maxScale) && maxScale < 2)
  ) {
    return { status: "warn", detail: `The viewport "${meta.content}" disables zooming.` }
  }
  return { status: "pass", detail: `Viewport: "${meta.content}".` }
}

/**
 * A missing or unusable viewport, as Lighthouse's former viewport audit judged
 * it. Disabled zoom does not count here: cro.mobile reports it, so that one
 * defect is one finding.
 */
const viewport = (page: Page): CheckOutcome => {
  const { status, detail } = viewportVerdict(page)
  return check("seo.viewport", "seo", "Page has a mobile viewport", 1)(
    status === "fail" ? "fail" : "pass",
    detail,
    "Add <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">: search engines index the phone layout."
  )
}

const h1 = (page: Page): CheckOutcome => {
  const result = check("seo.h1", "seo", "Page has one H1", 0.5)
  const count = page.$("h1").length
  return count === 1
    ? result("pass", `H1: "${textOf(page.$("h1").toArray())}"`)
    : count === 0
    ? result("fail", "The page has no <h1>.", "Give the page one <h1> stating its topic.")
    : result("warn", `The page has ${count} <h1> elements.`, "Keep one <h1> and turn the others into <h2>.")
}

const lang = (page: Page): CheckOutcome => {
  const result = check("seo.lang", "seo", "Document declares its language", 0.5)
  const value = page.$("html").attr("lang")
  if (value === undefined || value.trim() === "") {
    return result("fail", "<html> has no lang attribute.", "Declare the page language, e.g. <html lang=\"en\">.")
  }
  return isValidLanguage(value.trim().split("-")[0].toLowerCase())
    ? result("pass", `lang="${value}".`)
    : result("warn", `lang="${value}" is not a known language code.`, "Use an ISO 639 code such as en or en-GB.")
}

const sitemap = (page: Page): CheckOutcome => {
  const result = check("seo.sitemap", "seo", "Site has an XML sitemap", 0.5)
  const { url, status, content } = page.sitemap
  if (content !== null) {
    const $ = load(content, { xml: true })
    const root = $.root().children().first()
    const name = root.length === 0 ? "" : (root.prop("tagName") ?? "").toLowerCase().replace(/^.*:/, "")
    if (name === "urlset" || name === "sitemapindex") {
      const count = root.children().length
      return result("pass", `${url}: ${name} with ${plural(count, "entry")}.`)
    }
    return result(
      "warn",
      `${url} is not a sitemap (no <urlset> or <sitemapindex>).`,
      "Serve a sitemap that follows sitemaps.org: <urlset> with one <url><loc> per page."
    )
  }
  if (status !== null && status >= 500) {
    return result("warn", `${url} answered HTTP ${status}.`, "Fix the sitemap so it answers 200.")
  }
  return result(
    "fail",
    `No sitemap at ${url}${status === null ? "" : ` (HTTP ${status})`} and none named in robots.txt.`,
    "Publish /sitemap.xml listing your pages and name it in robots.txt with `Sitemap: https://...`."
  )
}

export const seoChecks: ReadonlyArray<(page: Page) => CheckOutcome> = [
  titleLength,
  descriptionLength,
  viewport,
  h1,
  lang,
  sitemap
]
