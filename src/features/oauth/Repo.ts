import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Role } from "../../domain/Identity.ts"
import type { CustomerId } from "../../domain/Ids.ts"

export interface ClientRow {
  readonly clientId: string
  readonly kind: "registered" | "metadata_document"
  readonly clientName: string | null
  readonly clientUri: string | null
  readonly redirectUris: ReadonlyArray<string>
  /** Whether a metadata document's kept copy is still fresh (always true for a registered client). */
  readonly fresh: boolean
}

export interface Approval {
  readonly customerId: CustomerId
  readonly memberId: string | null
  readonly keyId: string
  readonly role: Role
}

export interface CodeRow extends Approval {
  readonly clientId: string
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly resource: string
  readonly expired: boolean
  readonly grantId: string | null
}

export interface GrantRow extends Approval {
  readonly id: string
  readonly clientId: string
  readonly clientName: string
  readonly resource: string
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
}

export interface TokenRow {
  readonly tokenHash: string
  readonly grantId: string
  readonly clientId: string
  readonly customerId: CustomerId
  readonly memberId: string | null
  readonly keyId: string
  readonly role: Role
  readonly resource: string
  /** Expired, spent (refresh) or of a revoked grant. */
  readonly live: boolean
  readonly spent: boolean
}

const parseUris = (value: unknown): ReadonlyArray<string> =>
  (typeof value === "string" ? JSON.parse(value) : value) as ReadonlyArray<string>

