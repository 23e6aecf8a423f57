/**
 * The peers `npm run bench:peer` measures Herald against, each run as a
 * process of its own: `node scripts/support/peer-servers.ts fastify|bare`
 * with PORT (and for fastify DATABASE_URL, API_KEY_PREFIX, BASE_URL). Each
 * does by hand what Herald's route does, the way a user of that stack would
 * write it, and answers the same JSON fields.
 *
 * - `fastify`: Fastify 5 with postgres.js, `GET /api/customer/:customerId`
 *   (Bearer parse, key shape, SHA-256, key lookup joined to the customer's
 *   status, status gate, tenant check, customer select, JSON) and
 *   `GET /api/health`.
 * - `bare`: `node:http` answering the liveness body of `GET /api/health`.
 */
import { createServer } from "node:http"
import { hashApiKey, isWellFormedKey, parseBearer } from "../../src/domain/ApiKeys.ts"

const port = Number(process.env.PORT ?? 0)
const healthBody = () => JSON.stringify({ service: "herald", status: "ok", timestamp: new Date().toISOString() })

const bare = () => {
  const server = createServer((_request, response) => {
    const body = healthBody()
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  })
  server.listen(port, "127.0.0.1")
}

const fastify = async () => {
  const { default: Fastify } = await import("fastify")
  const { default: postgres } = await import("postgres")
  const sql = postgres(process.env.DATABASE_URL ?? "", { max: Number(process.env.PG_MAX_CONNECTIONS ?? 10) })
  const prefix = process.env.API_KEY_PREFIX ?? ""
  const baseUrl = process.env.BASE_URL ?? ""
  const app = Fastify({ logger: false })
  app.get("/api/health", async () => ({ service: "herald", status: "ok", timestamp: new Date().toISOString() }))
  app.get<{ Params: { customerId: string } }>("/api/customer/:customerId", async (request, reply) => {
    const parsed = parseBearer(request.headers.authorization)
    if (parsed._tag !== "Key" || !isWellFormedKey(prefix, parsed.key)) {
      return reply.code(401).send({ error: "Invalid API key" })
    }
    const hash = hashApiKey(parsed.key)
    const [key] = await sql<Array<{ id: string; customer_id: string; role: string; status: string }>>`
      SELECT k.id, k.customer_id, k.member_id, k.role, k.key_hash, c.status
      FROM api_keys k JOIN customers c ON c.id = k.customer_id
      WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`
    if (key === undefined) return reply.code(401).send({ error: "Invalid API key" })
    if (key.status !== "active" && key.status !== "onboarding") {
      return reply.code(401).send({ error: "Account inactive" })
    }
    const customerId = request.params.customerId.toLowerCase()
    if (key.customer_id !== customerId) return reply.code(403).send({ error: "Forbidden" })
    const [row] = await sql<
      Array<
        {
          id: string
          email: string
          status: string
          brand_name: string | null
          created_at: Date
          trial_ends_at: Date | null
        }
      >
    >`
      SELECT id, email, plan, status, brand_name, created_at, trial_ends_at
      FROM customers WHERE id = ${customerId}`
    if (row === undefined) return reply.code(404).send({ error: "Customer not found" })
    return {
      id: row.id,
      email: row.email,
      plan: "pro",
      status: row.status,
      brandName: row.brand_name,
      mcpEndpoint: `${baseUrl}/mcp/sse?token=YOUR_API_KEY`,
      createdAt: row.created_at.toISOString(),
      trialEndsAt: row.trial_ends_at === null ? null : row.trial_ends_at.toISOString()
    }
  })
  await app.listen({ port, host: "127.0.0.1" })
}

const which = process.argv[2]
if (which === "bare") bare()
else if (which === "fastify") await fastify()
else {
  console.error("usage: node scripts/support/peer-servers.ts fastify|bare")
  process.exit(2)
}
