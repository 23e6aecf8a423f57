import type { Element } from "domhandler"
import { isValidLanguage } from "../../../domain/LanguageCodes.ts"
import { isAllowed, validateRobots } from "../../../domain/Robots.ts"
import type { CheckOutcome } from "../../../domain/Scan.ts"
import { check, examples, plural } from "./item.ts"
import { type Anchor, type Page, textOf } from "./Page.ts"

/**
 * Lighthouse's SEO audits (lighthouse 13, core/audits/seo/*.js and the two axe
 * audits of its SEO category), rule for rule over the fetched HTML, headers
 * and robots.txt. Each carries Lighthouse's audit id, passes or fails as
 * Lighthouse would score it, and is undefined where Lighthouse finds it not
 * applicable. Weights are our SEO score's (is-crawlable 5.5: a blocked page
 * fails the category, as in Lighthouse).
 */

// ---- is-crawlable --------------------------------------------------------------

/** The five crawlers Lighthouse asks about; undefined is the generic `robots` / `*`. */
export const searchCrawlers: ReadonlyArray<string | undefined> = [
  undefined,
  "Googlebot",
  "bingbot",
  "DuckDuckBot",
  "archive.org_bot"
]

const isUnavailable = (directive: string, now: number) => {
  const parts = directive.split(":")
  if (parts.length <= 1 || parts[0] !== "unavailable_after") return false
  const date = Date.parse(parts.slice(1).join(":"))
  return !Number.isNaN(date) && date < now
}

const hasBlockingDirective = (directives: string, now: number) =>
  directives.split(",").map((d) => d.toLowerCase().trim())
    .some((d) => d === "noindex" || d === "none" || isUnavailable(d, now))

const headerUserAgent = (directives: string): string | undefined => {
  const parts = /^([^,:]+):/.exec(directives)
  return parts !== null && parts[1].toLowerCase() !== "unavailable_after" ? parts[1] : undefined
}

/** Why `userAgent` may not index the page (meta robots, X-Robots-Tag, robots.txt); empty when it may. */
export const blockingSources = (page: Page, userAgent: string | undefined): ReadonlyArray<string> => {
  const now = page.fetchedAt.getTime()
  const sources: Array<string> = []
  const meta = (userAgent === undefined ? undefined : page.metas.find((m) => m.name === userAgent.toLowerCase())) ??
    page.metas.find((m) => m.name === "robots")
  if (meta !== undefined && hasBlockingDirective(meta.content, now)) {
    sources.push(`<meta name="${meta.name}" content="${meta.content}">`)
  }
  const header = page.headers["x-robots-tag"]
  if (header !== undefined) {
    const agent = headerUserAgent(header)
    if (agent === userAgent || agent === undefined) {
      const value = userAgent !== undefined && header.startsWith(`${userAgent}:`)
        ? header.replace(`${userAgent}:`, "")
        : header.trim()
      if (hasBlockingDirective(value, now)) sources.push(`X-Robots-Tag: ${header}`)
    }
  }
  if (page.robotsTxt !== undefined && !isAllowed(page.robotsTxt, page.url, userAgent)) {
    sources.push(`robots.txt disallows ${new URL(page.url).pathname} for ${userAgent ?? "*"}`)
  }
  return sources
}

const isCrawlable = (page: Page): CheckOutcome => {
  const result = check("is-crawlable", "seo", "Page isn't blocked from indexing", 5.5)
  const blocked = searchCrawlers.filter((ua) => blockingSources(page, ua).length > 0)
  if (blocked.length === searchCrawlers.length) {
    return result(
      "fail",
      `Every search crawler is blocked: ${blockingSources(page, undefined).join("; ")}`,
      "Remove the noindex directive (meta robots or X-Robots-Tag) or the robots.txt Disallow that covers this page."
    )
  }
  if (blocked.length > 0) {
    const names = blocked.map((ua) => ua ?? "generic robots").join(", ")
    return result("pass", `Indexable, though these crawlers are blocked: ${names} (at least one crawler is allowed).`)
  }
  return result("pass", "No meta robots, X-Robots-Tag or robots.txt rule blocks search crawlers.")
}

// ---- document-title (axe document-title) -----------------------------------------

const htmlTitle = (page: Page): string | undefined => {
  const title = page.$("title").toArray().find((el) =>
    el.namespace === undefined || el.namespace === "http://www.w3.org/1999/xhtml"
  )
  return title === undefined ? undefined : textOf(title)
}

