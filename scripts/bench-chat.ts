/**
 * Chat with the house model: time to the first `delta` event. The app runs in
 * this process; each sample is one POST /api/chat over a kept-alive loopback
 * connection, timed from the moment the request is written to the moment the
 * first `event: delta` frame is read (so it includes authentication, the
 * thread and message writes, the model's first words and the loopback), and
 * to the end of the stream. The REST limit is 60 requests a minute per
 * customer, so the samples are spread over customers, 50 each.
 *   npm run bench:chat -- [SAMPLES=500]
 * Runs on an in-memory PGlite unless DATABASE_URL points at PostgreSQL (a fresh schema is used).
 */
import { Context, Effect, Option, Redacted } from "effect"
import http from "node:http"
import { Customers } from "../src/features/customers/Customers.ts"
import { externalDatabaseUrl, freshSchemaUrl } from "../test/support/harness.ts"
import { runScript, startApp } from "./support/bench-kit.ts"

delete process.env.BASE_URL

const samples = Number(process.argv[2] ?? 500)
const perCustomer = 50

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

/** One chat request: milliseconds to the first delta and to the end of the stream. */
const chatOnce = (url: string, customerId: string, key: string, message: string) =>
  new Promise<{ firstDelta: number; total: number }>((resolve, reject) => {
    const body = JSON.stringify({ message })
    const start = performance.now()
    let firstDelta = -1
    const request = http.request(`${url}/api/chat/${customerId}`, {
      method: "POST",
      agent,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body)
      }
    }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`chat answered ${res.statusCode}`))
      let text = ""
      res.on("data", (chunk: Buffer) => {
        if (firstDelta < 0) {
          text += chunk.toString("utf8")
          if (text.includes("event: delta")) firstDelta = performance.now() - start
        }
      })
      res.on("end", () => {
        if (firstDelta < 0) return reject(new Error("no delta in the stream"))
        resolve({ firstDelta, total: performance.now() - start })
      })
    })
    request.on("error", reject)
    request.end(body)
  })

runScript(Effect.gen(function*() {
  const external = externalDatabaseUrl()
  const databaseUrl = external === undefined ? "pglite://memory" : yield* freshSchemaUrl(external)
  const { context, url } = yield* startApp({
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    llmProvider: "house"
  })
  const customers = Context.get(context, Customers)
  const tenants: Array<readonly [string, string]> = []
  for (let i = 0; i < Math.ceil(samples / perCustomer); i++) {
    const { customer, apiKey } = yield* customers.provision({ email: `chat${i}@bench.test`, status: "active" })
    tenants.push([customer.id, apiKey])
  }
  const run = (n: number) =>
    Effect.promise(async () => {
      const firsts: Array<number> = []
      const totals: Array<number> = []
      for (let i = 0; i < n; i++) {
        const [id, key] = tenants[i % tenants.length]!
        const { firstDelta, total } = await chatOnce(url, id, key, `Write a linkedin post about launch number ${i}`)
        firsts.push(firstDelta)
        totals.push(total)
      }
      return { firsts, totals }
    })
  // Warm-up (JIT, connection, statement caches), within the limit of one customer's minute.
  yield* run(Math.min(20, tenants.length * 2))
  const { firsts, totals } = yield* run(samples - Math.min(20, tenants.length * 2))
  console.log(
    `database: ${external === undefined ? "PGlite (memory)" : "PostgreSQL"}; ${firsts.length} chats, house model`
  )
  console.log(
    `time to first delta: p50 ${percentile(firsts, 50).toFixed(2)} ms, p99 ${percentile(firsts, 99).toFixed(2)} ms`
  )
  console.log(
    `whole stream:        p50 ${percentile(totals, 50).toFixed(2)} ms, p99 ${percentile(totals, 99).toFixed(2)} ms`
  )
  agent.destroy()
}))
