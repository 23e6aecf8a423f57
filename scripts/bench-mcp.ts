/**
 * MCP sessions at scale: the app runs in this process; a child process opens
 * SESSIONS HTTP+SSE sessions against it (each its own TCP connection and SDK
 * server instance) and measures a read-only tools/call (query_ga4, answered
 * from Herald's own data) over the SDK client, first with no sessions open
 * (the baseline), then with all of them open. Prints RSS and heap per session
 * (after a GC, so run with --expose-gc: `npm run bench:mcp`) and the p50/p99.
 *   npm run bench:mcp -- [SESSIONS=1000]
 * The 10,000-session figure (raise the descriptor limit first; two ends of
 * each connection live on this machine):
 *   ulimit -n 65536 && npm run bench:mcp -- 10000
 * DATABASE_URL=postgres://... (a scratch database) measures without PGlite's
 * ~370 MB of WASM memory in the baseline; BENCH_HEAP_SNAPSHOT=<file> writes a
 * heap snapshot of the server with the sessions open.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { Context, Effect, Option, Redacted } from "effect"
import { fork } from "node:child_process"
import http from "node:http"
import { fileURLToPath } from "node:url"
import { Customers } from "../src/features/customers/Customers.ts"
import { runScript, startApp } from "./support/bench-kit.ts"

delete process.env.BASE_URL

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]

interface Tenant {
  readonly id: string
  readonly key: string
}

// ---- child: the clients -------------------------------------------------------

/** Opens one raw SSE session and resolves once its endpoint event arrived; the stream stays open. */
const openSession = (url: string, key: string) =>
  new Promise<http.ClientRequest>((resolve, reject) => {
    const request = http.get(`${url}/mcp/sse?token=${key}`, { agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE answered ${res.statusCode}`))
      let text = ""
      const onData = (chunk: Buffer) => {
        text += chunk.toString("utf8")
        if (text.includes("event: endpoint")) {
          res.off("data", onData)
          res.resume()
          resolve(request)
        }
      }
      res.on("data", onData)
    })
    request.on("error", reject)
  })

/** `calls` sequential read-only tool calls spread over the tenants' SDK clients; milliseconds each. */
const timeCalls = async (clients: ReadonlyArray<readonly [Client, Tenant]>, calls: number) => {
  const times: Array<number> = []
  for (let i = 0; i < calls; i++) {
    const [client, tenant] = clients[i % clients.length]
    const start = performance.now()
    const result = await client.callTool({ name: "query_ga4", arguments: { customerId: tenant.id } })
    times.push(performance.now() - start)
    if (result.isError === true) throw new Error(`tool error: ${JSON.stringify(result.content)}`)
  }
  return times.sort((a, b) => a - b)
}

const child = async () => {
  const [url, tenantsJson, sessionsArg] = process.argv.slice(3)
  const tenants = JSON.parse(tenantsJson) as Array<Tenant>
  const sessions = Number(sessionsArg)
  const send = (message: unknown) => new Promise<void>((resolve) => process.send!(message, () => resolve()))
  const next = () => new Promise<unknown>((resolve) => process.once("message", resolve))

  const clients: Array<readonly [Client, Tenant]> = []
  for (const tenant of tenants) {
    const client = new Client({ name: "bench", version: "1.0.0" })
    await client.connect(new SSEClientTransport(new URL(`${url}/mcp/sse?token=${tenant.key}`)))
    clients.push([client, tenant])
  }
  // 14 calls per tenant per phase: with the 2 POSTs of connecting, two phases use exactly the 30/min MCP limit of each.
  const perPhase = tenants.length * 14
  await timeCalls(clients, tenants.length) // warm-up, within the budget's slack below
  const baseline = await timeCalls(clients, perPhase - tenants.length)
  await send({ phase: "baseline", times: baseline })
  await next()

  const open: Array<http.ClientRequest> = []
  const started = performance.now()
  const holder = tenants[0]
  let index = 0
  const worker = async () => {
    while (index < sessions) {
      index++
      open.push(await openSession(url, holder.key))
    }
  }
  await Promise.all(Array.from({ length: 50 }, worker))
  await send({ phase: "opened", seconds: (performance.now() - started) / 1000 })
  await next()
  const loaded = await timeCalls(clients, perPhase)
  await send({ phase: "loaded", times: loaded })
  await next()
  for (const request of open) request.destroy()
  await Promise.all(clients.map(([client]) => client.close()))
  process.exit(0)
}

// ---- parent: the server ------------------------------------------------------------

const gc = (globalThis as { gc?: () => void }).gc
const measure = () => {
  gc?.()
  gc?.()
  const usage = process.memoryUsage()
  return { rss: usage.rss, heap: usage.heapUsed }
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`

const parent = Effect.gen(function*() {
  const sessions = Number(process.argv[2] ?? 1000)
  const tenantCount = 20
  const external = process.env.DATABASE_URL
  const { url, context, config } = yield* startApp({
    databaseUrl: Option.some(Redacted.make(external?.startsWith("postgres") === true ? external : "pglite://memory")),
    // One customer holds every session here.
    mcpMaxSessionsPerCustomer: sessions + 10,
    ...(process.env.MCP_KEEPALIVE_MS === undefined ? {} : { mcpKeepAliveMs: Number(process.env.MCP_KEEPALIVE_MS) })
  })
  // Provisioned in-process: the admin route allows 10 a minute.
  const customers = Context.get(context, Customers)
  const tenants: Array<Tenant> = []
  for (let i = 0; i < tenantCount; i++) {
    const { customer, apiKey } = yield* customers.provision({
      email: `bench${i}-${crypto.randomUUID()}@example.com`,
      status: "active"
    })
    tenants.push({ id: customer.id, key: apiKey })
  }

  const clientProcess = fork(fileURLToPath(import.meta.url), [
    "--client",
    url,
    JSON.stringify(tenants),
    String(sessions)
  ], {
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const messages: Array<any> = []
  const waiting: Array<(m: any) => void> = []
  clientProcess.on("message", (m) => {
    const resolve = waiting.shift()
    if (resolve !== undefined) resolve(m)
    else messages.push(m)
  })
  const receive = () =>
    Effect.promise(() =>
      new Promise<any>((resolve) => messages.length > 0 ? resolve(messages.shift()) : waiting.push(resolve))
    )
  const proceed = () => Effect.sync(() => clientProcess.send("go"))

  const baseline = yield* receive()
  const before = measure()
  yield* proceed()
  const opened = yield* receive()
  const after = measure()
  if (process.env.BENCH_HEAP_SNAPSHOT !== undefined) {
    const { writeHeapSnapshot } = yield* Effect.promise(() => import("node:v8"))
    console.log(`heap snapshot: ${writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT)}`)
  }
  yield* proceed()
  const loaded = yield* receive()
  yield* proceed()
  yield* Effect.promise(() => new Promise((resolve) => clientProcess.once("exit", resolve)))

  console.log(
    `database: ${external?.startsWith("postgres") === true ? "postgresql" : "pglite"}; gc: ${
      gc === undefined ? "unavailable (run with --expose-gc)" : "forced before each reading"
    }`
  )
  console.log(`keep-alive comments every ${config.mcpKeepAliveMs} ms on each session`)
  console.log(`sessions: ${sessions} SSE sessions opened in ${opened.seconds.toFixed(2)} s from a child process`)
  console.log(
    `server RSS: ${mb(before.rss)} before, ${mb(after.rss)} with them open: ${
      kb((after.rss - before.rss) / sessions)
    } per session`
  )
  console.log(
    `server heap: ${mb(before.heap)} before, ${mb(after.heap)} with them open: ${
      kb((after.heap - before.heap) / sessions)
    } per session`
  )
  console.log(
    `projected RSS at 10,000 sessions: ${
      mb(before.rss + ((after.rss - before.rss) / sessions) * 10_000)
    } (target < 600 MB)`
  )
  for (
    const [name, times] of [["baseline (no sessions open)", baseline.times], [
      `with ${sessions} sessions open`,
      loaded.times
    ]] as const
  ) {
    console.log(
      `tools/call query_ga4 ${name}: n=${times.length} p50 ${percentile(times, 0.5).toFixed(2)} ms, p99 ${
        percentile(times, 0.99).toFixed(2)
      } ms (target p99 < 20 ms)`
    )
  }
})

if (process.argv[2] === "--client") {
  child().catch((error) => {
    console.error(error)
    process.exit(1)
  })
} else {
  runScript(parent)
}
