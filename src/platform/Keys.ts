import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import type { Principal } from "../api/Security.ts"
import { AppConfig } from "../Config.ts"
import { generateApiKey, hashApiKey, isWellFormedKey } from "../domain/ApiKeys.ts"
import { InvalidApiKey } from "../domain/Errors.ts"
import type { CustomerStatus, Role } from "../domain/Identity.ts"
import type { CustomerId } from "../domain/Ids.ts"
import { sameDigest, sha256Hex } from "../domain/Secrets.ts"

export interface Authenticated {
  readonly principal: Principal
  readonly status: CustomerStatus
  /** An OAuth access token's resource (its audience); undefined for an API key, which is valid everywhere. */
  readonly audience?: string | undefined
}

/** What an OAuth access token stands for: its grant (the principal's key id), who approved it, the role and the resource. */
export interface TokenGrant {
  readonly grantId: string
  readonly customerId: CustomerId
  readonly memberId: string | null
  /** The API key the person signed in with to approve: the grant lives only while that key does. */
  readonly keyId: string
  readonly role: Role
  readonly resource: string
}

/** How a credential of the OAuth access-token shape is resolved: given by the feature that issues tokens. */
export interface TokenResolver {
  readonly isToken: (credential: string) => boolean
  readonly resolve: (token: string) => Effect.Effect<Option.Option<TokenGrant>>
}

/**
 * OAuth access tokens, resolved by the feature that issues them. The request
 * pipeline asks Keys for every Bearer credential; a credential of the token
 * shape goes to the resolver registered here instead of the key table. A
 * registry rather than a dependency: the platform stands below every feature,
 * so the feature registers its resolver when it is built.
 */
export class AccessTokens extends Context.Service<AccessTokens, {
  readonly register: (resolver: TokenResolver) => Effect.Effect<void>
  readonly current: () => TokenResolver | undefined
}>()("herald/platform/AccessTokens") {
  static readonly layer = Layer.sync(AccessTokens, () => {
    let registered: TokenResolver | undefined
    return AccessTokens.of({
      register: (resolver) => Effect.sync(() => void (registered = resolver)),
      current: () => registered
    })
  })
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
  readonly issue: (customerId: CustomerId, role: Role, memberId: string | null) => Effect.Effect<string>
  /**
   * An owner key revoked by a rotation within the last 24 h that carried
   * `idempotencyKey`: accepted only to replay that rotation's reply.
   */
  readonly revokedByRotation: (key: string, idempotencyKey: string) => Effect.Effect<Option.Option<Principal>>
  /** Revokes the customer's live owner keys, remembering the rotation's idempotency key (in the caller's transaction). */
  readonly revokeOwnerKeys: (customerId: CustomerId, idempotencyKey: string | undefined) => Effect.Effect<void>
  /** Revokes a team member's live keys (in the caller's transaction). */
  readonly revokeMemberKeys: (memberId: string) => Effect.Effect<void>
}>()("herald/platform/Keys") {
  static readonly layer = Layer.effect(
    Keys,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const config = yield* AppConfig
      const tokens = yield* AccessTokens

      // A token is good while its grant is and the key that approved it is live, for an active customer's status check.
      const authenticateToken = Effect.fnUntraced(function*(resolve: TokenResolver["resolve"], token: string) {
        const grant = yield* resolve(token)
        if (Option.isNone(grant)) return yield* new InvalidApiKey()
        const { grantId, customerId, memberId, keyId, role, resource } = grant.value
        const rows = yield* sql<{ status: CustomerStatus }>`
        SELECT c.status FROM api_keys k JOIN customers c ON c.id = k.customer_id
        WHERE k.id = ${keyId} AND k.customer_id = ${customerId} AND k.revoked_at IS NULL`.pipe(Effect.orDie)
        if (rows[0] === undefined) return yield* new InvalidApiKey()
        return {
          principal: { keyId: grantId, customerId, memberId, role },
          status: rows[0].status,
          audience: resource
        } satisfies Authenticated
      })

      const issue = (customerId: CustomerId, role: Role, memberId: string | null) =>
        Effect.gen(function*() {
          const apiKey = generateApiKey(config.apiKeyPrefix)
          yield* sql`INSERT INTO api_keys (id, customer_id, member_id, key_hash, role)
          VALUES (${keyId()}, ${customerId}, ${memberId}, ${hashApiKey(apiKey)}, ${role})`
          return apiKey
        }).pipe(Effect.orDie)

      // On every authenticated request: untraced (docs/design/http-core.md, "What the fast paths cost").
      const authenticate = Effect.fnUntraced(function*(key: string) {
        const resolver = tokens.current()
        if (resolver !== undefined && resolver.isToken(key)) return yield* authenticateToken(resolver.resolve, key)
        if (!isWellFormedKey(config.apiKeyPrefix, key)) return yield* new InvalidApiKey()
        const hash = hashApiKey(key)
        const rows = yield* sql<{
          id: string
          customerId: CustomerId
          memberId: string | null
          role: Role
          keyHash: string
          status: CustomerStatus
        }>`
        SELECT k.id, k.customer_id, k.member_id, k.role, k.key_hash, c.status
        FROM api_keys k JOIN customers c ON c.id = k.customer_id
        WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`.pipe(Effect.orDie)
        const row = Option.fromNullishOr(rows[0])
        if (Option.isNone(row) || !sameDigest(row.value.keyHash, hash)) return yield* new InvalidApiKey()
        const { id, customerId, memberId, role, status } = row.value
        return { principal: { keyId: id, customerId, memberId, role }, status } as Authenticated
      })

      const revokedByRotation = Effect.fnUntraced(function*(key: string, idempotencyKey: string) {
        if (!isWellFormedKey(config.apiKeyPrefix, key)) return Option.none()
        const hash = hashApiKey(key)
        const rows = yield* sql<{ id: string; customerId: CustomerId; keyHash: string }>`
        SELECT id, customer_id, key_hash FROM api_keys
        WHERE key_hash = ${hash} AND member_id IS NULL AND revoked_at > now() - interval '24 hours'
          AND rotation_key_hash = ${sha256Hex(idempotencyKey)}`.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined || !sameDigest(row.keyHash, hash)) return Option.none()
        return Option.some<Principal>({ keyId: row.id, customerId: row.customerId, memberId: null, role: "owner" })
      })

      const byId = Effect.fnUntraced(function*(keyId: string) {
        const rows = yield* sql<
          { id: string; customerId: CustomerId; memberId: string | null; role: Role; status: CustomerStatus }
        >`
        SELECT k.id, k.customer_id, k.member_id, k.role, c.status
        FROM api_keys k JOIN customers c ON c.id = k.customer_id
        WHERE k.id = ${keyId} AND k.revoked_at IS NULL`.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) return yield* new InvalidApiKey()
        return {
          principal: { keyId: row.id, customerId: row.customerId, memberId: row.memberId, role: row.role },
          status: row.status
        }
      })

      const revokeOwnerKeys = (customerId: CustomerId, idempotencyKey: string | undefined) =>
        sql`UPDATE api_keys SET revoked_at = now(),
          rotation_key_hash = ${idempotencyKey === undefined ? null : sha256Hex(idempotencyKey)}
        WHERE customer_id = ${customerId} AND member_id IS NULL AND revoked_at IS NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        )

      const revokeMemberKeys = (memberId: string) =>
        sql`UPDATE api_keys SET revoked_at = now() WHERE member_id = ${memberId} AND revoked_at IS NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        )

      return Keys.of({ authenticate, byId, issue, revokedByRotation, revokeOwnerKeys, revokeMemberKeys })
    })
  )
}
