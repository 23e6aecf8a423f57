import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../Config.ts"
import { Conflict, NotFound } from "../../domain/Errors.ts"
import type { Actor, Customer, CustomerStatus, Role } from "../../domain/Identity.ts"
import { type CustomerId, newCustomerId } from "../../domain/Ids.ts"
import { Events } from "../../platform/Events.ts"
import { Keys } from "../../platform/Keys.ts"

interface CustomerRow {
  readonly id: CustomerId
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
  readonly id?: CustomerId | undefined
  /** Who provisions it, for the event log (default: derived from the request, else system). */
  readonly actor?: Actor | undefined
}

export interface RotateOptions {
  /**
   * The request's `Idempotency-Key`: remembered (as SHA-256) on the revoked
   * key, so a replay of this exact rotation with the old key is accepted.
   */
  readonly idempotencyKey?: string | undefined
  readonly actor?: Actor | undefined
}

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const operator: Actor = { type: "admin", id: null }

/** Customers and their keys. Keys exist in plaintext only in the response that issues them. */
export class Customers extends Context.Service<Customers, {
  readonly provision: (input: NewCustomer) => Effect.Effect<{ readonly customer: Customer; readonly apiKey: string }>
  readonly get: (customerId: CustomerId) => Effect.Effect<Customer, NotFound>
  /** The status of each of these customers (an id that names no customer is left out). */
  readonly statuses: (customerIds: ReadonlyArray<CustomerId>) => Effect.Effect<ReadonlyMap<CustomerId, CustomerStatus>>
  /** Operator provisioning: an email held by a customer that is not cancelled is 409 (case-insensitive). */
  readonly provisionUnique: (
    input: NewCustomer
  ) => Effect.Effect<{ readonly customer: Customer; readonly apiKey: string }, Conflict>
  /** Customers whose email is `email`, compared case-insensitively, oldest first. */
  readonly findByEmail: (email: string) => Effect.Effect<ReadonlyArray<Customer>>
  readonly rotateKey: (
    customerId: CustomerId,
    options?: RotateOptions
  ) => Effect.Effect<{ readonly apiKey: string; readonly mcpEndpoint: string }>
  /** Operator recovery: a new owner key for an existing customer (404 when there is none). */
  readonly recoverKey: (
    customerId: CustomerId
  ) => Effect.Effect<{ readonly apiKey: string; readonly mcpEndpoint: string }, NotFound>
  /** Inserts a key row for `customerId` and returns the plaintext (for team members). */
  readonly issueKey: (customerId: CustomerId, role: Role, memberId: string | null) => Effect.Effect<string>
  readonly mcpEndpointFor: (key: string) => string
  /**
   * Moves the status under the customer's row lock when `decide` names a new
   * one, writing `customer.status_changed` {from, to, ...data} in the same
   * transaction (joins the caller's). Returns the move, or undefined when
   * `decide` keeps the status.
   */
  /**
   * Locks the customer's row until the caller's transaction ends, so that
   * changes another feature counts or checks per customer are serialised
   * (`update`, the default, also holds off key-sharing locks such as new
   * rows referencing the customer; `noKeyUpdate` does not). False when there
   * is no such customer.
   */
  readonly lock: (customerId: CustomerId, strength?: "update" | "noKeyUpdate") => Effect.Effect<boolean>
  /** Customers whose free trial has ended and who are not cancelled: the trial sweep's candidates. */
  readonly endedTrials: Effect.Effect<ReadonlyArray<CustomerId>>
  /**
   * Records the confirmed brand name and moves an onboarding customer to
   * active, under the row lock, in the caller's transaction; answers the
   * status before the change.
   */
  readonly confirmBrand: (customerId: CustomerId, brandName: string) => Effect.Effect<CustomerStatus>
  readonly changeStatus: (
    customerId: CustomerId,
    decide: (current: CustomerStatus) => CustomerStatus | undefined,
    data?: Record<string, unknown>
  ) => Effect.Effect<{ readonly from: CustomerStatus; readonly to: CustomerStatus } | undefined, NotFound>
}>()("herald/features/customers/Customers") {
  static readonly layer = Layer.effect(
    Customers,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const events = yield* Events
      const config = yield* AppConfig
      const keys = yield* Keys

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

      const issueKey = keys.issue

      const insertCustomer = (id: CustomerId, status: CustomerStatus, input: NewCustomer) =>
        Effect.gen(function*() {
          const rows = yield* sql<CustomerRow>`
          INSERT INTO customers (id, email, status, brand_name, trial_ends_at)
          VALUES (${id}, ${input.email}, ${status}, ${input.brandName ?? null}, ${input.trialEndsAt ?? null})
          RETURNING id, email, plan, status, brand_name, created_at, trial_ends_at`
          const apiKey = yield* issueKey(id, "owner", null)
          yield* events.record(id, "customer.status_changed", { from: null, to: status }, input.actor)
          return { customer: toCustomer(rows[0]), apiKey }
        })

      const provision = Effect.fn("Customers.provision")(function*(input: NewCustomer) {
        const id = input.id ?? newCustomerId()
        const status = input.status ?? "onboarding"
        return yield* insertCustomer(id, status, input).pipe(sql.withTransaction, Effect.orDie)
      })

      const provisionUnique = Effect.fn("Customers.provisionUnique")(function*(input: NewCustomer) {
        const id = input.id ?? newCustomerId()
        const status = input.status ?? "onboarding"
        const created = yield* Effect.gen(function*() {
          // One transaction per address at a time: two concurrent provisions of one email cannot both pass the check.
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`customer-email:${input.email.toLowerCase()}`}))`
          const taken = yield* sql`SELECT id FROM customers
          WHERE lower(email) = ${input.email.toLowerCase()} AND status <> 'cancelled' LIMIT 1`
          if (taken.length > 0) return undefined
          return yield* insertCustomer(id, status, { ...input, actor: input.actor ?? operator })
        }).pipe(sql.withTransaction, Effect.orDie)
        if (created === undefined) {
          return yield* new Conflict({ error: "A customer with this email already exists and is not cancelled" })
        }
        return created
      })

      const findByEmail = Effect.fn("Customers.findByEmail")(function*(email: string) {
        const rows = yield* sql<CustomerRow>`
        SELECT id, email, plan, status, brand_name, created_at, trial_ends_at
        FROM customers WHERE lower(email) = ${email.toLowerCase()} ORDER BY created_at, id LIMIT 100`.pipe(Effect.orDie)
        return rows.map(toCustomer)
      })

      // A read on the GET path: untraced (docs/design/http-core.md, "What the fast paths cost").
      const get = Effect.fnUntraced(function*(customerId: CustomerId) {
        const rows = yield* sql<CustomerRow>`
        SELECT id, email, plan, status, brand_name, created_at, trial_ends_at
        FROM customers WHERE id = ${customerId}`.pipe(Effect.orDie)
        if (rows.length === 0) return yield* new NotFound({ error: "Customer not found" })
        return toCustomer(rows[0])
      })

      const rotate = (customerId: CustomerId, options: RotateOptions) =>
        Effect.gen(function*() {
          // The row lock serialises concurrent rotations of one customer.
          const found = yield* sql`SELECT id FROM customers WHERE id = ${customerId} FOR UPDATE`
          if (found.length === 0) return undefined
          yield* keys.revokeOwnerKeys(customerId, options.idempotencyKey)
          const apiKey = yield* issueKey(customerId, "owner", null)
          yield* events.record(customerId, "key.rotated", {}, options.actor)
          return { apiKey, mcpEndpoint: mcpEndpointFor(apiKey) }
        }).pipe(sql.withTransaction, Effect.orDie)

      const rotateKey = Effect.fn("Customers.rotateKey")(
        function*(customerId: CustomerId, options: RotateOptions = {}) {
          const rotated = yield* rotate(customerId, options)
          // The caller authenticated as this customer, so it exists.
          if (rotated === undefined) return yield* Effect.die("rotated a customer that does not exist")
          return rotated
        }
      )

      const recoverKey = Effect.fn("Customers.recoverKey")(function*(customerId: CustomerId) {
        // An id no row could hold names nothing: 404, not a database type error.
        if (!uuidShape.test(customerId)) return yield* new NotFound({ error: "Customer not found" })
        const rotated = yield* rotate(customerId, { actor: operator })
        if (rotated === undefined) return yield* new NotFound({ error: "Customer not found" })
        return rotated
      })

      const changeStatus = Effect.fn("Customers.changeStatus")(function*(
        customerId: CustomerId,
        decide: (current: CustomerStatus) => CustomerStatus | undefined,
        data: Record<string, unknown> = {}
      ) {
        return yield* Effect.gen(function*() {
          const rows = yield* sql<
            { status: CustomerStatus }
          >`SELECT status FROM customers WHERE id = ${customerId} FOR UPDATE`
          if (rows.length === 0) return yield* new NotFound({ error: "Customer not found" })
          const from = rows[0].status
          const to = decide(from)
          if (to === undefined || to === from) return undefined
          yield* sql`UPDATE customers SET status = ${to} WHERE id = ${customerId}`
          yield* events.record(customerId, "customer.status_changed", { ...data, from, to })
          return { from, to }
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      })

      const statuses = (customerIds: ReadonlyArray<CustomerId>) =>
        customerIds.length === 0
          ? Effect.succeed(new Map<CustomerId, CustomerStatus>())
          : sql<
            { id: CustomerId; status: CustomerStatus }
          >`SELECT id, status FROM customers WHERE id = ANY (${customerIds}::uuid[])`.pipe(
            Effect.map((rows) => new Map(rows.map((row) => [row.id, row.status]))),
            Effect.orDie
          )

      const lock = (customerId: CustomerId, strength: "update" | "noKeyUpdate" = "update") =>
        Effect.map(
          strength === "update"
            ? sql`SELECT id FROM customers WHERE id = ${customerId} FOR UPDATE`
            : sql`SELECT id FROM customers WHERE id = ${customerId} FOR NO KEY UPDATE`,
          (rows) => rows.length > 0
        ).pipe(Effect.orDie, Effect.withSpan("Customers.lock"))

      // Walks the partial index on trial_ends_at (only customers with a trial that is not cancelled).
      const endedTrials = sql<{ id: CustomerId }>`SELECT id FROM customers
      WHERE trial_ends_at IS NOT NULL AND trial_ends_at <= now() AND status <> 'cancelled'`.pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        Effect.orDie,
        Effect.withSpan("Customers.endedTrials")
      )

      const confirmBrand = (customerId: CustomerId, brandName: string) =>
        Effect.gen(function*() {
          const [current] = yield* sql<
            { status: CustomerStatus }
          >`SELECT status FROM customers WHERE id = ${customerId} FOR UPDATE`
          const status: CustomerStatus = current.status === "onboarding" ? "active" : current.status
          yield* sql`UPDATE customers SET status = ${status}, brand_name = ${brandName} WHERE id = ${customerId}`
          return current.status
        }).pipe(Effect.orDie)

      return Customers.of({
        confirmBrand,
        provision,
        provisionUnique,
        findByEmail,
        get,
        rotateKey,
        recoverKey,
        issueKey,
        mcpEndpointFor,
        lock,
        statuses,
        endedTrials,
        changeStatus
      })
    })
  )
}