const documentTitle = (page: Page): CheckOutcome => {
  const result = check("document-title", "seo", "Document has a `<title>` element", 1)
  const title = htmlTitle(page)
  return title !== undefined && title.length > 0
    ? result("pass", `Title: "${title}"`)
    : result(
      "fail",
      title === undefined ? "The page has no <title> element." : "The <title> element is empty.",
      "Add a unique, descriptive <title> of 30-60 characters naming the page's topic and the brand."
    )
}

// ---- meta-description ------------------------------------------------------------

const metaDescription = (page: Page): CheckOutcome => {
  const result = check("meta-description", "seo", "Document has a meta description", 1)
  const meta = page.metas.find((m) => m.name === "description")
  if (meta === undefined) {
    return result(
      "fail",
      "No <meta name=\"description\">.",
      "Add a <meta name=\"description\"> of 50-160 characters summarising the page; search engines and AI answers quote it."
    )
  }
  if (meta.content.trim().length === 0) {
    return result(
      "fail",
      "The meta description is empty.",
      "Write a 50-160 character summary into the meta description."
    )
  }
  return result("pass", `Description: "${meta.content.trim()}"`)
}

// ---- http-status-code --------------------------------------------------------------

const httpStatusCode = (page: Page): CheckOutcome => {
  const result = check("http-status-code", "seo", "Page has a successful HTTP status code", 1)
  return page.status >= 400 && page.status <= 599
    ? result(
      "fail",
      `The page answered HTTP ${page.status}.`,
      "Serve the page with a 2xx status; search engines drop pages that answer 4xx or 5xx."
    )
    : result("pass", `The page answered HTTP ${page.status}.`)
}

// ---- link-text -------------------------------------------------------------------

const nonDescriptive: Readonly<Record<string, ReadonlySet<string>>> = {
  en: new Set([
    "click here",
    "click this",
    "go",
    "here",
    "information",
    "learn more",
    "more",
    "more info",
    "more information",
    "right here",
    "read more",
    "see more",
    "start",
    "this"
  ]),
  ja: new Set(["ここをクリック", "こちらをクリック", "リンク", "続きを読む", "続く", "全文表示"]),
  es: new Set([
    "click aquí",
    "click aqui",
    "clicka aquí",
    "clicka aqui",
    "pincha aquí",
    "pincha aqui",
    "aquí",
    "aqui",
    "más",
    "mas",
    "más información",
    "más informacion",
    "mas información",
    "mas informacion",
    "este",
    "enlace",
    "este enlace",
    "empezar"
  ]),
  pt: new Set(["clique aqui", "ir", "mais informação", "mais informações", "mais", "veja mais"]),
  ko: new Set(["여기", "여기를 클릭", "클릭", "링크", "자세히", "자세히 보기", "계속", "이동", "전체 보기"]),
  sv: new Set(["här", "klicka här", "läs mer", "mer", "mer info", "mer information"]),
  de: new Set(["klicke hier", "hier klicken", "hier", "mehr", "siehe", "dies", "das", "weiterlesen"]),
  ta: new Set([
    "அடுத்த பக்கம்",
    "மறுபக்கம்",
    "முந்தைய பக்கம்",
    "முன்பக்கம்",
    "மேலும் அறிக",
    "மேலும் தகவலுக்கு",
    "மேலும் தரவுகளுக்கு",
    "தயவுசெய்து இங்கே அழுத்தவும்",
    "இங்கே கிளிக் செய்யவும்"
  ]),
  fa: new Set([
    "اطلاعات بیشتر",
    "اطلاعات",
    "این",
    "اینجا بزنید",
    "اینجا کلیک کنید",
    "اینجا",
    "برو",
    "بیشتر بخوانید",
    "بیشتر بدانید",
    "بیشتر",
    "شروع"
  ])
}

const withoutFragment = (url: string): string | undefined => {
  const parsed = URL.parse(url)
  if (parsed === null) return undefined
  parsed.hash = ""
  return parsed.href
}

const isNonDescriptive = (link: Anchor, pageUrl: string): boolean => {
  if (!link.href || link.rel.includes("nofollow")) return false
  const href = link.href.toLowerCase()
  if (href.startsWith("javascript:") || href.startsWith("mailto:")) return false
  const a = withoutFragment(link.href)
  if (a !== undefined && a === withoutFragment(pageUrl)) return false
  const term = link.text.trim().toLowerCase()
  if (term.length === 0) return false
  if (link.textLang !== undefined) return nonDescriptive[link.textLang.split("-")[0]]?.has(term) ?? false
  return Object.values(nonDescriptive).some((texts) => texts.has(term))
}

