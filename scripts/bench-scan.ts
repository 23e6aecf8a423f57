/**
 * Scan speed: p50/p99 of a full scan (page, robots.txt, llms.txt and sitemap
 * fetched, every check, stored; no screenshot) of a local fixture page through
 * the HTTP API, against Lighthouse's SEO-only run on the same page (the
 * `lighthouse` package with the machine's Chromium, launched once); then 20
 * concurrent scans by 10 customers.
 *   npm run bench:scan [SCANS=50] [LIGHTHOUSE_RUNS=3]
 */
import * as chromeLauncher from "chrome-launcher"
import { Context, Effect, Option, Redacted } from "effect"
import lighthouse from "lighthouse"
import { Customers } from "../src/features/customers/Customers.ts"
import { serveSite, sites } from "../test/support/scan-sites.ts"
import { runScript, startApp } from "./support/bench-kit.ts"

const scans = Number(process.argv[2] ?? 50)
const lighthouseRuns = Number(process.argv[3] ?? 3)
delete process.env.BASE_URL

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
}
const ms = (n: number) => `${n.toFixed(0)} ms`

const program = Effect.gen(function*() {
  const { context, url } = yield* startApp({
    databaseUrl: Option.some(Redacted.make("pglite://memory")),
    allowPrivateTargets: true,
    chromiumPath: undefined
  })
  const customers = Context.get(context, Customers)
  const keys: Array<{ id: string; key: string }> = []
  for (let i = 0; i < 11; i++) {
    const { customer, apiKey } = yield* customers.provision({ email: `bench-${i}@example.com` })
    keys.push({ id: customer.id, key: apiKey })
  }
  const site = yield* Effect.acquireRelease(
    Effect.promise(() => serveSite(sites.wellMarkedUp)),
    (s) => Effect.promise(() => s.close())
  )
  const page = `${site.origin}/`
  const scan = (who: { id: string; key: string }) =>
    Effect.promise(async () => {
      const started = performance.now()
      const res = await fetch(`${url}/api/scan/${who.id}`, {
        method: "POST",
        headers: { authorization: `Bearer ${who.key}`, "content-type": "application/json" },
        body: JSON.stringify({ url: page })
      })
      const body = await res.json() as { status: string }
      if (res.status !== 200 || body.status !== "done") {
        throw new Error(`scan answered ${res.status} ${JSON.stringify(body)}`)
      }
      return performance.now() - started
    })

  yield* scan(keys[0])
  const sequential: Array<number> = []
  for (let i = 0; i < scans; i++) sequential.push(yield* scan(keys[0]))

  const chrome = yield* Effect.acquireRelease(
    Effect.promise(() =>
      chromeLauncher.launch({
        chromePath: process.env.CHROME_PATH ?? "/usr/bin/chromium",
        chromeFlags: [
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run"
        ]
      })
    ),
    (c) => Effect.sync(() => c.kill())
  )
  const lighthouseTimes: Array<number> = []
  for (let i = 0; i < lighthouseRuns; i++) {
    lighthouseTimes.push(
      yield* Effect.promise(async () => {
        const started = performance.now()
        await lighthouse(page, { port: chrome.port, onlyCategories: ["seo"], output: "json", logLevel: "error" })
        return performance.now() - started
      })
    )
  }

  const wallStarted = performance.now()
  const concurrent = yield* Effect.all(
    Array.from({ length: 20 }, (_, i) => scan(keys[1 + (i % 10)])),
    { concurrency: "unbounded" }
  )
  const wall = performance.now() - wallStarted

  const p50 = quantile(sequential, 0.5)
  const lh = quantile(lighthouseTimes, 0.5)
  console.log(`full scan, no screenshot, ${scans} sequential: p50 ${ms(p50)}, p99 ${ms(quantile(sequential, 0.99))}`)
  console.log(
    `Lighthouse SEO-only, same page, Chrome already running, ${lighthouseRuns} runs: median ${ms(lh)} (${
      (lh / p50).toFixed(0)
    }x the scan's p50)`
  )
  console.log(
    `20 concurrent scans by 10 customers: p50 ${ms(quantile(concurrent, 0.5))}, p99 ${
      ms(quantile(concurrent, 0.99))
    }, all done in ${ms(wall)}`
  )
})

runScript(program)
