import { assert, describe, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Context, Effect, Layer } from "effect"
import { type Cluster, findExecutable, startCluster } from "../scripts/support/cluster-kit.ts"
import { externalDatabaseUrl, send } from "./support/harness.ts"
import { adminSecret, provisionAt, sharedDatabase } from "./support/processes.ts"

/**
 * MCP sessions across instances: real processes on one PostgreSQL behind
 * nginx with round-robin, driven by the official SDK client. A session lives
 * in the process that opened it; nginx routes its requests there by the tag
 * that begins its id, including after an instance is added.
 */
const nginxMissing = findExecutable("nginx") === undefined
const noPostgres = externalDatabaseUrl() === undefined
if (nginxMissing) console.warn("cluster-mcp: skipped, nginx is not installed (Debian: apt-get install -y nginx)")

class Shared extends Context.Service<Shared, Cluster>()("test/cluster-mcp/Shared") {}
const SharedLive = Layer.effect(
  Shared,
  Effect.gen(function*() {
    const database = yield* sharedDatabase
    return yield* Effect.acquireRelease(
      Effect.promise(() =>
        startCluster({
          count: 2,
          databaseUrl: database,
          redisUrl: process.env.REDIS_URL,
          env: {
            ADMIN_SECRET: adminSecret,
            LOG_LEVEL: "error",
            RATE_LIMIT_MCP_PER_MIN: "10000",
            RATE_LIMIT_ADMIN_PER_MIN: "1000",
            PG_MAX_CONNECTIONS: "4"
          }
        })
      ),
      (cluster) => Effect.promise(() => cluster.stop())
    )
  })
)

const provisioned = (url: string) =>
  Effect.promise(async () => {
    const owner = await provisionAt(url)
    return { customerId: owner.customerId, key: owner.apiKey }
  })

const connected = (transport: StreamableHTTPClientTransport | SSEClientTransport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "cluster-test", version: "1.0.0" })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** 25 revenue records of 1 through the client, one after the other. */
const record25 = (client: Client, customerId: string) =>
  Effect.promise(async () => {
    for (let i = 0; i < 25; i++) {
      const result = await client.callTool({
        name: "track_revenue",
        arguments: { customerId, amount: 1, currency: "USD" }
      })
      assert.notStrictEqual(result.isError, true, JSON.stringify(result.content))
    }
  })

const revenue = (url: string, owner: { customerId: string; key: string }) =>
  Effect.promise(async () => {
    const reply = await send(url, "GET", `/api/analytics/${owner.customerId}`, {
      headers: { authorization: `Bearer ${owner.key}` }
    })
    assert.strictEqual(reply.status, 200)
    return reply.json.totals.revenue as number
  })

const suite = nginxMissing || noPostgres ? describe.skip : describe

suite("MCP sessions behind nginx with round-robin (needs PostgreSQL and nginx)", () => {
  layer(SharedLive, { timeout: 300_000, excludeTestServices: true })("several instances", (it) => {
    it.effect("Streamable HTTP and SSE: initialize, list tools, 50 tool calls each while an instance is added; every call lands once", () =>
      Effect.gen(function*() {
        const cluster = yield* Shared
        const viaHttp = yield* provisioned(cluster.url)
        const viaSse = yield* provisioned(cluster.url)

        const httpTransport = new StreamableHTTPClientTransport(new URL(`${cluster.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${viaHttp.key}` } }
        })
        const http = yield* connected(httpTransport)
        const sse = yield* connected(new SSEClientTransport(new URL(`${cluster.url}/mcp/sse?token=${viaSse.key}`)))
        // The id names its instance: what nginx routes on.
        assert.match(httpTransport.sessionId ?? "", /^h[12]\.[0-9a-f-]{36}$/)

        for (const client of [http, sse]) {
          const listed = yield* Effect.promise(() => client.listTools())
          assert.strictEqual(listed.tools.length, 12)
        }
        yield* record25(http, viaHttp.customerId)
        yield* record25(sse, viaSse.customerId)

        // A third instance joins; the open sessions keep their instance.
        const added = yield* Effect.promise(() => cluster.add())
        assert.strictEqual(added.tag, "h3")
        yield* record25(http, viaHttp.customerId)
        yield* record25(sse, viaSse.customerId)

        assert.strictEqual(yield* revenue(cluster.url, viaHttp), 50)
        assert.strictEqual(yield* revenue(cluster.url, viaSse), 50)
      }))

    it.effect("round-robin spreads new sessions over the instances", () =>
      Effect.gen(function*() {
        const cluster = yield* Shared
        const owner = yield* provisioned(cluster.url)
        const tags = new Set<string>()
        for (let i = 0; i < cluster.members.length; i++) {
          const transport = new StreamableHTTPClientTransport(new URL(`${cluster.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${owner.key}` } }
          })
          const client = yield* connected(transport)
          tags.add((transport.sessionId ?? "").split(".")[0]!)
          yield* Effect.promise(() => client.listTools())
        }
        assert.isAbove(tags.size, 1, `sessions all opened on ${[...tags].join(", ")}`)
      }))
  })
})
