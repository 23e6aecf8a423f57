/**
 * `npm run soak`: three instances behind nginx on the PostgreSQL of
 * DATABASE_URL and a Redis of the soak's own, under a mixed load for
 * SOAK_SECONDS (default 600; 180 for a short run), loopback only. Faults:
 * kill -9 of one instance every 60 s (started again at once), one restart of
 * PostgreSQL (pg_ctlcluster), Redis stopped for 20 s once. Then it waits for
 * the queued work to drain and counts what was lost or done twice; the last
 * line, `soak: lost N, duplicated N, ...`, is for scripts.
 *
 * Restarting PostgreSQL disturbs everything else on that server: point
 * DATABASE_URL at a cluster of its own (pg_createcluster 15 soak -p 5433 --start).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { execFileSync } from "node:child_process"
import { createServer } from "node:http"
import { signOrchestratorRequest } from "../src/domain/OrchestratorSignature.ts"
import { type Cluster, missingPrerequisites, startCluster } from "./support/cluster-kit.ts"
import {
  type OwnRedis,
  postgresClusterOn,
  type ProbeSample,
  recoveryMs,
  restartPostgres,
  startOwnRedis
} from "./support/faults.ts"

const seconds = Number(process.env.SOAK_SECONDS ?? "600")
if (!Number.isInteger(seconds) || seconds < 120 || seconds > 3600) {
  console.error("soak: SOAK_SECONDS must be a whole number from 120 to 3600")
  process.exit(2)
}
const databaseUrl = process.env.DATABASE_URL
const missing = await missingPrerequisites(databaseUrl, null)
for (const tool of ["redis-server", "redis-cli", "psql", "pg_ctlcluster"]) {
  try {
    execFileSync("sh", ["-c", `command -v ${tool} || test -x /usr/sbin/${tool} || test -x /usr/bin/${tool}`], {
      stdio: "ignore"
    })
  } catch {
    missing.push(
      `${tool} (Debian: apt-get install -y ${
        tool.startsWith("redis") ? "redis-server" : "postgresql-client-common postgresql-common"
      })`
    )
  }
}
const pgCluster = databaseUrl === undefined ? undefined : postgresClusterOn(Number(new URL(databaseUrl).port || "5432"))
if (databaseUrl !== undefined && pgCluster === undefined) {
  missing.push("a local Debian PostgreSQL cluster serving DATABASE_URL (pg_lsclusters), to restart")
}
if (missing.length > 0) {
  console.error(`soak: cannot start; missing:\n${missing.map((m) => `  - ${m}`).join("\n")}`)
  process.exit(1)
}

const psql = (query: string): Array<Array<string>> =>
  execFileSync("psql", [databaseUrl!, "-AtX", "-F", "\t", "-c", query], { encoding: "utf8" })
    .split("\n").filter((l) => l.length > 0).map((l) => l.split("\t"))

const began = Date.now()
/** Soak time: from the start of the load (set when it begins), so faults fall where the plan says. */
let origin = began
const now = () => Date.now() - origin
const log = (line: string) => console.log(`[${(now() / 1000).toFixed(0).padStart(4)}s] ${line}`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---------------------------------------------------------------- the set
const adminSecret = "soak-admin-secret"
const signingKey = "soak-orchestrator-key"
const received = new Map<string, number>()
const receiver = createServer((req, res) => {
  const id = String(req.headers["webhook-id"] ?? "")
  req.resume()
  req.on("end", () => {
    received.set(id, (received.get(id) ?? 0) + 1)
    res.writeHead(204).end()
  })
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", () => resolve()))
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`

const redis: OwnRedis = await startOwnRedis()
log(`redis ${redis.url}, postgres cluster ${pgCluster!.version}/${pgCluster!.name}; starting 3 instances`)
const cluster: Cluster = await startCluster({
  count: 3,
  databaseUrl: databaseUrl!,
  redisUrl: redis.url,
  env: {
    ADMIN_SECRET: adminSecret,
    ORCHESTRATOR_SIGNING_KEY: signingKey,
    ALLOW_PRIVATE_TARGETS: "true",
    LOG_LEVEL: "error",
    PG_MAX_CONNECTIONS: "6",
    PUBLISH_POLL_INTERVAL_MS: "500",
    WORKFLOW_POLL_INTERVAL_MS: "500",
    RATE_LIMIT_REST_PER_MIN: "1000000",
    RATE_LIMIT_MCP_PER_MIN: "1000000",
    RATE_LIMIT_ADMIN_PER_MIN: "10000"
  }
})
let cleaning = false
const cleanUp = async () => {
  if (cleaning) return
  cleaning = true
  await cluster.stop().catch(() => undefined)
  await redis.stop()
  receiver.close()
}
process.on("SIGINT", () => void cleanUp().then(() => process.exit(130)))
log(`nginx ${cluster.url}`)

// ---------------------------------------------------------------- accounting
let requests = 0
const serverErrors = new Map<string, number>()
const otherRefusals = new Map<string, number>()
const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

/** One request through nginx; 5xx and network failures are counted by cause. */
const call = async (
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}
) => {
  requests++
  try {
    const res = await fetch(`${cluster.url}${path}`, {
      method,
      headers: {
        ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        ...options.headers
      },
      ...(options.body === undefined
        ? {}
        : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(30_000)
    })
    const text = await res.text()
    if (res.status >= 500) {
      let code = "not JSON (from nginx: no instance answered)"
      try {
        code = String(JSON.parse(text).code)
      } catch {
        // nginx's own page
      }
      count(serverErrors, `${res.status} ${code}`)
    } else if (res.status >= 400) count(otherRefusals, `${res.status} ${path.split("/").slice(0, 3).join("/")}`)
    return { status: res.status, text }
  } catch (error) {
    const cause = error instanceof Error
      ? (error.cause as { code?: string } | undefined)?.code ?? error.name
      : "unknown"
    count(serverErrors, `network ${cause}`)
    return { status: 0, text: "" }
  }
}

const provision = async (n: number) => {
  const res = await call("POST", "/api/admin/provision", {
    headers: { "x-admin-secret": adminSecret },
    body: { email: `soak-${began}-${n}@example.com` }
  })
  if (res.status !== 200) throw new Error(`provision: ${res.status} ${res.text}`)
  const { customerId, apiKey } = JSON.parse(res.text) as { customerId: string; apiKey: string }
  psql(`INSERT INTO social_connections (customer_id, platform, account_name) VALUES ('${customerId}', 'x', 'soak')`)
  const hook = await call("POST", `/api/hooks/${customerId}`, {
    key: apiKey,
    body: { url: receiverUrl, events: ["content.published", "workflow.completed"] }
  })
  if (hook.status !== 200) throw new Error(`webhook: ${hook.status} ${hook.text}`)
  return { customerId, key: apiKey }
}
const customers = [await provision(1), await provision(2)]
const [alice, bob] = customers as [{ customerId: string; key: string }, { customerId: string; key: string }]

// ---------------------------------------------------------------- load
let loadEnds = Number.POSITIVE_INFINITY
const running = () => Date.now() < loadEnds
const acked = { posts: [] as Array<string>, runs: [] as Array<string>, revenue: 0 }
const mcp = { calls: 0, failures: 0, reestablished: 0 }
const probes: Array<ProbeSample> = []

const reader = async (owner: { customerId: string; key: string }) => {
  while (running()) {
    await call("GET", `/api/content/${owner.customerId}?limit=10`, { key: owner.key })
    await call("GET", `/api/analytics/${owner.customerId}`, { key: owner.key })
  }
}

const writer = async () => {
  for (let i = 0; running(); i++) {
    // Half now, half due in 5 to 20 s (claimed later, perhaps by another instance, perhaps across a fault).
    const scheduledAt = i % 2 === 0 ? undefined : new Date(Date.now() + 5000 + (i % 4) * 5000).toISOString()
    const res = await call("POST", `/api/social/publish/${alice.customerId}`, {
      key: alice.key,
      body: { platform: "x", body: `Soak post ${i}`, ...(scheduledAt === undefined ? {} : { scheduledAt }) }
    })
    if (res.status === 200) acked.posts.push(JSON.parse(res.text).id as string)
    await sleep(250)
  }
}

const chatter = async () => {
  while (running()) {
    const res = await call("POST", `/api/chat/${bob.customerId}`, {
      key: bob.key,
      body: { message: "How did last week go?" }
    })
    if (res.status === 200 && !res.text.includes("event: done")) count(serverErrors, "chat stream ended without done")
    await sleep(500)
  }
}

const workflows = async () => {
  while (running()) {
    const body = JSON.stringify({ workflow: "performance-report", customerId: bob.customerId })
    const res = await call("POST", "/api/orchestrator", {
      body,
      headers: { "x-orchestrator-signature": signOrchestratorRequest(signingKey, body, Math.floor(Date.now() / 1000)) }
    })
    if (res.status === 200) acked.runs.push(JSON.parse(res.text).runId as string)
    await sleep(2000)
  }
}

/** An MCP client calling track_revenue; a failed call opens a new session (the instance holding it may be gone). */
const mcpClient = async (transport: "http" | "sse") => {
  const open = async () => {
    const client = new Client({ name: "soak", version: "1.0.0" })
    await client.connect(
      transport === "http"
        ? new StreamableHTTPClientTransport(new URL(`${cluster.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${alice.key}` } }
        })
        : new SSEClientTransport(new URL(`${cluster.url}/mcp/sse?token=${alice.key}`))
    )
    return client
  }
  let client: Client | undefined
  while (running()) {
    try {
      if (client === undefined) {
        client = await open()
        if (mcp.calls > 0) mcp.reestablished++
      }
      mcp.calls++
      requests++
      const result = await client.callTool(
        { name: "track_revenue", arguments: { customerId: alice.customerId, amount: 1, currency: "USD" } },
        undefined,
        { timeout: 30_000 }
      )
      if (result.isError === true) throw new Error("tool error")
      acked.revenue++
    } catch {
      mcp.failures++
      void client?.close().catch(() => undefined)
      client = undefined
      await sleep(500)
    }
    await sleep(100)
  }
  await client?.close().catch(() => undefined)
}

const prober = async () => {
  while (running()) {
    const res = await call("GET", `/api/content/${alice.customerId}?limit=1`, { key: alice.key })
    probes.push({ at: now(), ok: res.status === 200 })
    await sleep(200)
  }
}

// ---------------------------------------------------------------- faults
interface Fault {
  readonly name: string
  readonly at: number
  note: string
}
const faults: Array<Fault> = []

const faultPlan = async () => {
  const pgAt = 60_000 * Math.floor(seconds / 120) + 30_000
  const redisAt = (seconds - 40) * 1000
  const events: Array<{ at: number; run: () => Promise<void> }> = []
  for (let k = 1; k * 60_000 < (seconds - 20) * 1000; k++) {
    events.push({
      at: k * 60_000,
      run: async () => {
        const member = cluster.members[(k - 1) % cluster.members.length]!
        const fault: Fault = { name: `kill -9 ${member.tag}`, at: now(), note: "" }
        faults.push(fault)
        await cluster.kill(member)
        const t = Date.now()
        await cluster.restart(member)
        fault.note = `instance back in ${((Date.now() - t) / 1000).toFixed(1)} s`
        log(`${fault.name}: ${fault.note}`)
      }
    })
  }
  events.push({
    at: pgAt,
    run: async () => {
      const fault: Fault = { name: "PostgreSQL restart", at: now(), note: "" }
      faults.push(fault)
      const t = Date.now()
      restartPostgres(pgCluster!)
      fault.note = `pg_ctlcluster restart took ${((Date.now() - t) / 1000).toFixed(1)} s`
      log(`${fault.name}: ${fault.note}`)
    }
  })
  events.push({
    at: redisAt,
    run: async () => {
      const fault: Fault = { name: "Redis stopped 20 s", at: now(), note: "" }
      faults.push(fault)
      await redis.stop()
      log("redis stopped")
      await sleep(20_000)
      await redis.start()
      fault.note = "started again after 20 s"
      log("redis started")
    }
  })
  await Promise.all(events.map(async (event) => {
    await sleep(event.at - now())
    if (running()) await event.run().catch((error) => log(`fault failed: ${String(error)}`))
  }))
}

log(`load for ${seconds} s`)
origin = Date.now()
loadEnds = origin + seconds * 1000
await Promise.all([
  reader(alice),
  reader(bob),
  writer(),
  chatter(),
  workflows(),
  mcpClient("http"),
  mcpClient("sse"),
  prober(),
  faultPlan()
])
log(`load over: ${requests} requests; waiting for queued posts, runs and deliveries`)

// ---------------------------------------------------------------- drain and count
const ids = (list: ReadonlyArray<string>) => list.length === 0 ? "''" : list.map((id) => `'${id}'`).join(",")
const customerIds = ids(customers.map((c) => c.customerId))
const pending = () =>
  Number(
    psql(`SELECT
    (SELECT count(*) FROM publish_jobs WHERE content_id IN (${ids(acked.posts)}) AND status = 'queued')
  + (SELECT count(*) FROM workflow_runs WHERE id IN (${ids(acked.runs)}) AND completed_at IS NULL)
  + (SELECT count(*) FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
       WHERE e.customer_id IN (${customerIds}) AND d.status = 'pending')`)[0]![0]
  )
for (const deadline = Date.now() + 180_000; pending() > 0 && Date.now() < deadline;) await sleep(2000)

const one = (query: string) => Number(psql(query)[0]?.[0] ?? "0")
const postsStored = one(`SELECT count(*) FROM content WHERE id IN (${ids(acked.posts)})`)
const postsPublished = one(
  `SELECT count(*) FROM publish_jobs WHERE content_id IN (${ids(acked.posts)}) AND status = 'published'`
)
const postsTwice = one(
  `SELECT count(*) FROM (SELECT content_id FROM publish_attempts WHERE content_id IN (${ids(acked.posts)})
  AND status IN ('sent', 'reconciled') GROUP BY content_id HAVING count(*) > 1) t`
)
const runsStored = one(`SELECT count(*) FROM workflow_runs WHERE id IN (${ids(acked.runs)})`)
const runsSucceeded = one(
  `SELECT count(*) FROM workflow_runs WHERE id IN (${ids(acked.runs)}) AND status = 'succeeded'`
)
// A step started again after a fault is not a step done twice: what counts is whether its work landed twice.
const stepsRetried = one(`SELECT count(*) FROM workflow_steps WHERE run_id IN (${ids(acked.runs)}) AND attempts > 1`)
const stepsTwice = one(
  `SELECT count(*) FROM workflow_steps s WHERE s.run_id IN (${ids(acked.runs)}) AND s.detail ? 'pieces'
  AND (SELECT count(*) FROM content c WHERE c.run_id = s.run_id) > jsonb_array_length(s.detail -> 'pieces')`
)
const revenueStored = one(`SELECT count(*) FROM revenue WHERE customer_id = '${alice.customerId}'`)
const deliveries = psql(
  `SELECT d.event_id, d.status FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
  WHERE e.customer_id IN (${customerIds})`
)
const deliveriesLost =
  deliveries.filter(([eventId, status]) => status === "succeeded" ? !received.has(eventId!) : true).length
const deliveriesRepeated = [...received.values()].filter((n) => n > 1).length
const events = one(`SELECT count(*) FROM webhook_events WHERE customer_id IN (${customerIds})`)

const writesLost = acked.posts.length - postsStored + (acked.runs.length - runsStored) +
  Math.max(0, acked.revenue - revenueStored)
const postsUnpublished = acked.posts.length - postsPublished
const serverErrorTotal = [...serverErrors.values()].reduce((a, b) => a + b, 0)

console.log("\n== soak figures ==")
console.log(`duration            ${seconds} s of load, 3 instances, nginx round-robin`)
console.log(`requests            ${requests} (MCP tool calls ${mcp.calls})`)
console.log(`5xx and failures    ${serverErrorTotal}`)
for (const [cause, n] of [...serverErrors].sort((a, b) => b[1] - a[1])) {
  console.log(`  ${String(n).padStart(6)}  ${cause}`)
}
if (otherRefusals.size > 0) {
  console.log("4xx")
  for (const [cause, n] of [...otherRefusals].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${String(n).padStart(6)}  ${cause}`)
  }
}
console.log(
  `acknowledged writes posts ${acked.posts.length}, workflow runs ${acked.runs.length}, MCP revenue records ${acked.revenue}`
)
console.log(
  `  lost              ${writesLost} (stored: posts ${postsStored}, runs ${runsStored}, revenue ${revenueStored})`
)
console.log(
  `posts published     ${postsPublished} of ${acked.posts.length}; published twice ${postsTwice}; not published after the drain ${postsUnpublished}`
)
console.log(
  `workflow runs       succeeded ${runsSucceeded} of ${acked.runs.length}; steps run twice ${stepsTwice} (steps started again after a fault: ${stepsRetried})`
)
console.log(
  `webhooks            ${events} events, ${deliveries.length} deliveries; lost ${deliveriesLost}; received more than once ${deliveriesRepeated} (at least once, deduplicated on webhook-id)`
)
console.log(`MCP sessions        failed calls ${mcp.failures}; sessions re-established ${mcp.reestablished}`)
console.log("recovery (first success of a run of 10 probe successes after the fault)")
for (const fault of faults) {
  const ms = recoveryMs(probes, fault.at)
  console.log(
    `  ${fault.name.padEnd(22)} at ${(fault.at / 1000).toFixed(0).padStart(4)} s: ${
      ms === undefined ? "not recovered" : `${(ms / 1000).toFixed(1)} s`
    }; ${fault.note}`
  )
}
const lost = writesLost + deliveriesLost + postsUnpublished
const duplicated = postsTwice + stepsTwice
console.log(
  `soak: lost ${lost}, duplicated ${duplicated}, requests ${requests}, 5xx ${serverErrorTotal}, mcp re-established ${mcp.reestablished}, faults ${faults.length}`
)
await cleanUp()
process.exit(0)
