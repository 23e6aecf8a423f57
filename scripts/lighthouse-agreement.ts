/**
 * How often our reproduction of Lighthouse's SEO audits agrees with
 * Lighthouse itself (the `lighthouse` package, SEO category only, with the
 * machine's Chromium) over a corpus of local fixture pages: per audit, pass
 * vs fail and applicable vs not applicable; and the SEO category score.
 * npm run lighthouse:agreement [-- NAME...]   (only the named pages; CHROME_PATH overrides /usr/bin/chromium)
 */
import * as chromeLauncher from "chrome-launcher"
import { Effect } from "effect"
import lighthouse from "lighthouse"
import { lighthouseSeoWeights } from "../src/domain/Scan.ts"
import { analyse } from "../src/features/scan/checks/index.ts"
import { fetchSite } from "../src/features/scan/Fetch.ts"
import { serveSite } from "../test/support/scan-sites.ts"
import { corpus } from "./support/scan-corpus.ts"

const auditIds = Object.keys(lighthouseSeoWeights)
type Verdict = "pass" | "fail" | "n/a"

const chrome = await chromeLauncher.launch({
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

const agree = new Map<string, { same: number; total: number; misses: Array<string> }>(
  auditIds.map((id) => [id, { same: 0, total: 0, misses: [] }])
)
let scoreMatches = 0
let pages = 0
try {
  const only = process.argv.slice(2)
  for (const page of corpus.filter((p) => only.length === 0 || only.includes(p.name))) {
    const site = await serveSite(page.site)
    const url = site.origin + page.path
    try {
      const runner = await lighthouse(url, {
        port: chrome.port,
        onlyCategories: ["seo"],
        output: "json",
        logLevel: "error"
      })
      const lhr = runner?.lhr
      if (lhr === undefined || lhr.runtimeError !== undefined) {
        console.log(`${page.name}: Lighthouse could not run (${lhr?.runtimeError?.code ?? "no result"})`)
        continue
      }
      const ours = await Effect.runPromise(fetchSite(url, { allowPrivateTargets: true }).pipe(Effect.map(analyse)))
      pages++
      for (const id of auditIds) {
        const audit = lhr.audits[id]
        const theirs: Verdict = audit.scoreDisplayMode === "notApplicable" ? "n/a" : audit.score === 1 ? "pass" : "fail"
        const item = ours.checklist.find((i) => i.id === id)
        const mine: Verdict = item === undefined ? "n/a" : item.status === "fail" ? "fail" : "pass"
        const tally = agree.get(id)!
        tally.total++
        if (mine === theirs) tally.same++
        else tally.misses.push(`${page.name} (ours ${mine}, Lighthouse ${theirs})`)
      }
      const lhScore = Math.round((lhr.categories.seo.score ?? 0) * 100)
      if (lhScore === ours.lighthouseSeoScore) scoreMatches++
      else console.log(`${page.name}: SEO score ours ${ours.lighthouseSeoScore}, Lighthouse ${lhScore}`)
    } finally {
      await site.close()
    }
  }
} finally {
  chrome.kill()
}

console.log(
  `\nLighthouse ${
    (await import("lighthouse/package.json", { with: { type: "json" } })).default.version
  }, ${pages} pages`
)
console.log("audit".padEnd(20), "agreement")
for (const [id, tally] of agree) {
  const pct = tally.total === 0 ? 0 : (100 * tally.same) / tally.total
  console.log(
    id.padEnd(20),
    `${tally.same}/${tally.total}`.padEnd(8),
    `${pct.toFixed(1)}%`,
    tally.misses.length > 0 ? `  differs on: ${tally.misses.join(", ")}` : ""
  )
}
console.log("SEO category score".padEnd(20), `${scoreMatches}/${pages}`)
