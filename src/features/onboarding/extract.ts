import type { Element } from "domhandler"
import type { BrandProfile } from "../../domain/Onboarding.ts"
import { chrome, elementsIn, type Page, resolveUrl, textOf } from "../scan/checks/Page.ts"

/**
 * A brand profile read from a page: only what the page says (markup, JSON-LD,
 * meta tags, links, its own copy); a field the page says nothing about is
 * null or empty. Pure over the parsed page.
 */

const typesOf = (node: Record<string, unknown>): ReadonlyArray<string> => {
  const type = node["@type"]
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === "string")
}

const str = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim().length > 0 ? value.replace(/\s+/g, " ").trim() : undefined

const organisation = (page: Page) =>
  page.jsonLd.find((n) => typesOf(n).some((t) => ["Organization", "Corporation", "LocalBusiness", "Brand"].includes(t)))

const meta = (page: Page, key: string) => str(page.metas.find((m) => m.name === key || m.property === key)?.content)

/** The shortest part of a title split at its separators: "Acme | Home" -> "Acme". */
const fromTitle = (title: string | undefined): string | undefined => {
  if (title === undefined) return undefined
  const parts = title.split(/(?<!\s)\s+[|\-–—:·•]\s+|:\s+/).map((p) => p.trim()).filter((p) => p.length > 0)
  return parts.length === 0 ? undefined : parts.reduce((a, b) => (b.length < a.length ? b : a))
}

const brandName = (page: Page): string | null =>
  str(organisation(page)?.name) ?? meta(page, "og:site_name") ?? meta(page, "application-name") ??
    fromTitle(str(textOf(page.$("head title").toArray()))) ?? null

const description = (page: Page): string | null =>
  meta(page, "description") ?? meta(page, "og:description") ?? str(organisation(page)?.description) ?? null

const logoUrl = (page: Page): string | null => {
  const logo = organisation(page)?.logo
  const fromLd = str(logo) ??
    (typeof logo === "object" && logo !== null ? str((logo as Record<string, unknown>).url) : undefined)
  const img = page.$("img").toArray().find((el) =>
    /logo/i.test(`${el.attribs.alt ?? ""} ${el.attribs.class ?? ""} ${el.attribs.id ?? ""} ${el.attribs.src ?? ""}`) &&
    el.attribs.src
  )
  const icon = page.links.find((l) => l.rel === "apple-touch-icon" && l.hrefRaw) ??
    page.links.find((l) => l.rel.split(/\s+/).includes("icon") && l.hrefRaw)
  const raw = fromLd ?? img?.attribs.src ?? icon?.hrefRaw
  return raw === undefined ? null : resolveUrl(raw, page.baseUrl)
}

/** The image the site gives social networks for its page (og:image, else twitter:image), when it is an http(s) address. */
const ogImage = (page: Page): string | null => {
  const raw = meta(page, "og:image") ?? meta(page, "og:image:url") ?? meta(page, "og:image:secure_url") ??
    meta(page, "twitter:image")
  const url = raw === undefined ? null : resolveUrl(raw, page.baseUrl)
  return url !== null && /^https?:/.test(url) ? url : null
}

const expandHex = (hex: string) =>
  hex.length === 4 ? `#${hex[1]}${hex[1]}${hex[2]}${hex[2]}${hex[3]}${hex[3]}` : hex.slice(0, 7)

/** Near-white, near-black and greys say nothing about a brand. */
const isNeutral = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
  return Math.max(r, g, b) - Math.min(r, g, b) < 24
}

