/**
 * Health under hostile pages: the service (`node src/main.ts`, embedded
 * database, Chromium screenshots) is probed on /api/health every 50 ms, first
 * idle for IDLE_SECONDS, then while it scans and auto-extracts every page of
 * the hostile corpus (test/support/hostile-sites.ts) ROUNDS times over, with
 * a normal scan beside them. Prints health p50/p99 for both phases and their
 * ratio, the service's baseline and peak RSS, the page workers' and the
 * browser host's peak RSS.
 *   npm run bench:hostile [ROUNDS=2] [IDLE_SECONDS=10]
 * With PROFILE_DIR set, the service writes a CPU profile (--cpu-prof) there
 * when it stops: where its event loop spent the run.
 */
import { readdirSync, readFileSync } from "node:fs"
import { serveHostileCorpus } from "../test/support/hostile-sites.ts"
import { serveSite, sites } from "../test/support/scan-sites.ts"
import { startService } from "./support/service-process.ts"

const rounds = Number(process.argv[2] ?? 2)
const idleSeconds = Number(process.argv[3] ?? 10)
const adminSecret = "bench-admin-secret"

const rssOf = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024
  } catch {
    return 0
  }
}

/** The service's children running `module`: the page pool workers, the browser host. */
const childPids = (parent: number, module: string) =>
  readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      return ppid === parent && readFileSync(`/proc/${name}/cmdline`, "utf8").includes(module) ? [Number(name)] : []
    } catch {
      return []
    }
  })

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

const profileDir = process.env.PROFILE_DIR

const start = () =>
  startService(
    {
      LOG_LEVEL: "error",
      DATABASE_URL: "pglite://memory",
      ADMIN_SECRET: adminSecret,
      ALLOW_PRIVATE_TARGETS: "true",
      CHROMIUM_PATH: "/usr/bin/chromium",
      RATE_LIMIT_REST_PER_MIN: "100000",
      RATE_LIMIT_ADMIN_PER_MIN: "100000",
      SCAN_QUEUE_MAX: "100"
    },
    60_000,
    { nodeArgs: profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] }
  )

const { url, child } = await start()
const post = async (path: string, key: string, body: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: res.status, json: await res.json() as Record<string, unknown> }
}
const customer = async () => {
  const res = await fetch(`${url}/api/admin/provision`, {
    method: "POST",
    headers: { "x-admin-secret": adminSecret, "content-type": "application/json" },
    body: JSON.stringify({ email: `bench-${crypto.randomUUID()}@example.com` })
  })
  return await res.json() as { customerId: string; apiKey: string }
}

/** Health latencies (ms) every 50 ms until `stop` resolves; failures counted. */
const probe = async (until: Promise<unknown>) => {
  let done = false
  void until.finally(() => (done = true))
  const latencies: Array<number> = []
  let failures = 0
  while (!done) {
    const started = performance.now()
    try {
      const res = await fetch(`${url}/api/health`)
      await res.arrayBuffer()
      if (res.status !== 200) failures++
    } catch {
      failures++
    }
    const took = performance.now() - started
    latencies.push(took)
    await new Promise((r) => setTimeout(r, Math.max(0, 50 - took)))
  }
  return { latencies, failures }
}

const corpus = await serveHostileCorpus()
const good = await serveSite(sites.wellMarkedUp)
try {
  const warm = await customer()
  await post(`/api/scan/${warm.customerId}`, warm.apiKey, { url: `${good.origin}/` })
  const baselineRss = rssOf(child.pid!)

  const idle = await probe(new Promise((r) => setTimeout(r, idleSeconds * 1000)))

  let peakRss = baselineRss
  let peakWorkers = 0
  let peakHost = 0
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssOf(child.pid!))
    peakWorkers = Math.max(
      peakWorkers,
      childPids(child.pid!, "pageWorker.ts").reduce((sum, pid) => sum + rssOf(pid), 0)
    )
    peakHost = Math.max(peakHost, childPids(child.pid!, "browserHost.ts").reduce((sum, pid) => sum + rssOf(pid), 0))
  }, 100)
  const outcomes: Array<string> = []
  const started = performance.now()
  const work = (async () => {
    for (let round = 0; round < rounds; round++) {
      await Promise.all([
        ...Object.entries(corpus.pages).map(async ([name, page]) => {
          const owner = await customer()
          const res = await post(`/api/scan/${owner.customerId}`, owner.apiKey, { url: page })
          outcomes.push(
            `scan ${name}: ${res.status} ${String(res.json.status)}${
              res.json.error === undefined || res.json.error === null ? "" : ` (${String(res.json.error)})`
            }`
          )
        }),
        ...["redos", "huge", "drip", "redirect", "images"].map(async (name) => {
          const owner = await customer()
          const res = await post(`/api/onboard/${owner.customerId}/auto-extract`, owner.apiKey, {
            url: corpus.pages[name]
          })
          outcomes.push(
            `auto-extract ${name}: ${res.status}${res.status === 200 ? "" : ` (${String(res.json.error)})`}`
          )
        }),
        (async () => {
          const owner = await customer()
          const res = await post(`/api/scan/${owner.customerId}`, owner.apiKey, { url: `${good.origin}/` })
          outcomes.push(`normal scan: ${res.status} ${String(res.json.status)}`)
        })()
      ])
    }
  })()
  const hostile = await probe(work)
  await work
  clearInterval(sampler)
  const seconds = (performance.now() - started) / 1000

  for (const line of [...new Set(outcomes)].sort()) console.log(`  ${line}`)
  console.log(`service alive afterwards: ${child.exitCode === null && child.signalCode === null}`)
  console.log(`WebRTC datagrams that reached the loopback STUN port: ${corpus.udpPackets()}`)
  const p50 = (xs: Array<number>) => quantile(xs, 0.5)
  const p99 = (xs: Array<number>) => quantile(xs, 0.99)
  console.log(
    `health idle:    p50 ${p50(idle.latencies).toFixed(1)} ms, p99 ${
      p99(idle.latencies).toFixed(1)
    } ms (${idle.latencies.length} probes, ${idle.failures} failed)`
  )
  console.log(
    `health hostile: p50 ${p50(hostile.latencies).toFixed(1)} ms, p99 ${
      p99(hostile.latencies).toFixed(1)
    } ms (${hostile.latencies.length} probes over ${seconds.toFixed(0)} s, ${hostile.failures} failed)`
  )
  console.log(
    `ratio hostile/idle: p50 x${(p50(hostile.latencies) / p50(idle.latencies)).toFixed(2)}, p99 x${
      (p99(hostile.latencies) / p99(idle.latencies)).toFixed(2)
    }`
  )
  console.log(
    `service RSS: ${mb(baselineRss)} before, ${mb(peakRss)} peak (+${
      mb(peakRss - baselineRss)
    }); page workers together peak ${mb(peakWorkers)}; browser host (Playwright server, not Chromium) peak ${
      mb(peakHost)
    }`
  )
} finally {
  child.kill("SIGTERM")
  await Promise.all([corpus.close(), good.close()])
}
