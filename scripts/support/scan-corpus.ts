import { goodPage, type Site, sites } from "../../test/support/scan-sites.ts"

/**
 * The agreement corpus: the test fixture sites plus variants of the good page
 * that each flip one Lighthouse SEO audit (or one of its edge cases).
 */

const html = (body: string, headers: Record<string, string> = {}) => ({
  headers: { "content-type": "text/html; charset=utf-8", ...headers },
  body
})

const goodFiles = (origin: string) => sites.wellMarkedUp(origin)

/** The good page with `edit` applied to its HTML; other site files as the good site's unless overridden. */
const variant = (
  edit: (page: string, origin: string) => string,
  files: (origin: string) => Record<string, { status?: number; headers?: Record<string, string>; body?: string }> =
    () => ({}),
  headers: Record<string, string> = {}
): Site =>
(origin) => ({ ...goodFiles(origin), "/": html(edit(goodPage(origin), origin), headers), ...files(origin) })

const text = (body: string, status = 200) => ({ status, headers: { "content-type": "text/plain" }, body })

export interface CorpusPage {
  readonly name: string
  readonly site: Site
  readonly path: string
}

const fromFixtures: ReadonlyArray<CorpusPage> = [
  { name: "wellMarkedUp", site: sites.wellMarkedUp, path: "/" },
  { name: "bare", site: sites.bare, path: "/" },
  { name: "blockedByRobots", site: sites.blockedByRobots, path: "/" },
  { name: "noindex", site: sites.noindex, path: "/" },
  { name: "noindexHeader", site: sites.noindexHeader, path: "/" },
  { name: "brokenCanonical", site: sites.brokenCanonical, path: "/" },
  { name: "rootCanonical", site: sites.rootCanonical, path: "/blog/post" },
  { name: "aiCrawlersBlocked", site: sites.aiCrawlersBlocked, path: "/" },
  { name: "trainingBlocked", site: sites.trainingBlocked, path: "/" },
  { name: "flawed", site: sites.flawed, path: "/" },
  { name: "invalidRobots", site: sites.invalidRobots, path: "/" },
  { name: "slowRobots", site: sites.slowRobots, path: "/" },
  { name: "brand", site: sites.brand, path: "/" }
]

const variants: ReadonlyArray<CorpusPage> = [
  { name: "noTitle", site: variant((p) => p.replace(/<title>.*<\/title>/, "")), path: "/" },
  { name: "blankTitle", site: variant((p) => p.replace(/<title>.*<\/title>/, "<title>  </title>")), path: "/" },
  {
    name: "emptyDescription",
    site: variant((p) => p.replace(/name="description" content="[^"]*"/, "name=\"description\" content=\" \"")),
    path: "/"
  },
  {
    name: "twoCanonicals",
    site: variant((p, o) => p.replace("</head>", `<link rel="canonical" href="${o}/other"></head>`)),
    path: "/"
  },
  {
    name: "canonicalInBody",
    site: variant((p, o) =>
      p.replace(/<link rel="canonical"[^>]*>/, "").replace("<main>", `<main><link rel="canonical" href="${o}/x">`)
    ),
    path: "/"
  },
  {
    name: "canonicalHeader",
    site: variant((p) => p.replace(/<link rel="canonical"[^>]*>/, ""), () => ({}), {
      link: "</relative>; rel=\"canonical\""
    }),
    path: "/"
  },
  {
    name: "hreflangRelative",
    site: variant((p) => p.replace("</head>", "<link rel=\"alternate\" hreflang=\"fr\" href=\"/fr/\"></head>")),
    path: "/"
  },
  {
    name: "hreflangBadCode",
    site: variant((p, o) => p.replace("</head>", `<link rel="alternate" hreflang="english" href="${o}/en/"></head>`)),
    path: "/"
  },
  { name: "linkTextHere", site: variant((p) => p.replace("<h3>", "<p><a href=\"/more\">here</a></p><h3>")), path: "/" },
  {
    name: "linkTextNofollow",
    site: variant((p) =>
      p.replace("<h3>", "<p><a rel=\"nofollow\" href=\"/more\">read more</a> <a href=\"#top\">more</a></p><h3>")
    ),
    path: "/"
  },
  {
    name: "jsVoidAnchor",
    site: variant((p) => p.replace("<h3>", "<p><a href=\"javascript:void(0)\">Menu</a></p><h3>")),
    path: "/"
  },
  {
    name: "anchorWithRole",
    site: variant((p) =>
      p.replace(
        "<h3>",
        "<p><a role=\"button\" href=\"javascript:void(0)\">Menu</a> <a id=\"top\"></a> <a href=\"mailto:x@y.z\">Mail</a></p><h3>"
      )
    ),
    path: "/"
  },
  { name: "imageNoAlt", site: variant((p) => p.replace("alt=\"The retention dashboard\"", "")), path: "/" },
  { name: "imageEmptyAlt", site: variant((p) => p.replace("alt=\"The retention dashboard\"", "alt=\"\"")), path: "/" },
  { name: "imageSpaceAlt", site: variant((p) => p.replace("alt=\"The retention dashboard\"", "alt=\" \"")), path: "/" },
  {
    name: "imagePresentation",
    site: variant((p) => p.replace("alt=\"The retention dashboard\"", "role=\"presentation\"")),
    path: "/"
  },
  {
    name: "imageTitleOnly",
    site: variant((p) => p.replace("alt=\"The retention dashboard\"", "title=\"Dashboard\"")),
    path: "/"
  },
  { name: "robots500", site: variant((p) => p, () => ({ "/robots.txt": text("down", 503) })), path: "/" },
  { name: "robots404", site: variant((p) => p, () => ({ "/robots.txt": text("none", 404) })), path: "/" },
  { name: "robotsEmpty", site: variant((p) => p, () => ({ "/robots.txt": text("") })), path: "/" },
  {
    name: "robotsContentSignal",
    site: variant(
      (p) => p,
      () => ({ "/robots.txt": text("User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n") })
    ),
    path: "/"
  },
  {
    name: "googlebotOnlyNoindex",
    site: variant((p) => p.replace("</head>", "<meta name=\"googlebot\" content=\"noindex\"></head>")),
    path: "/"
  },
  {
    name: "unavailableAfterPast",
    site: variant((p) => p, () => ({}), { "x-robots-tag": "unavailable_after: 2001-01-01T00:00:00Z" }),
    path: "/"
  },
  {
    name: "robotsDisallowGooglebot",
    site: variant((p) => p, () => ({ "/robots.txt": text("User-agent: Googlebot\nDisallow: /\n") })),
    path: "/"
  },
  {
    name: "noneDirective",
    site: variant((p) => p.replace("</head>", "<meta name=\"robots\" content=\"none\"></head>")),
    path: "/"
  }
]

export const corpus: ReadonlyArray<CorpusPage> = [...fromFixtures, ...variants]
