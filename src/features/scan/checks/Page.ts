import { type CheerioAPI, load } from "cheerio"
import type { AnyNode, Element } from "domhandler"
import { parseRobots, type RobotsTxt } from "../../../domain/Robots.ts"
import type { SiteSnapshot } from "../Fetch.ts"
import { parseLinkHeader } from "./LinkHeader.ts"

const htmlNamespace = "http://www.w3.org/1999/xhtml"

export interface MetaElement {
  /** Lower case, as `meta.name.toLowerCase()` in the browser. */
  readonly name: string
  readonly content: string
  readonly property: string | undefined
}

/** A `<link>` in the document or a `Link:` header entry, as Lighthouse's LinkElements sees it. */
export interface LinkElement {
  /** The rel attribute in lower case. */
  readonly rel: string
  /** Resolved against the document; null when it cannot be (header) or "" when there is no href. */
  readonly href: string | null
  readonly hrefRaw: string
  readonly hreflang: string
  readonly source: "head" | "body" | "headers"
}

export interface Anchor {
  readonly element: Element
  /** What `HTMLAnchorElement.href` answers: resolved, the raw value when unresolvable, "" without href. */
  readonly href: string
  readonly rawHref: string
  readonly name: string
  readonly role: string
  readonly id: string
  readonly rel: string
  readonly text: string
  readonly textLang: string | undefined
  readonly attributeNames: ReadonlyArray<string>
  readonly hasListener: boolean
}

/** The fetched page, parsed once, with what several checks share. */
export interface Page extends SiteSnapshot {
  readonly $: CheerioAPI
  /** The URL relative references resolve against (`<base href>` or the page's). */
  readonly baseUrl: string
  readonly metas: ReadonlyArray<MetaElement>
  readonly links: ReadonlyArray<LinkElement>
  readonly anchors: ReadonlyArray<Anchor>
  readonly robotsTxt: RobotsTxt | undefined
  /** JSON-LD objects of the page, `@graph` entries flattened; unparseable blocks counted. */
  readonly jsonLd: ReadonlyArray<Record<string, unknown>>
  readonly jsonLdErrors: number
  /** Visible body text without script, style, nav, header and footer, whitespace collapsed. */
  readonly mainText: string
}

const isHtml = (element: Element) => element.namespace === undefined || element.namespace === htmlNamespace

/** Text as a reader sees it: scripts, styles and elements named in `skip` left out, whitespace collapsed. */
export const textOf = (node: AnyNode | ReadonlyArray<AnyNode>, skip: ReadonlySet<string> = noSkip): string => {
  const parts: Array<string> = []
  // Iterative: a page may nest deeper than the call stack.
  const stack: Array<AnyNode> = (Array.isArray(node) ? [...node] : [node as AnyNode]).reverse()
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type === "text") parts.push((n as unknown as { data: string }).data)
    else if (n.type === "tag") {
      const element = n as Element
      if (skip.has(element.name)) continue
      if (element.name === "br") parts.push(" ")
      for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i])
    }
  }
  return parts.join("").replace(/\s+/g, " ").trim()
}

const noSkip: ReadonlySet<string> = new Set()

/** Page chrome and non-content: what `mainText` and the content checks leave out. */
export const chrome: ReadonlySet<string> = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "nav",
  "header",
  "footer",
  "svg"
])

/**
 * Elements below `root` named in `names` (every element when undefined), in
 * document order, not descending into `skip`. A plain walk: cheerio's `find`
 * from a context element grows with the square of a wide page.
 */
export const elementsIn = (
  root: AnyNode,
  names?: ReadonlySet<string>,
  skip: ReadonlySet<string> = noSkip
): Array<Element> => {
  const out: Array<Element> = []
  const stack: Array<AnyNode> = [...((root as Element).children ?? [])].reverse()
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type !== "tag" && n.type !== "script" && n.type !== "style") continue
    const element = n as Element
    if (skip.has(element.name)) continue
    if (names === undefined || names.has(element.name)) out.push(element)
    for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i])
  }
  return out
}

export const resolveUrl = (raw: string, base: string): string | null => URL.parse(raw, base)?.href ?? null

const closestAttr = (element: Element | null, attribute: string): string | undefined => {
  for (let node: Element | null = element; node !== null; node = node.parent as Element | null) {
    if (node.type !== "tag") return undefined
    const value = node.attribs?.[attribute]
    if (value !== undefined) return value
  }
  return undefined
}