const linkText = (page: Page): CheckOutcome => {
  const result = check("link-text", "seo", "Links have descriptive text", 1)
  const failing = page.anchors.filter((a) => isNonDescriptive(a, page.url))
  return failing.length === 0
    ? result("pass", `${plural(page.anchors.length, "link")} checked; none uses generic text.`)
    : result(
      "fail",
      `${plural(failing.length, "link")} with generic text: ${examples(failing.map((a) => a.text))}.`,
      "Replace generic link text (\"click here\", \"read more\") with words that say where the link goes."
    )
}

// ---- crawlable-anchors -------------------------------------------------------------

const hrefAssociated = ["target", "download", "ping", "rel", "hreflang", "type", "referrerpolicy"]

export const isUncrawlableAnchor = (anchor: Anchor, pageUrl: string): boolean => {
  const rawHref = anchor.rawHref.replace(/\s/g, "")
  if (anchor.role.trim().length > 0) return false
  if (rawHref.startsWith("mailto:")) return false
  if (rawHref === "" && anchor.id) return false
  if (rawHref.startsWith("file:")) return true
  if (anchor.name.trim().length > 0) return false
  if (!anchor.attributeNames.includes("href") && hrefAssociated.every((a) => !anchor.attributeNames.includes(a))) {
    return anchor.hasListener
  }
  if (anchor.href === "") return true
  if (/javascript:void\(?0\)?/.test(rawHref)) return true
  return URL.parse(rawHref, pageUrl) === null
}

const outerSnippet = (page: Page, element: Element) => {
  const html = page.$.html(element)
  return html.length > 100 ? html.slice(0, 97) + "..." : html
}

const crawlableAnchors = (page: Page): CheckOutcome => {
  const result = check("crawlable-anchors", "seo", "Links are crawlable", 1)
  const failing = page.anchors.filter((a) => isUncrawlableAnchor(a, page.url))
  return failing.length === 0
    ? result("pass", `${plural(page.anchors.length, "link")} checked; all have resolvable hrefs.`)
    : result(
      "fail",
      `${plural(failing.length, "uncrawlable link")}: ${examples(failing.map((a) => outerSnippet(page, a.element)))}.`,
      "Give every link a real href (no javascript:void(0), file: or empty href); crawlers follow hrefs, not click handlers."
    )
}

// ---- robots-txt --------------------------------------------------------------------

const robotsTxt = (page: Page): CheckOutcome => {
  const result = check("robots-txt", "seo", "robots.txt is valid", 1)
  const { status, content, error } = page.robots
  if (status !== null && status >= 500) {
    return result(
      "fail",
      `robots.txt answered HTTP ${status}.`,
      "Make /robots.txt answer 200 (or 404 when there is none); on a 5xx crawlers may stop crawling the site."
    )
  }
  if ((status !== null && status >= 400) || content === "") return undefined
  if (error !== undefined || status === null) {
    return result("fail", `robots.txt could not be fetched: ${error ?? "no answer"}.`, "Make /robots.txt reachable.")
  }
  if (content === null) return undefined
  const errors = validateRobots(content)
  return errors.length === 0
    ? result("pass", "robots.txt parses without errors.")
    : result(
      "fail",
      `${plural(errors.length, "error")}: ${errors.slice(0, 3).map((e) => `line ${e.line}: ${e.message}`).join("; ")}.`,
      "Fix the listed lines: only known directives, Allow/Disallow inside a User-agent group, absolute Sitemap URLs."
    )
}

// ---- image-alt (axe image-alt, approximated) ---------------------------------------------

const isHidden = (element: Element): boolean => {
  for (let node: Element | null = element; node !== null && node.type === "tag"; node = node.parent as Element | null) {
    if (node.attribs.hidden !== undefined) return true
    const style = (node.attribs.style ?? "").replace(/\s/g, "").toLowerCase()
    if (style.includes("display:none") || style.includes("visibility:hidden")) return true
    if (node.name === "noscript" || node.name === "template") return true
  }
  return false
}

