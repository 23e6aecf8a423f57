import http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * Fixture web sites for the scanner, each served on its own loopback port (a
 * site is an origin: robots.txt, llms.txt and the sitemap belong to it).
 * Shared by test/scan.test.ts and scripts/lighthouse-agreement.ts.
 */

export interface Reply {
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  readonly delayMs?: number
  /**
   * Held until this many requests to the path are in progress at once (all
   * are then answered), or until `delayMs` has passed: proves that requests
   * overlap without betting on how fast each one arrives.
   */
  readonly heldUntil?: number
}

/** Path (with query) -> reply; `origin` is the site's own address. */
export type Site = (origin: string) => Record<string, Reply>

export interface Served {
  readonly origin: string
  /** The most requests to each path that were in progress at once. */
  readonly maxInFlight: Map<string, number>
  readonly close: () => Promise<void>
}

const html = (body: string, extra: Record<string, string> = {}): Reply => ({
  headers: { "content-type": "text/html; charset=utf-8", ...extra },
  body
})

/** Serves `site` on a free port of `host` (another loopback address stands for another machine). */
export const serveSite = (site: Site, host = "127.0.0.1"): Promise<Served> =>
  new Promise((resolve) => {
    let routes: Record<string, Reply> = {}
    const timers = new Set<NodeJS.Timeout>()
    const inFlight = new Map<string, number>()
    const maxInFlight = new Map<string, number>()
    const heldByPath = new Map<string, Array<() => void>>()
    const heldAt = (path: string) => {
      const list = heldByPath.get(path) ?? []
      heldByPath.set(path, list)
      return list
    }
    const server = http.createServer((req, res) => {
      const path = req.url ?? "/"
      const reply = routes[path] ?? { status: 404, headers: { "content-type": "text/plain" }, body: "not found" }
      const now = (inFlight.get(path) ?? 0) + 1
      inFlight.set(path, now)
      maxInFlight.set(path, Math.max(now, maxInFlight.get(path) ?? 0))
      res.on("close", () => inFlight.set(path, (inFlight.get(path) ?? 1) - 1))
      const send = () => {
        res.writeHead(reply.status ?? 200, reply.headers ?? {})
        res.end(reply.body ?? "")
      }
      const held = heldAt(path)
      if (reply.heldUntil !== undefined && now >= reply.heldUntil) {
        send()
        for (const release of held.splice(0)) release()
      } else if (reply.delayMs === undefined) send()
      else {
        let sent = false
        const once = () => {
          if (sent) return
          sent = true
          clearTimeout(timer)
          timers.delete(timer)
          send()
        }
        const timer = setTimeout(once, reply.delayMs)
        timers.add(timer)
        if (reply.heldUntil !== undefined) held.push(once)
      }
    })
    server.listen(0, host, () => {
      const origin = `http://${host}:${(server.address() as AddressInfo).port}`
      routes = site(origin)
      resolve({
        origin,
        maxInFlight,
        close: () =>
          new Promise<void>((done) => {
            for (const timer of timers) clearTimeout(timer)
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString()

export interface PageOptions {
  readonly head?: string
  readonly robotsMeta?: string
  readonly canonical?: string | null
  readonly path?: string
}

/** A page that passes every check it can on plain HTTP. */
export const goodPage = (origin: string, options: PageOptions = {}) => {
  const canonical = options.canonical === undefined ? `${origin}${options.path ?? "/"}` : options.canonical
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Acme Analytics: product analytics for SaaS teams</title>
<meta name="description" content="Acme Analytics shows SaaS teams which features drive retention, with dashboards set up in five minutes.">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="og:site_name" content="Acme Analytics">
${options.robotsMeta === undefined ? "" : `<meta name="robots" content="${options.robotsMeta}">`}
${canonical === null ? "" : `<link rel="canonical" href="${canonical}">`}
<link rel="alternate" hreflang="en" href="${origin}/">
<link rel="alternate" hreflang="de-DE" href="${origin}/de/">
<link rel="alternate" hreflang="x-default" href="${origin}/">
<script type="application/ld+json">${
    JSON.stringify({
      "@context": "https://schema.org",
      "@graph": [
        { "@type": "Organization", name: "Acme Analytics", url: `${origin}/`, telephone: "+1-555-0100" },
        {
          "@type": "Article",
          headline: "Product analytics for SaaS teams",
          datePublished: daysAgo(90),
          dateModified: daysAgo(10),
          author: { "@type": "Person", name: "Jane Doe", url: `${origin}/team/jane` }
        },
        {
          "@type": "Product",
          name: "Acme",
          aggregateRating: { "@type": "AggregateRating", ratingValue: "4.8", reviewCount: "312" }
        }
      ]
    })
  }</script>
${options.head ?? ""}
</head>
<body>
<header><nav><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/docs">Documentation</a> <a href="/contact">Contact us</a></nav></header>
<main>
<h1>Product analytics for SaaS teams</h1>
<p>Acme Analytics tells product teams which features keep customers. Teams that adopted it in 2024 cut churn by 18% within
two quarters, and the median customer set up their first retention dashboard in 5 minutes. Plans start at $19 per month
for up to 10,000 tracked users, and more than 12,000 teams rely on it every day across Europe and North America.</p>
<p><a class="cta" href="/signup">Start free trial</a></p>
<h2>Why do teams switch to Acme?</h2>
<ul><li>Retention cohorts without SQL, built from the events you already send.</li>
<li>Feature adoption funnels that update every minute.</li>
<li>Alerts when a key account stops using a feature it paid for.</li></ul>
<p>According to <a href="https://example.org/retention-study">the 2025 Retention Benchmark</a> and
<a href="https://research.example.net/saas-report">an independent SaaS report</a>, teams that measure feature adoption
weekly renew 11% more often than teams that review it quarterly.</p>
<blockquote cite="https://beta.example.com/story"><p>Acme cut our churn by a fifth in one quarter.</p>
<footer><cite>Maria Lopez, CTO at Beta Corp</cite></footer></blockquote>
<h2>What customers say</h2>
<section class="testimonials"><p>Trusted by 12,000 teams. Every plan carries a 30-day money-back guarantee.</p></section>
<h3>How much does it cost?</h3>
<p>One flat price per tracked user, billed monthly; cancel any time.</p>
<img src="/dashboard.png" alt="The retention dashboard">
<form action="/signup" method="post">
<label for="email">Work email</label><input id="email" type="email" name="email">
<label for="name">Your name</label><input id="name" name="name">
<button type="submit">Start free trial</button>
</form>
<p>Updated <time datetime="${daysAgo(10)}">recently</time> by <a rel="author" href="/team/jane">Jane Doe</a>.</p>
</main>
<footer><a href="mailto:hello@acme.test">hello@acme.test</a> <a href="/privacy">Privacy policy</a> <a href="/terms">Terms of service</a></footer>
</body>
</html>`
}

const goodFiles = (origin: string): Record<string, Reply> => ({
  "/robots.txt": {
    headers: { "content-type": "text/plain" },
    body: `User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`
  },
  "/llms.txt": {
    headers: { "content-type": "text/plain" },
    body:
      `# Acme Analytics\n\n> Product analytics for SaaS teams.\n\n## Docs\n\n- [Quick start](${origin}/docs): set up in five minutes\n`
  },
  "/llms-full.txt": {
    headers: { "content-type": "text/plain" },
    body: "# Acme Analytics\n\nEverything, in one file.\n"
  },
  "/sitemap.xml": {
    headers: { "content-type": "application/xml" },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
      `<url><loc>${origin}/</loc></url><url><loc>${origin}/pricing</loc></url></urlset>`
  }
})

const text = (body: string, status = 200): Reply => ({ status, headers: { "content-type": "text/plain" }, body })

/** The scan fixtures: each flips what its name says. */
export const sites = {
  wellMarkedUp: (origin) => ({ "/": html(goodPage(origin)), ...goodFiles(origin) }),
  bare: () => ({ "/": html("<html><body><p>Hello</p></body></html>") }),
  blockedByRobots: (origin) => ({
    "/": html(goodPage(origin)),
    ...goodFiles(origin),
    "/robots.txt": text("User-agent: *\nDisallow: /\n")
  }),
  noindex: (origin) => ({ "/": html(goodPage(origin, { robotsMeta: "noindex, follow" })), ...goodFiles(origin) }),
  noindexHeader: (origin) => ({ "/": html(goodPage(origin), { "x-robots-tag": "noindex" }), ...goodFiles(origin) }),
  brokenCanonical: (origin) => ({ "/": html(goodPage(origin, { canonical: "/elsewhere" })), ...goodFiles(origin) }),
  rootCanonical: (origin) => ({
    "/blog/post": html(goodPage(origin, { canonical: `${origin}/`, path: "/blog/post" })),
    ...goodFiles(origin)
  }),
  aiCrawlersBlocked: (origin) => ({
    "/": html(goodPage(origin)),
    ...goodFiles(origin),
    "/robots.txt": text(
      "User-agent: GPTBot\nDisallow: /\n\nUser-agent: OAI-SearchBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    )
  }),
  trainingBlocked: (origin) => ({
    "/": html(goodPage(origin)),
    ...goodFiles(origin),
    "/robots.txt": text("User-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
  }),
  flawed: (_origin) => ({
    "/": html(`<!doctype html><html lang="en"><head><title>Flawed</title>
<link rel="alternate" hreflang="xx-YY" href="/fr/">
</head><body><h1>Flawed page</h1>
<p><a href="/pricing">click here</a> <a href="javascript:void(0)">Open menu</a> <a onclick="go()">Tap</a></p>
<img src="/photo.jpg"></body></html>`),
    "/robots.txt": text("oops", 500)
  }),
  invalidRobots: (origin) => ({
    "/": html(goodPage(origin)),
    ...goodFiles(origin),
    "/robots.txt": text("Disallow: /private\nUser-agent: *\nSitemap: /sitemap.xml\nFoo: bar\n")
  }),
  slowRobots: (origin) => ({
    "/": html(goodPage(origin)),
    ...goodFiles(origin),
    "/robots.txt": { ...text("User-agent: *\nAllow: /\n"), delayMs: 3_000 }
  }),
  notFound: () => ({
    "/missing": {
      status: 404,
      headers: { "content-type": "text/html" },
      body: "<html><head><title>Not found</title></head><body>Gone</body></html>"
    }
  }),
  heavy: () => ({
    "/": html(`<html><head><title>Heavy</title></head><body>${"<p>filler text</p>".repeat(70_000)}</body></html>`)
  }),
  huge: () => ({ "/": html(`<html><body>${"x".repeat(6 * 1024 * 1024)}</body></html>`) }),
  slow: () => ({ "/": { ...html("<html><body>late</body></html>"), delayMs: 11_000 } }),
  redirectLoop: () => ({
    "/a": { status: 302, headers: { location: "/b" } },
    "/b": { status: 302, headers: { location: "/a" } }
  }),
  redirectToFile: () => ({ "/": { status: 302, headers: { location: "file:///etc/passwd" } } }),
  brand: () => ({
    "/": html(`<!doctype html><html lang="en"><head>
<title>Home | Northwind Coffee</title>
<meta name="description" content="Northwind roasts single-origin coffee for home baristas and small cafes.">
<meta name="theme-color" content="#7A3E1D">
<meta property="og:image" content="/img/northwind-share.jpg">
<link rel="icon" href="/favicon.ico">
<style>.hero { background: #F2A541; color: #fff } .btn { background: #7a3e1d } a { color: #F2A541 } body { color: #222 }</style>
<script type="application/ld+json">${
      JSON.stringify({
        "@context": "https://schema.org",
        "@type": "Organization",
        name: "Northwind Coffee",
        logo: { "@type": "ImageObject", url: "/img/northwind-logo.svg" },
        sameAs: ["https://www.instagram.com/northwindcoffee"]
      })
    }</script>
<script type="application/ld+json">${JSON.stringify({ "@type": "Product", name: "Ethiopia Yirgacheffe" })}</script>
</head><body>
<h1>Fresh coffee for home baristas</h1>
<p>We roast every bag to order and ship it within 24 hours. You'll taste the difference in your first cup, and if you
don't, we'll refund you. Our roasters visit every farm we buy from, and we pay 30% above fair-trade prices. Your
subscription can be paused any time. We're a small team of six in Portland, and we answer every email ourselves.</p>
<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">House Espresso Blend</span></div>
<footer><a href="https://twitter.com/northwind">Twitter</a> <a href="https://www.linkedin.com/company/northwind">LinkedIn</a>
<a href="https://twitter.com/intent/tweet?text=hi">Share</a></footer>
</body></html>`)
  }),
  nonHtml: () => ({ "/": { headers: { "content-type": "application/json" }, body: "{\"hello\":\"world\"}" } })
} satisfies Record<string, Site>