/** Lighthouse's `getLangOfInnerText`: the language of a link's text, null when it mixes languages. */
const langOfText = ($: CheerioAPI, element: Element): string | null => {
  let current: string | null = null
  for (const child of elementsIn(element)) {
    if ($(child).text().length === 0) continue
    const lang = closestAttr(child, "lang")
    if (!lang) continue
    if (current === null) {
      current = lang
      continue
    }
    if (current.split("-")[0] !== lang.split("-")[0]) return null
  }
  return current ?? closestAttr(element, "lang") ?? null
}

const jsonLdObjects = (value: unknown, out: Array<Record<string, unknown>>) => {
  if (Array.isArray(value)) { for (const item of value) jsonLdObjects(item, out) }
  else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    out.push(record)
    if (record["@graph"] !== undefined) jsonLdObjects(record["@graph"], out)
  }
}

/** Parses the page once (parse5, the browser's tree construction) and gathers what the checks share. */
export const toPage = (snapshot: SiteSnapshot): Page => {
  const $ = load(snapshot.html, { baseURI: snapshot.url })
  const baseHref = $("base[href]").first().attr("href")
  const baseUrl = baseHref === undefined ? snapshot.url : resolveUrl(baseHref, snapshot.url) ?? snapshot.url

  const metas = $("head meta").toArray().filter(isHtml).map((el): MetaElement => ({
    name: (el.attribs.name ?? "").toLowerCase(),
    content: el.attribs.content ?? "",
    property: el.attribs.property
  }))

  const domLinks = $("link").toArray().filter(isHtml).map((el): LinkElement => {
    const hrefRaw = el.attribs.href ?? ""
    return {
      rel: (el.attribs.rel ?? "").toLowerCase(),
      href: el.attribs.href === undefined ? "" : resolveUrl(hrefRaw, baseUrl) ?? hrefRaw,
      hrefRaw,
      hreflang: el.attribs.hreflang ?? "",
      source: $(el).closest("head").length > 0 ? "head" : "body"
    }
  })
  const headerLinks = snapshot.headers.link === undefined ? [] : parseLinkHeader(snapshot.headers.link).map(
    (params): LinkElement => ({
      rel: (params.rel ?? "").toLowerCase(),
      href: resolveUrl(params.uri, snapshot.url),
      hrefRaw: params.uri ?? "",
      hreflang: params.hreflang ?? "",
      source: "headers"
    })
  )

  const langElements = $("[lang]").toArray()
  const singleLang = langElements.length === 1 && ["body", "html"].includes(langElements[0].name)
    ? langElements[0].attribs.lang
    : undefined
  const anchors = $("a").toArray().map((el): Anchor => {
    const attribs = el.attribs
    const rawHref = attribs.href ?? ""
    return {
      element: el,
      href: attribs.href === undefined ? "" : resolveUrl(rawHref, baseUrl) ?? rawHref,
      rawHref,
      name: isHtml(el) ? attribs.name ?? "" : "",
      role: attribs.role ?? "",
      id: attribs.id ?? "",
      rel: isHtml(el) ? attribs.rel ?? "" : "",
      text: textOf(el),
      textLang: (singleLang ?? langOfText($, el)) || undefined,
      attributeNames: Object.keys(attribs),
      hasListener: attribs.onclick !== undefined
    }
  })

  const jsonLd: Array<Record<string, unknown>> = []
  let jsonLdErrors = 0
  for (const script of $("script[type]").toArray()) {
    if ((script.attribs.type ?? "").trim().toLowerCase() !== "application/ld+json") continue
    try {
      jsonLdObjects(JSON.parse($(script).text()), jsonLd)
    } catch {
      jsonLdErrors++
    }
  }

  const mainText = textOf($("body").toArray(), chrome)

  const robotsTxt = snapshot.robots.content
    ? parseRobots(new URL("/robots.txt", snapshot.url).href, snapshot.robots.content)
    : undefined

  return {
    ...snapshot,
    $,
    baseUrl,
    metas,
    links: [...domLinks, ...headerLinks],
    anchors,
    robotsTxt,
    jsonLd,
    jsonLdErrors,
    mainText
  }
}