/** The OAuth tables (migration oauth_grants). Codes and tokens are found only by their SHA-256 digest. */
export class OAuthRepo extends Context.Service<OAuthRepo, {
  readonly findClient: (clientId: string) => Effect.Effect<ClientRow | undefined>
  readonly saveClient: (
    client: Omit<ClientRow, "fresh">,
    keepSeconds: number | null
  ) => Effect.Effect<void>
  readonly insertCode: (
    codeHash: string,
    code: Omit<CodeRow, "expired" | "grantId">,
    lifetimeSeconds: number
  ) => Effect.Effect<void>
  /** Marks the code spent and answers it; `firstUse` false when it was spent before. Undefined: no such code. */
  readonly spendCode: (
    codeHash: string
  ) => Effect.Effect<{ readonly code: CodeRow; readonly firstUse: boolean } | undefined>
  /** A grant with its first tokens, and the code that led to it (in one transaction). */
  readonly createGrant: (
    grant: Omit<GrantRow, "createdAt" | "lastUsedAt">,
    codeHash: string,
    tokens: ReadonlyArray<
      { readonly hash: string; readonly kind: "access" | "refresh"; readonly lifetimeSeconds: number }
    >
  ) => Effect.Effect<void>
  readonly findToken: (tokenHash: string, kind: "access" | "refresh") => Effect.Effect<TokenRow | undefined>
  /** Spends a live refresh token and adds the grant's next tokens, in one transaction; false when someone spent it first. */
  readonly rotate: (
    refreshHash: string,
    grantId: string,
    tokens: ReadonlyArray<
      { readonly hash: string; readonly kind: "access" | "refresh"; readonly lifetimeSeconds: number }
    >
  ) => Effect.Effect<boolean>
  readonly revokeGrant: (grantId: string) => Effect.Effect<void>
  /** Revokes a customer's grant by id; false when it names none of theirs (or is revoked already). */
  readonly revokeCustomerGrant: (
    customerId: CustomerId,
    grantId: string,
    memberId: string | undefined
  ) => Effect.Effect<boolean>
  /** Grants that still have a live refresh token, newest first. */
  readonly listGrants: (customerId: CustomerId, limit: number) => Effect.Effect<ReadonlyArray<GrantRow>>
  /**
   * Deletes up to `limit` codes that are over, oldest first, and answers how
   * many: a code never exchanged for a grant as soon as it has expired (the
   * person's approval was abandoned); an exchanged one a day after, until
   * when a replay of it still revokes the grant it bought.
   */
  readonly sweepCodes: (limit: number) => Effect.Effect<number>
}>()("herald/features/oauth/OAuthRepo") {
  static readonly layer = Layer.effect(
    OAuthRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const insertTokens = (
        grantId: string,
        tokens: ReadonlyArray<
          { readonly hash: string; readonly kind: "access" | "refresh"; readonly lifetimeSeconds: number }
        >
      ) =>
        Effect.forEach(tokens, (token) =>
          sql`INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at)
          VALUES (${token.hash}, ${grantId}, ${token.kind}, now() + make_interval(secs => ${token.lifetimeSeconds}))`, {
          discard: true
        })

      return OAuthRepo.of({
        findClient: (clientId) =>
          sql<
            {
              clientId: string
              kind: ClientRow["kind"]
              clientName: string | null
              clientUri: string | null
              redirectUris: unknown
              fresh: boolean
            }
          >`
          SELECT client_id, kind, client_name, client_uri, redirect_uris, (expires_at IS NULL OR expires_at > now()) AS fresh
          FROM oauth_clients WHERE client_id = ${clientId}`.pipe(
            Effect.map((rows) =>
              rows[0] === undefined ? undefined : { ...rows[0], redirectUris: parseUris(rows[0].redirectUris) }
            ),
            Effect.orDie
          ),
        saveClient: (client, keepSeconds) =>
          sql`INSERT INTO oauth_clients (client_id, kind, client_name, client_uri, redirect_uris, expires_at)
          VALUES (${client.clientId}, ${client.kind}, ${client.clientName}, ${client.clientUri}, ${
            JSON.stringify(client.redirectUris)
          }::jsonb,
            ${keepSeconds === null ? null : sql`now() + make_interval(secs => ${keepSeconds})`})
          ON CONFLICT (client_id) DO UPDATE SET client_name = EXCLUDED.client_name, client_uri = EXCLUDED.client_uri,
            redirect_uris = EXCLUDED.redirect_uris, expires_at = EXCLUDED.expires_at`.pipe(Effect.asVoid, Effect.orDie),
        insertCode: (codeHash, code, lifetimeSeconds) =>
          sql`INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, resource, customer_id, member_id, key_id, role, expires_at)
          VALUES (${codeHash}, ${code.clientId}, ${code.redirectUri}, ${code.codeChallenge}, ${code.resource}, ${code.customerId},
            ${code.memberId}, ${code.keyId}, ${code.role}, now() + make_interval(secs => ${lifetimeSeconds}))`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        spendCode: (codeHash) =>
          Effect.gen(function*() {
            const columns = sql.unsafe(
              `client_id, redirect_uri, code_challenge, resource, customer_id, member_id, key_id, role,
            expires_at <= now() AS expired, grant_id`
            )
            const first = yield* sql<CodeRow>`UPDATE oauth_codes SET used_at = now()
            WHERE code_hash = ${codeHash} AND used_at IS NULL RETURNING ${columns}`
            if (first[0] !== undefined) return { code: first[0], firstUse: true }
            const again = yield* sql<CodeRow>`SELECT ${columns} FROM oauth_codes WHERE code_hash = ${codeHash}`
            return again[0] === undefined ? undefined : { code: again[0], firstUse: false }
          }).pipe(Effect.orDie),
        createGrant: (grant, codeHash, tokens) =>
          Effect.gen(function*() {
            yield* sql`INSERT INTO oauth_grants (id, customer_id, member_id, key_id, client_id, client_name, role, resource, last_used_at)
            VALUES (${grant.id}, ${grant.customerId}, ${grant.memberId}, ${grant.keyId}, ${grant.clientId}, ${grant.clientName},
              ${grant.role}, ${grant.resource}, now())`
            yield* sql`UPDATE oauth_codes SET grant_id = ${grant.id} WHERE code_hash = ${codeHash}`
            yield* insertTokens(grant.id, tokens)
          }).pipe(sql.withTransaction, Effect.asVoid, Effect.orDie),
        findToken: (tokenHash, kind) =>
          sql<
            TokenRow
          >`SELECT t.token_hash, g.id AS grant_id, g.client_id, g.customer_id, g.member_id, g.key_id, g.role, g.resource,
            (t.expires_at > now() AND g.revoked_at IS NULL AND t.used_at IS NULL) AS live, (t.used_at IS NOT NULL) AS spent
          FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
          WHERE t.token_hash = ${tokenHash} AND t.kind = ${kind}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie),
        rotate: (refreshHash, grantId, tokens) =>
          Effect.gen(function*() {
            const spent = yield* sql`UPDATE oauth_tokens SET used_at = now()
            WHERE token_hash = ${refreshHash} AND kind = 'refresh' AND used_at IS NULL AND expires_at > now() RETURNING token_hash`
            if (spent.length === 0) return false
            yield* sql`DELETE FROM oauth_tokens WHERE grant_id = ${grantId} AND expires_at < now()`
            yield* insertTokens(grantId, tokens)
            yield* sql`UPDATE oauth_grants SET last_used_at = now() WHERE id = ${grantId}`
            return true
          }).pipe(sql.withTransaction, Effect.orDie),
        revokeGrant: (grantId) =>
          Effect.gen(function*() {
            yield* sql`UPDATE oauth_grants SET revoked_at = now() WHERE id = ${grantId} AND revoked_at IS NULL`
            // A revoked grant's tokens can never be good again: nothing to keep them for.
            yield* sql`DELETE FROM oauth_tokens WHERE grant_id = ${grantId}`
          }).pipe(sql.withTransaction, Effect.asVoid, Effect.orDie),
        revokeCustomerGrant: (customerId, grantId, memberId) =>
          Effect.gen(function*() {
            const rows = yield* (memberId === undefined
              ? sql`UPDATE oauth_grants SET revoked_at = now()
                WHERE id = ${grantId} AND customer_id = ${customerId} AND revoked_at IS NULL RETURNING id`
              : sql`UPDATE oauth_grants SET revoked_at = now()
                WHERE id = ${grantId} AND customer_id = ${customerId} AND member_id = ${memberId} AND revoked_at IS NULL RETURNING id`)
            if (rows.length === 0) return false
            yield* sql`DELETE FROM oauth_tokens WHERE grant_id = ${grantId}`
            return true
          }).pipe(sql.withTransaction, Effect.orDie),
        listGrants: (customerId, limit) =>
          sql<
            GrantRow
          >`SELECT id, customer_id, member_id, key_id, client_id, client_name, role, resource, created_at, last_used_at
          FROM oauth_grants g WHERE customer_id = ${customerId} AND revoked_at IS NULL
            -- A grant idle past its refresh token's life is over, though nobody revoked it.
            AND EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id AND t.kind = 'refresh' AND t.used_at IS NULL AND t.expires_at > now())
          ORDER BY created_at DESC LIMIT ${limit}`.pipe(Effect.orDie),
        sweepCodes: (limit) =>
          sql`DELETE FROM oauth_codes WHERE code_hash IN (
            SELECT code_hash FROM oauth_codes
            WHERE expires_at < now() AND (grant_id IS NULL OR expires_at < now() - interval '1 day')
            ORDER BY expires_at LIMIT ${limit})
          RETURNING code_hash`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
      })
    })
  )
}
