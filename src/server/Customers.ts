import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import type { Principal } from "../api/Security.ts"
import { AppConfig } from "../Config.ts"
import { generateApiKey, hashApiKey, isWellFormedKey } from "../domain/ApiKeys.ts"
import { InvalidApiKey, NotFound } from "../domain/Errors.ts"
import type { Customer, CustomerStatus, Role } from "../domain/Identity.ts"
import { safeEqual } from "../domain/Secrets.ts"
import { Events } from "./Events.ts"

interface CustomerRow {
  readonly id: string
  readonly email: string
  readonly plan: "pro"
  readonly status: CustomerStatus
  readonly brandName: string | null
  readonly createdAt: Date
  readonly trialEndsAt: Date | null
}

export interface NewCustomer {
  readonly email: string
  readonly brandName?: string | undefined
  readonly status?: CustomerStatus | undefined
  readonly trialEndsAt?: Date | undefined
  readonly id?: string | undefined
}

export interface Authenticated {
  readonly principal: Principal
  readonly status: CustomerStatus
}

const keyId = () => `key_${randomUUID().replaceAll("-", "").slice(0, 24)}`

/** Customers and their keys. Keys exist in plaintext only in the response that issues them. */
export class Customers extends Context.Service<Customers, {
  readonly provision: (input: NewCustomer) => Effect.Effect<{ readonly customer: Customer; readonly apiKey: string }>
  readonly get: (customerId: string) => Effect.Effect<Customer, NotFound>
  readonly rotateKey: (customerId: string) => Effect.Effect<{ readonly apiKey: string; readonly mcpEndpoint: string }>
  readonly authenticate: (key: string) => Effect.Effect<Authenticated, InvalidApiKey>
  /** Inserts a key row for `customerId` and returns the plaintext (for team members). */
  readonly issueKey: (customerId: string, role: Role, memberId: string | null) => Effect.Effect<string>
  readonly mcpEndpointFor: (key: string) => string
}>()("herald/server/Customers") {
  static readonly layer = Layer.effect(Customers, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* Events
    const config = yield* AppConfig

    const mcpEndpointFor = (key: string) => `${config.baseUrl}/mcp/sse?token=${key}`

    const toCustomer = (row: CustomerRow): Customer => ({
      id: row.id,
      email: row.email,
      plan: "pro",
      status: row.status,
      brandName: row.brandName,
      mcpEndpoint: mcpEndpointFor("YOUR_API_KEY"),
      createdAt: new Date(row.createdAt).toISOString(),
      trialEndsAt: row.trialEndsAt === null ? null : new Date(row.trialEndsAt).toISOString()
    })

    const issueKey = (customerId: string, role: Role, memberId: string | null) =>
      Effect.gen(function*() {
        const apiKey = generateApiKey(config.apiKeyPrefix)
        yield* sql`INSERT INTO api_keys (id, customer_id, member_id, key_hash, role)
          VALUES (${keyId()}, ${customerId}, ${memberId}, ${hashApiKey(apiKey)}, ${role})`
        return apiKey
      }).pipe(Effect.orDie)

    const provision = Effect.fn("Customers.provision")(function*(input: NewCustomer) {
      const id = input.id ?? randomUUID()
      const status = input.status ?? "onboarding"
      return yield* Effect.gen(function*() {
        const rows = yield* sql<CustomerRow>`
          INSERT INTO customers (id, email, status, brand_name, trial_ends_at)
          VALUES (${id}, ${input.email}, ${status}, ${input.brandName ?? null}, ${input.trialEndsAt ?? null})
          RETURNING id, email, plan, status, brand_name, created_at, trial_ends_at`
        const apiKey = yield* issueKey(id, "owner", null)
        yield* events.record(id, "customer.status_changed", { from: null, to: status })
        return { customer: toCustomer(rows[0]), apiKey }
      }).pipe(sql.withTransaction, Effect.orDie)
    })

    // A read on the GET path: untraced (README, "Benchmarks").
    const get = Effect.fnUntraced(function*(customerId: string) {
      const rows = yield* sql<CustomerRow>`
        SELECT id, email, plan, status, brand_name, created_at, trial_ends_at
        FROM customers WHERE id = ${customerId}`.pipe(Effect.orDie)
      if (rows.length === 0) return yield* new NotFound({ error: "Customer not found" })
      return toCustomer(rows[0])
    })

    const rotateKey = Effect.fn("Customers.rotateKey")(function*(customerId: string) {
      return yield* Effect.gen(function*() {
        // The row lock serialises concurrent rotations of one customer.
        yield* sql`SELECT id FROM customers WHERE id = ${customerId} FOR UPDATE`
        yield* sql`UPDATE api_keys SET revoked_at = now()
          WHERE customer_id = ${customerId} AND member_id IS NULL AND revoked_at IS NULL`
        const apiKey = yield* issueKey(customerId, "owner", null)
        yield* events.record(customerId, "key.rotated", {})
        return { apiKey, mcpEndpoint: mcpEndpointFor(apiKey) }
      }).pipe(sql.withTransaction, Effect.orDie)
    })

    const authenticate = Effect.fnUntraced(function*(key: string) {
      if (!isWellFormedKey(config.apiKeyPrefix, key)) return yield* new InvalidApiKey()
      const hash = hashApiKey(key)
      const rows = yield* sql<{
        id: string
        customerId: string
        memberId: string | null
        role: Role
        keyHash: string
        status: CustomerStatus
      }>`
        SELECT k.id, k.customer_id, k.member_id, k.role, k.key_hash, c.status
        FROM api_keys k JOIN customers c ON c.id = k.customer_id
        WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`.pipe(Effect.orDie)
      const row = Option.fromNullishOr(rows[0])
      if (Option.isNone(row) || !safeEqual(row.value.keyHash, hash)) return yield* new InvalidApiKey()
      const { id, customerId, memberId, role, status } = row.value
      return { principal: { keyId: id, customerId, memberId, role }, status }
    })

    return Customers.of({ provision, get, rotateKey, authenticate, issueKey, mcpEndpointFor })
  }))
}