const hasTextAlternative = (page: Page, img: Element): boolean => {
  const attribs = img.attribs
  const role = (attribs.role ?? "").trim().toLowerCase().split(/\s+/)[0]
  if (role === "presentation" || role === "none") return true
  if (attribs.alt !== undefined && !/^\s+$/.test(attribs.alt)) return true
  if ((attribs["aria-label"] ?? "").trim().length > 0) return true
  const labelledBy = (attribs["aria-labelledby"] ?? "").trim()
  if (
    labelledBy.length > 0 && labelledBy.split(/\s+/).some((id) => {
      const target = page.$("[id]").toArray().find((el) => el.attribs.id === id)
      return target !== undefined && textOf(target).length > 0
    })
  ) return true
  return (attribs.title ?? "").trim().length > 0
}

const imageAlt = (page: Page): CheckOutcome => {
  const images = page.$("img").toArray().filter((img) => !isHidden(img))
  if (images.length === 0) return undefined
  const result = check("image-alt", "seo", "Image elements have `[alt]` attributes", 1)
  const missing = images.filter((img) => !hasTextAlternative(page, img))
  return missing.length === 0
    ? result("pass", `All ${plural(images.length, "image")} have a text alternative.`)
    : result(
      "fail",
      `${plural(missing.length, "image")} without alt text: ${
        examples(missing.map((img) => img.attribs.src ?? "(no src)"))
      }.`,
      "Add alt text describing each informative image (alt=\"\" for decorative ones)."
    )
}

// ---- hreflang --------------------------------------------------------------------

const isExpectedLanguageCode = (hreflang: string) =>
  hreflang.toLowerCase() === "x-default" || isValidLanguage(hreflang.split("-")[0].toLowerCase())

const hreflang = (page: Page): CheckOutcome => {
  const result = check("hreflang", "seo", "Document has a valid `hreflang`", 1)
  const problems = page.links
    .filter((l) => l.rel === "alternate" && l.hreflang && l.source !== "body")
    .flatMap((l) => {
      const reasons = [
        ...(isExpectedLanguageCode(l.hreflang) ? [] : ["unexpected language code"]),
        ...(/^https?:/.test(l.hrefRaw.toLowerCase()) ? [] : ["relative href"])
      ]
      return reasons.length === 0 ? [] : [`hreflang="${l.hreflang}" href="${l.hrefRaw}": ${reasons.join(", ")}`]
    })
  return problems.length === 0
    ? result("pass", "Every hreflang alternate names a known language (or x-default) and an absolute URL.")
    : result(
      "fail",
      problems.slice(0, 3).join("; "),
      "Use ISO 639 language codes (optionally with a region, or x-default) and absolute URLs in hreflang links."
    )
}

// ---- canonical ---------------------------------------------------------------------

const canonical = (page: Page): CheckOutcome => {
  const result = check("canonical", "seo", "Document has a valid `rel=canonical`", 1)
  const unique = new Set<string>()
  const hreflangUrls = new Set<string>()
  let invalid: string | undefined
  let relative: string | undefined
  for (const link of page.links) {
    if (link.source === "body") continue
    if (link.rel === "canonical") {
      if (!link.hrefRaw) continue
      if (!link.href) invalid = link.hrefRaw
      else if (URL.parse(link.hrefRaw, "https://example.com") === null) invalid = link.hrefRaw
      else if (URL.parse(link.hrefRaw) === null) relative = link.hrefRaw
      else unique.add(link.href)
    } else if (link.rel === "alternate" && link.href && link.hreflang) hreflangUrls.add(link.href)
  }
  const fix = "Point rel=canonical at one absolute URL: this page's own preferred address."
  if (invalid !== undefined) return result("fail", `Invalid URL (${invalid}).`, fix)
  if (relative !== undefined) return result("fail", `Is not an absolute URL (${relative}).`, fix)
  if (unique.size === 0) return undefined
  if (unique.size > 1) return result("fail", `Multiple conflicting URLs (${[...unique].join(", ")}).`, fix)
  const target = new URL([...unique][0])
  const base = new URL(page.url)
  if (hreflangUrls.has(base.href) && hreflangUrls.has(target.href) && base.href !== target.href) {
    return result("fail", `Points to another hreflang location (${target.href}).`, fix)
  }
  if (target.origin === base.origin && target.pathname === "/" && base.pathname !== "/") {
    return result(
      "fail",
      "Points to the domain's root URL (the homepage) instead of an equivalent page of content.",
      fix
    )
  }
  return result("pass", `Canonical URL: ${target.href}`)
}

export const lighthouseChecks: ReadonlyArray<(page: Page) => CheckOutcome> = [
  isCrawlable,
  documentTitle,
  metaDescription,
  httpStatusCode,
  linkText,
  crawlableAnchors,
  robotsTxt,
  imageAlt,
  hreflang,
  canonical
]
