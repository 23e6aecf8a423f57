/**
 * `npm run bench:scale`: the authenticated read (GET /api/content/{id},
 * Bearer key) through nginx with round-robin over 1, 2 and 3 instances on
 * the PostgreSQL of DATABASE_URL and the Redis of REDIS_URL, as ratios to one
 * instance; plus one instance without nginx, for the proxy's own cost.
 * BENCH_SECONDS (default 15) per run, BENCH_CONNECTIONS (default 32).
 * All instances share this machine's cores: the ratios say what a second
 * process on the same machine buys, not what a second machine would.
 */
import { Effect } from "effect"
import { loadavg } from "node:os"
import { load, type Result, runScript } from "./support/bench-kit.ts"
import { missingPrerequisites, startCluster } from "./support/cluster-kit.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? "15")
const connections = Number(process.env.BENCH_CONNECTIONS ?? "32")
const databaseUrl = process.env.DATABASE_URL
const redisUrl = process.env.REDIS_URL
const adminSecret = "bench-admin-secret"

const missing = await missingPrerequisites(databaseUrl, redisUrl)
if (missing.length > 0) {
  console.error(`bench:scale: cannot start; missing:\n${missing.map((m) => `  - ${m}`).join("\n")}`)
  process.exit(1)
}

const measure = (instances: number) =>
  Effect.gen(function*() {
    const cluster = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startCluster({
          count: instances,
          databaseUrl: databaseUrl!,
          redisUrl,
          // The limit is not what is measured: high enough never to answer 429.
          env: {
            ADMIN_SECRET: adminSecret,
            LOG_LEVEL: "error",
            RATE_LIMIT_REST_PER_MIN: "100000000",
            RATE_LIMIT_ADMIN_PER_MIN: "1000"
          }
        })
      ),
      (c) => Effect.promise(() => c.stop())
    )
    const provisioned = yield* Effect.promise(async () => {
      const res = await fetch(`${cluster.url}/api/admin/provision`, {
        method: "POST",
        headers: { "x-admin-secret": adminSecret, "content-type": "application/json" },
        body: JSON.stringify({ email: `scale-${Date.now()}-${instances}@example.com` })
      })
      return await res.json() as { customerId: string; apiKey: string }
    })
    const options = (url: string) => ({
      url: `${url}/api/content/${provisioned.customerId}?limit=10`,
      headers: { authorization: `Bearer ${provisioned.apiKey}` },
      connections,
      duration: seconds
    })
    // A warm-up on every instance (JIT, pools), then the measured run.
    yield* load("warm-up", { ...options(cluster.url), duration: 5 })
    const measured = (name: string, url: string) =>
      Effect.map(load(name, options(url)), (result) => ({ ...result, load: loadavg()[0]! }))
    const results = [yield* measured(`${instances} instance${instances === 1 ? "" : "s"} via nginx`, cluster.url)]
    if (instances === 1) results.push(yield* measured("1 instance direct (no nginx)", cluster.members[0]!.service!.url))
    return results
  }).pipe(Effect.scoped)

runScript(Effect.gen(function*() {
  console.log(
    `authenticated read, ${connections} connections, ${seconds} s per run; load average at start ${
      loadavg()[0]!.toFixed(1)
    }`
  )
  const results: Array<Result & { load: number }> = []
  for (const n of [1, 2, 3]) results.push(...yield* measure(n))
  const base = results[0]!.rps
  console.log("\n| setup | req/s | ratio to 1 | p50 ms | p99 ms | non-2xx | errors | load average after |")
  console.log("|---|---|---|---|---|---|---|---|")
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${
        (r.rps / base).toFixed(2)
      } | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${r.load.toFixed(1)} |`
    )
  }
}))