const colors = (page: Page): ReadonlyArray<string> => {
  const counts = new Map<string, number>()
  const theme = meta(page, "theme-color")
  const css = [
    ...page.$("style").toArray().map((el) => page.$(el).text()),
    ...page.$("[style]").toArray().map((el) => el.attribs.style ?? "")
  ].join("\n")
  for (const match of css.matchAll(/#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b/g)) {
    const hex = expandHex(match[0].toLowerCase())
    if (!isNeutral(hex)) counts.set(hex, (counts.get(hex) ?? 0) + 1)
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([hex]) => hex)
  const themeHex = theme !== undefined && /^#(?:[0-9a-f]{6}|[0-9a-f]{3})$/i.test(theme)
    ? expandHex(theme.toLowerCase())
    : undefined
  return [...new Set([...(themeHex === undefined ? [] : [themeHex]), ...ranked])].slice(0, 5)
}

/** Tone words, each from a measurable trait of the copy; none for pages with too little text. */
const voice = (text: string): ReadonlyArray<string> => {
  const words = text.toLowerCase().match(/[\p{L}']+/gu) ?? []
  if (words.length < 40) return []
  const sentences = text.split(/(?<![.!?])[.!?]+\s/).filter((s) => s.trim().length > 0)
  const rate = (pattern: RegExp) => words.filter((w) => pattern.test(w)).length / words.length
  const tones: Array<string> = []
  if (rate(/^(?:you|your|you're|yours)$/) > 0.02) tones.push("conversational")
  if (rate(/^(?:we|our|us|we're)$/) > 0.015) tones.push("personal")
  if ((text.match(/!/g) ?? []).length / sentences.length > 0.15) tones.push("enthusiastic")
  if (rate(/'(?:re|[std]|ll|ve)$/) > 0.01) tones.push("informal")
  else tones.push("formal")
  if (words.length / Math.max(sentences.length, 1) < 16) tones.push("concise")
  else if (words.length / Math.max(sentences.length, 1) > 26) tones.push("detailed")
  if (rate(/^(?:data|api|integration|analytics|platform|automation|workflow|dashboard|metrics|sdk|cloud)s?$/) > 0.01) {
    tones.push("technical")
  }
  if (rate(/^(?:best|leading|fastest|trusted|proven|guaranteed|powerful|world-class)$/) > 0.005) tones.push("confident")
  if (/(?<!\d)\d+\s?%|\$\s?\d/.test(text)) tones.push("data-driven")
  return tones
}

const audience = (page: Page): ReadonlyArray<string> => {
  const found = new Set<string>()
  const ld = page.jsonLd.map((n) => n.audience).filter((a) => a !== undefined)
  for (const a of ld) {
    const type = str((a as Record<string, unknown>)?.audienceType) ?? str(a)
    if (type !== undefined) found.add(type)
  }
  const sources = [
    textOf(page.$("head title").toArray()),
    textOf(page.$("h1").toArray()),
    meta(page, "description") ?? ""
  ]
  for (const source of sources) {
    for (
      const match of source.matchAll(
        /\bfor ([\p{L}\p{N}-]+(?:\s[\p{L}\p{N}-]+){0,4})\s?(?=[.,;:!?)]|\s(?:with|who|that|and|in|to|by|from)\b|$)/giu
      )
    ) {
      const phrase = match[1].trim()
      if (phrase.length >= 3 && !/^(?:free|more|less|you|your|the|a|an|all|up|every|each)$/i.test(phrase)) {
        found.add(phrase)
      }
    }
  }
  return [...found].slice(0, 5)
}

const products = (page: Page): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const node of page.jsonLd) {
    if (
      typesOf(node).some((t) =>
        ["Product", "Service", "SoftwareApplication", "WebApplication", "MobileApplication"].includes(t)
      )
    ) {
      const name = str(node.name)
      if (name !== undefined) names.add(name)
    }
    const offered = (node.itemOffered ?? undefined) as Record<string, unknown> | undefined
    if (offered !== undefined && str(offered.name) !== undefined) names.add(str(offered.name)!)
  }
  for (const scope of page.$("[itemtype]").toArray()) {
    if (!/schema\.org\/(?:Product|Service)$/i.test(scope.attribs.itemtype ?? "")) continue
    const name = elementsIn(scope).find((el: Element) => el.attribs.itemprop === "name")
    const text = name === undefined ? undefined : str(name.attribs.content ?? textOf(name))
    if (text !== undefined) names.add(text)
  }
  return [...names].slice(0, 20)
}

const socialHosts: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\.)(twitter|x)\.com$/, "x"],
  [/(^|\.)linkedin\.com$/, "linkedin"],
  [/(^|\.)facebook\.com$/, "facebook"],
  [/(^|\.)instagram\.com$/, "instagram"],
  [/(^|\.)tiktok\.com$/, "tiktok"],
  [/(^|\.)pinterest\.[a-z.]+$/, "pinterest"],
  [/(^|\.)youtube\.com$/, "youtube"],
  [/(^|\.)github\.com$/, "github"],
  [/(^|\.)threads\.(net|com)$/, "threads"],
  [/(^|\.)bsky\.app$/, "bluesky"]
]

/** Profile links by platform; share links (intent, sharer) are not profiles. */
const socials = (page: Page): Record<string, string> => {
  const out: Record<string, string> = {}
  const sameAs = page.jsonLd.flatMap((n) => (Array.isArray(n.sameAs) ? n.sameAs : [n.sameAs])).filter((
    s
  ): s is string => typeof s === "string")
  for (const href of [...sameAs, ...page.anchors.map((a) => a.href)]) {
    const url = URL.parse(href)
    if (url === null || !/^https?:$/.test(url.protocol) || url.pathname.length <= 1) continue
    if (/share|intent|\/hashtag\//i.test(url.pathname + url.search)) continue
    const platform = socialHosts.find(([host]) => host.test(url.hostname.toLowerCase()))?.[1]
    if (platform !== undefined && out[platform] === undefined) out[platform] = url.href
  }
  return out
}

export const extractProfile = (page: Page): BrandProfile => ({
  brandName: brandName(page),
  description: description(page),
  logoUrl: logoUrl(page),
  ogImage: ogImage(page),
  colors: colors(page),
  voice: voice(textOf(page.$("body").toArray(), chrome)),
  audience: audience(page),
  products: products(page),
  socials: socials(page),
  sourceUrl: page.url
})
