import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import type { Principal } from "../api/Security.ts"
import { AppConfig } from "../Config.ts"
import { generateApiKey, hashApiKey, isWellFormedKey } from "../domain/ApiKeys.ts"
import { InvalidApiKey } from "../domain/Errors.ts"
import type { CustomerStatus, Role } from "../domain/Identity.ts"
import { safeEqual, sha256Hex } from "../domain/Secrets.ts"

export interface Authenticated {
  readonly principal: Principal
  readonly status: CustomerStatus
}

const keyId = () => `key_${randomUUID().replaceAll("-", "").slice(0, 24)}`

/**
 * API keys: issued in plaintext once, stored only as SHA-256, looked up by
 * digest and compared in constant time. The request pipeline authenticates
 * through this service; the customers and team features issue through it.
 */
export class Keys extends Context.Service<Keys, {
  readonly authenticate: (key: string) => Effect.Effect<Authenticated, InvalidApiKey>
  /** The principal of a live key by its id (a dashboard session keeps the id, never the key). */
  readonly byId: (keyId: string) => Effect.Effect<Authenticated, InvalidApiKey>
  /** Inserts a key row for `customerId` and returns the plaintext. */
  readonly issue: (customerId: string, role: Role, memberId: string | null) => Effect.Effect<string>
  /**
   * An owner key revoked by a rotation within the last 24 h that carried
   * `idempotencyKey`: accepted only to replay that rotation's reply.
   */
  readonly revokedByRotation: (key: string, idempotencyKey: string) => Effect.Effect<Option.Option<Principal>>
  /** Revokes the customer's live owner keys, remembering the rotation's idempotency key (in the caller's transaction). */
  readonly revokeOwnerKeys: (customerId: string, idempotencyKey: string | undefined) => Effect.Effect<void>
  /** Revokes a team member's live keys (in the caller's transaction). */
  readonly revokeMemberKeys: (memberId: string) => Effect.Effect<void>
}>()("herald/platform/Keys") {
  static readonly layer = Layer.effect(Keys, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig

    const issue = (customerId: string, role: Role, memberId: string | null) =>
      Effect.gen(function*() {
        const apiKey = generateApiKey(config.apiKeyPrefix)
        yield* sql`INSERT INTO api_keys (id, customer_id, member_id, key_hash, role)
          VALUES (${keyId()}, ${customerId}, ${memberId}, ${hashApiKey(apiKey)}, ${role})`
        return apiKey
      }).pipe(Effect.orDie)

    // On every authenticated request: untraced (docs/design/http-core.md, "What the fast paths cost").
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

    const revokedByRotation = Effect.fnUntraced(function*(key: string, idempotencyKey: string) {
      if (!isWellFormedKey(config.apiKeyPrefix, key)) return Option.none()
      const hash = hashApiKey(key)
      const rows = yield* sql<{ id: string; customerId: string; keyHash: string }>`
        SELECT id, customer_id, key_hash FROM api_keys
        WHERE key_hash = ${hash} AND member_id IS NULL AND revoked_at > now() - interval '24 hours'
          AND rotation_key_hash = ${sha256Hex(idempotencyKey)}`.pipe(Effect.orDie)
      const row = rows[0]
      if (row === undefined || !safeEqual(row.keyHash, hash)) return Option.none()
      return Option.some<Principal>({ keyId: row.id, customerId: row.customerId, memberId: null, role: "owner" })
    })


    const byId = Effect.fnUntraced(function*(keyId: string) {
      const rows = yield* sql<{ id: string; customerId: string; memberId: string | null; role: Role; status: CustomerStatus }>`
        SELECT k.id, k.customer_id, k.member_id, k.role, c.status
        FROM api_keys k JOIN customers c ON c.id = k.customer_id
        WHERE k.id = ${keyId} AND k.revoked_at IS NULL`.pipe(Effect.orDie)
      const row = rows[0]
      if (row === undefined) return yield* new InvalidApiKey()
      return { principal: { keyId: row.id, customerId: row.customerId, memberId: row.memberId, role: row.role }, status: row.status }
    })

    const revokeOwnerKeys = (customerId: string, idempotencyKey: string | undefined) =>
      sql`UPDATE api_keys SET revoked_at = now(),
          rotation_key_hash = ${idempotencyKey === undefined ? null : sha256Hex(idempotencyKey)}
        WHERE customer_id = ${customerId} AND member_id IS NULL AND revoked_at IS NULL`.pipe(Effect.asVoid, Effect.orDie)

    const revokeMemberKeys = (memberId: string) =>
      sql`UPDATE api_keys SET revoked_at = now() WHERE member_id = ${memberId} AND revoked_at IS NULL`.pipe(Effect.asVoid, Effect.orDie)

    return Keys.of({ authenticate, byId, issue, revokedByRotation, revokeOwnerKeys, revokeMemberKeys })
  }))
}
