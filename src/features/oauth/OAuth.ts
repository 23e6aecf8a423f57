import { Context, Data, Duration, Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import { type Role, Role as RoleSchema, scopesByRole } from "../../domain/Identity.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import {
  isOurResource,
  isS256Challenge,
  isTokenOf,
  lifetimes,
  mcpResource,
  newToken,
  redirectUriAllowed,
  redirectUriProblem,
  tokenPrefixes,
  verifiesS256
} from "../../domain/OAuth.ts"
import { safeEqual, sameDigest, sha256Hex } from "../../domain/Secrets.ts"
import { AccessTokens, Keys } from "../../platform/Keys.ts"
import { safeFetch } from "../../platform/OutboundGuard.ts"
import { forkPeriodic } from "../../platform/Periodic.ts"
import { type Approval, type GrantRow, OAuthRepo } from "./Repo.ts"

/** An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2): its HTTP status, code and description. */
export class OAuthProblem extends Data.TaggedError("OAuthProblem")<{
  readonly status: number
  readonly error: string
  readonly description: string
}> {}

const problem = (error: string, description: string, status = 400) => new OAuthProblem({ status, error, description })

export interface Client {
  readonly clientId: string
  readonly name: string
  readonly uri: string | null
  readonly redirectUris: ReadonlyArray<string>
  /** Known by its metadata document (an https URL), not registered here. */
  readonly byDocument: boolean
}

/** A checked authorization request: what the consent page shows and posts back. */
export interface AuthorizationRequest {
  readonly client: Client
  readonly redirectUri: string
  readonly state: string | null
  readonly codeChallenge: string
  readonly resource: string
  readonly scope: string | null
}

/**
 * Why an authorization request fails: before the client and its redirect URI
 * are known good, the person is told on a page (never redirected to an
 * unchecked address, RFC 6749 §4.1.2.1); after, the client is told at its
 * redirect URI.
 */
export type AuthorizeFailure =
  | { readonly _tag: "Page"; readonly message: string; readonly status?: number }
  | { readonly _tag: "Redirect"; readonly location: string }

export interface TokenAnswer {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope: string
}

export interface Registration {
  readonly client_id: string
  readonly client_id_issued_at: number
  readonly client_name?: string
  readonly client_uri?: string
  readonly redirect_uris: ReadonlyArray<string>
  readonly token_endpoint_auth_method: "none"
  readonly grant_types: ReadonlyArray<string>
  readonly response_types: ReadonlyArray<string>
}

/** Bounds of what a client may send or publish about itself. */
export const clientBounds = {
  documentBytes: 16 * 1024,
  registrationBytes: 16 * 1024,
  redirectUris: 10,
  name: 200,
  fetchMs: 5_000
} as const

export const isRole = Schema.is(RoleSchema)

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A client's own description (a metadata document or a registration body), checked; or why it is refused. */
const clientFields = (
  doc: Record<string, unknown>
):
  | { readonly name: string | null; readonly uri: string | null; readonly redirectUris: ReadonlyArray<string> }
  | string =>
{
  const uris = doc.redirect_uris
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > clientBounds.redirectUris) {
    return `redirect_uris must list 1 to ${clientBounds.redirectUris} URIs`
  }
  for (const uri of uris) {
    const why = redirectUriProblem(uri)
    if (why !== undefined) return `redirect_uris: ${String(uri).slice(0, 100)} ${why}`
  }
  const method = doc.token_endpoint_auth_method
  if (method !== undefined && method !== "none") {
    return "only public clients (token_endpoint_auth_method none) are supported"
  }
  const name = doc.client_name
  if (name !== undefined && (typeof name !== "string" || [...name].length > clientBounds.name)) {
    return `client_name must be text of at most ${clientBounds.name} characters`
  }
  const uri = doc.client_uri
  if (
    uri !== undefined &&
    (typeof uri !== "string" || uri.length > 2000 || !URL.canParse(uri) || new URL(uri).protocol !== "https:")
  ) {
    return "client_uri must be an https URL"
  }
  const grants = doc.grant_types
  if (
    grants !== undefined &&
    (!Array.isArray(grants) || grants.some((g) => g !== "authorization_code" && g !== "refresh_token"))
  ) {
    return "grant_types may name only authorization_code and refresh_token"
  }
  const types = doc.response_types
  if (types !== undefined && (!Array.isArray(types) || types.some((t) => t !== "code"))) {
    return "response_types may name only code"
  }
  return {
    name: typeof name === "string" && name.trim() !== "" ? name.trim() : null,
    uri: typeof uri === "string" ? uri : null,
    redirectUris: uris as ReadonlyArray<string>
  }
}

/** A client_id that is a metadata document's address: https, a path, no fragment or credentials. */
const isDocumentUrl = (clientId: string): boolean => {
  if (clientId.length > 2000 || !URL.canParse(clientId)) return false
  const url = new URL(clientId)
  return url.protocol === "https:" && url.pathname !== "/" && url.hash === "" && url.username === "" &&
    url.password === ""
}

/** How long a document may be kept: its `max-age`, within bounds. */
const keepSeconds = (cacheControl: string | undefined): number => {
  const match = /(?:^|[\s,])max-age=(\d{1,9})/i.exec(cacheControl ?? "")
  const asked = match === null ? lifetimes.metadataDefault : Number(match[1])
  return Math.min(lifetimes.metadataMax, Math.max(lifetimes.metadataMin, asked))
}

const grantId = () => `grt_${randomUUID().replaceAll("-", "").slice(0, 24)}`

/**
 * Herald as the OAuth 2.1 authorization server of its MCP endpoints: client
 * registration (RFC 7591) and client metadata documents, the authorization
 * code flow with PKCE S256 and resource indicators, refresh-token rotation,
 * revocation (RFC 7009), and the grants a customer sees on the dashboard.
 */
export class OAuth extends Context.Service<OAuth, {
  readonly issuer: string
  readonly resource: string
  /** A client by id; `beforeFetch` runs before a metadata document is fetched (the caller's budget for outbound requests). */
  readonly client: (
    clientId: string,
    beforeFetch?: Effect.Effect<void, OAuthProblem>
  ) => Effect.Effect<Client, OAuthProblem>
  readonly checkAuthorization: (
    params: URLSearchParams,
    beforeFetch?: Effect.Effect<void, OAuthProblem>
  ) => Effect.Effect<AuthorizationRequest, AuthorizeFailure>
  /** The redirect that hands the client its code. */
  readonly approve: (request: AuthorizationRequest, approval: Approval) => Effect.Effect<string>
  /** The redirect that tells the client the person said no. */
  readonly deny: (request: AuthorizationRequest) => string
  readonly register: (body: unknown) => Effect.Effect<Registration, OAuthProblem>
  readonly token: (form: URLSearchParams) => Effect.Effect<TokenAnswer, OAuthProblem>
  readonly revoke: (form: URLSearchParams) => Effect.Effect<void, OAuthProblem>
  readonly grants: (customerId: CustomerId, limit: number) => Effect.Effect<ReadonlyArray<GrantRow>>
  /** Revokes one of the customer's grants; `memberId` limits it to that member's own. */
  readonly revokeGrant: (
    customerId: CustomerId,
    grantId: string,
    memberId: string | undefined
  ) => Effect.Effect<boolean>
}>()("herald/features/oauth/OAuth") {
  static readonly layerWithoutRepo = Layer.effect(
    OAuth,
    Effect.gen(function*() {
      const repo = yield* OAuthRepo
      const keys = yield* Keys
      const config = yield* AppConfig
      const issuer = config.baseUrl
      const resource = mcpResource(config.baseUrl)

      const fetchDocument = (clientId: string) =>
        Effect.gen(function*() {
          const response = yield* safeFetch(clientId, {
            allowPrivateTargets: config.allowPrivateTargets,
            headers: { accept: "application/json" },
            maxRedirects: 0,
            timeoutMs: clientBounds.fetchMs,
            maxBytes: clientBounds.documentBytes
          }).pipe(
            Effect.mapError((error) =>
              problem("invalid_client", `The client metadata document could not be fetched (${error.reason})`)
            )
          )
          if (response.status !== 200) {
            return yield* problem("invalid_client", `The client metadata document answered ${response.status}`)
          }
          let doc: unknown
          try {
            doc = JSON.parse(response.body.toString("utf8"))
          } catch {
            return yield* problem("invalid_client", "The client metadata document is not JSON")
          }
          if (!isObject(doc)) {
            return yield* problem("invalid_client", "The client metadata document is not a JSON object")
          }
          if (doc.client_id !== clientId) {
            return yield* problem("invalid_client", "The client metadata document's client_id is not its own URL")
          }
          const fields = clientFields(doc)
          if (typeof fields === "string") {
            return yield* problem("invalid_client", `The client metadata document is refused: ${fields}`)
          }
          yield* repo.saveClient(
            {
              clientId,
              kind: "metadata_document",
              clientName: fields.name,
              clientUri: fields.uri,
              redirectUris: fields.redirectUris
            },
            keepSeconds(
              typeof response.headers["cache-control"] === "string" ? response.headers["cache-control"] : undefined
            )
          )
          return {
            clientId,
            name: fields.name ?? new URL(clientId).host,
            uri: fields.uri,
            redirectUris: fields.redirectUris,
            byDocument: true
          }
        })

      const client = (clientId: string, beforeFetch: Effect.Effect<void, OAuthProblem> = Effect.void) =>
        Effect.gen(function*() {
          if (clientId.length === 0 || clientId.length > 2000) {
            return yield* problem("invalid_client", "Unknown client_id")
          }
          const known = yield* repo.findClient(clientId)
          if (known !== undefined && known.fresh) {
            return {
              clientId,
              name: known.clientName ?? (known.kind === "metadata_document" ? new URL(clientId).host : "Unnamed app"),
              uri: known.clientUri,
              redirectUris: known.redirectUris,
              byDocument: known.kind === "metadata_document"
            } satisfies Client
          }
          if (isDocumentUrl(clientId)) {
            yield* beforeFetch
            return yield* fetchDocument(clientId)
          }
          return yield* problem("invalid_client", "Unknown client_id")
        })

      const redirectWith = (redirectUri: string, params: Record<string, string | null>) => {
        const url = new URL(redirectUri)
        for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value)
        // RFC 9207: the client checks who answered, so a mix-up with another server's answer is caught.
        url.searchParams.set("iss", issuer)
        return url.href
      }

      const checkAuthorization = (params: URLSearchParams, beforeFetch?: Effect.Effect<void, OAuthProblem>) =>
        Effect.gen(function*() {
          const single = (name: string) => (params.getAll(name).length > 1 ? undefined : params.get(name))
          const clientId = single("client_id")
          if (clientId === undefined || clientId === null) {
            return yield* Effect.fail<AuthorizeFailure>({
              _tag: "Page",
              message: "The request names no client (client_id)."
            })
          }
          const found = yield* Effect.mapError(
            client(clientId, beforeFetch),
            (e): AuthorizeFailure => ({ _tag: "Page", message: e.description, status: e.status })
          )
          const redirectUri = single("redirect_uri")
          if (
            redirectUri === undefined || redirectUri === null || !redirectUriAllowed(found.redirectUris, redirectUri)
          ) {
            return yield* Effect.fail<AuthorizeFailure>({
              _tag: "Page",
              message: "The redirect_uri is not one this app registered."
            })
          }
          const state = single("state") ?? null
          const fail = (error: string, description: string) =>
            Effect.fail<AuthorizeFailure>({
              _tag: "Redirect",
              location: redirectWith(redirectUri, { error, error_description: description, state })
            })
          if (single("response_type") !== "code") {
            return yield* fail("unsupported_response_type", "response_type must be code")
          }
          const challenge = single("code_challenge")
          const method = single("code_challenge_method")
          if (challenge === undefined || challenge === null) {
            return yield* fail("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256")
          }
          if (method !== "S256") return yield* fail("invalid_request", "code_challenge_method must be S256")
          if (!isS256Challenge(challenge)) {
            return yield* fail("invalid_request", "code_challenge is not an S256 challenge")
          }
          const target = single("resource")
          if (!isOurResource(config.baseUrl, target)) {
            return yield* fail("invalid_target", `resource must be ${config.baseUrl} or ${resource}`)
          }
          const scope = single("scope") ?? null
          if (state !== null && state.length > 1000) {
            return yield* fail("invalid_request", "state is longer than 1000 characters")
          }
          if (scope !== null && scope.length > 2000) {
            return yield* fail("invalid_scope", "scope is longer than 2000 characters")
          }
          return {
            client: found,
            redirectUri,
            state,
            codeChallenge: challenge,
            resource,
            scope
          } satisfies AuthorizationRequest
        })

      const approve = (request: AuthorizationRequest, approval: Approval) =>
        Effect.gen(function*() {
          const code = newToken("code")
          yield* repo.insertCode(sha256Hex(code), {
            clientId: request.client.clientId,
            redirectUri: request.redirectUri,
            codeChallenge: request.codeChallenge,
            resource: request.resource,
            ...approval
          }, lifetimes.code)
          return redirectWith(request.redirectUri, { code, state: request.state })
        })

      const deny = (request: AuthorizationRequest) =>
        redirectWith(request.redirectUri, {
          error: "access_denied",
          error_description: "The person declined",
          state: request.state
        })

      const register = (body: unknown) =>
        Effect.gen(function*() {
          if (!isObject(body)) return yield* problem("invalid_client_metadata", "The body must be a JSON object")
          const fields = clientFields(body)
          if (typeof fields === "string") {
            return yield* problem(
              fields.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata",
              fields
            )
          }
          const clientId = `hcl_${randomUUID().replaceAll("-", "")}`
          yield* repo.saveClient({
            clientId,
            kind: "registered",
            clientName: fields.name,
            clientUri: fields.uri,
            redirectUris: fields.redirectUris
          }, null)
          return {
            client_id: clientId,
            client_id_issued_at: Math.floor(Date.now() / 1000),
            ...(fields.name === null ? {} : { client_name: fields.name }),
            ...(fields.uri === null ? {} : { client_uri: fields.uri }),
            redirect_uris: fields.redirectUris,
            token_endpoint_auth_method: "none",
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"]
          } satisfies Registration
        })

      const issueTokens = (role: Role) => {
        const access = newToken("access")
        const refresh = newToken("refresh")
        return {
          stored: [
            { hash: sha256Hex(access), kind: "access" as const, lifetimeSeconds: lifetimes.access },
            { hash: sha256Hex(refresh), kind: "refresh" as const, lifetimeSeconds: lifetimes.refresh }
          ],
          answer: {
            access_token: access,
            token_type: "Bearer",
            expires_in: lifetimes.access,
            refresh_token: refresh,
            scope: scopesByRole[role].join(" ")
          } satisfies TokenAnswer
        }
      }

      const invalidGrant = (description: string) => problem("invalid_grant", description)

      const exchangeCode = (form: URLSearchParams, clientId: string) =>
        Effect.gen(function*() {
          const code = form.get("code") ?? ""
          if (!isTokenOf("code", code)) return yield* invalidGrant("The code is not valid")
          const codeHash = sha256Hex(code)
          const spent = yield* repo.spendCode(codeHash)
          if (spent === undefined) return yield* invalidGrant("The code is not valid")
          const found = spent.code
          if (!spent.firstUse) {
            // A code used twice was stolen or replayed: what it bought is revoked (RFC 6749 §4.1.2).
            if (found.grantId !== null) yield* repo.revokeGrant(found.grantId)
            return yield* invalidGrant("The code was already used")
          }
          if (found.expired) return yield* invalidGrant("The code has expired")
          if (!safeEqual(found.clientId, clientId)) return yield* invalidGrant("The code was issued to another client")
          if (form.get("redirect_uri") !== found.redirectUri) {
            return yield* invalidGrant("redirect_uri differs from the authorization request's")
          }
          if (!verifiesS256(form.get("code_verifier") ?? "", found.codeChallenge)) {
            return yield* invalidGrant("code_verifier does not match the code_challenge")
          }
          const target = form.get("resource")
          if (target !== null && !isOurResource(config.baseUrl, target)) {
            return yield* problem("invalid_target", `resource must be ${config.baseUrl} or ${resource}`)
          }
          const known = yield* Effect.option(client(clientId))
          const tokens = issueTokens(found.role)
          yield* repo.createGrant(
            {
              id: grantId(),
              customerId: found.customerId,
              memberId: found.memberId,
              keyId: found.keyId,
              role: found.role,
              clientId,
              clientName: Option.match(known, {
                onNone: () => clientId,
                onSome: (c) => c.name
              }),
              resource: found.resource
            },
            codeHash,
            tokens.stored
          )
          return tokens.answer
        })

      const refresh = (form: URLSearchParams, clientId: string) =>
        Effect.gen(function*() {
          const token = form.get("refresh_token") ?? ""
          if (!isTokenOf("refresh", token)) return yield* invalidGrant("The refresh token is not valid")
          const hash = sha256Hex(token)
          const found = yield* repo.findToken(hash, "refresh")
          if (found === undefined || !sameDigest(found.tokenHash, hash)) {
            return yield* invalidGrant("The refresh token is not valid")
          }
          if (!safeEqual(found.clientId, clientId)) {
            return yield* invalidGrant("The refresh token was issued to another client")
          }
          if (found.spent) {
            // A rotated refresh token presented again: one of two holders is not the client, so neither keeps the grant.
            yield* repo.revokeGrant(found.grantId)
            return yield* invalidGrant("The refresh token was already used; the grant is revoked")
          }
          if (!found.live) return yield* invalidGrant("The refresh token has expired or was revoked")
          const target = form.get("resource")
          if (target !== null && !isOurResource(config.baseUrl, target)) {
            return yield* problem("invalid_target", `resource must be ${config.baseUrl} or ${resource}`)
          }
          const tokens = issueTokens(found.role)
          if (!(yield* repo.rotate(hash, found.grantId, tokens.stored))) {
            yield* repo.revokeGrant(found.grantId)
            return yield* invalidGrant("The refresh token was already used; the grant is revoked")
          }
          return tokens.answer
        })

      const token = (form: URLSearchParams) =>
        Effect.gen(function*() {
          for (
            const name of [
              "grant_type",
              "code",
              "refresh_token",
              "code_verifier",
              "redirect_uri",
              "client_id",
              "resource"
            ]
          ) {
            if (form.getAll(name).length > 1) {
              return yield* problem("invalid_request", `${name} is given more than once`)
            }
          }
          const clientId = form.get("client_id")
          if (clientId === null || clientId === "") {
            return yield* problem("invalid_client", "client_id is required (public clients)", 401)
          }
          const grantType = form.get("grant_type")
          if (grantType === "authorization_code") {
            return yield* exchangeCode(form, clientId)
          }
          if (grantType === "refresh_token") return yield* refresh(form, clientId)
          return yield* problem("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
        })

      const revoke = (form: URLSearchParams) =>
        Effect.gen(function*() {
          const token = form.get("token")
          if (token === null || token === "") return yield* problem("invalid_request", "token is required")
          const kind = isTokenOf("access", token) ? "access" : isTokenOf("refresh", token) ? "refresh" : undefined
          // RFC 7009 §2.2: a token that is not valid is answered as revoked.
          if (kind === undefined) return
          const hash = sha256Hex(token)
          const found = yield* repo.findToken(hash, kind)
          if (found === undefined || !sameDigest(found.tokenHash, hash)) return
          const clientId = form.get("client_id")
          if (clientId !== null && !safeEqual(clientId, found.clientId)) return
          // Either token ends the whole grant: an assistant disconnected is disconnected.
          yield* repo.revokeGrant(found.grantId)
        })

      return OAuth.of({
        issuer,
        resource,
        client,
        checkAuthorization,
        approve,
        deny,
        register,
        token,
        revoke,
        // A grant lives only while the key that approved it does (a removed member's, a rotated owner key's are over).
        grants: (customerId, limit) =>
          Effect.flatMap(
            repo.listGrants(customerId, limit),
            (rows) =>
              Effect.filter(rows, (grant) =>
                Effect.map(Effect.result(keys.byId(grant.keyId)), (found) => found._tag === "Success"), {
                concurrency: 4
              })
          ),
        revokeGrant: repo.revokeCustomerGrant
      })
    })
  )

  static readonly layer = OAuth.layerWithoutRepo.pipe(Layer.provideMerge(OAuthRepo.layer))
}

/** How many codes one statement of the sweep deletes, and how many statements one period runs at most. */
export const codeSweep = { batch: 1000, batchesPerPeriod: 100 } as const

/**
 * Deletes the authorization codes that are over (`OAuthRepo.sweepCodes`), a
 * batch at a time so no statement holds many rows, until a batch comes back
 * short; what one period leaves, the next one takes. Answers how many went.
 */
const sweepCodes = Effect.gen(function*() {
  const repo = yield* OAuthRepo
  let swept = 0
  for (let i = 0; i < codeSweep.batchesPerPeriod; i++) {
    const deleted = yield* repo.sweepCodes(codeSweep.batch)
    swept += deleted
    if (deleted < codeSweep.batch) break
  }
  return swept
})

/** The code sweep, hourly, by one of the instances sharing the database. */
export const CodeSweepLive = Layer.effectDiscard(
  forkPeriodic({ name: "oauth: code sweep", period: Duration.hours(1), run: Effect.asVoid(sweepCodes) })
).pipe(Layer.provide(OAuthRepo.layer))

/** Access tokens for the request pipeline (Keys): a live token's grant, found by its digest. */
export const AccessTokensLive = Layer.effectDiscard(Effect.gen(function*() {
  const repo = yield* OAuthRepo
  const registry = yield* AccessTokens
  yield* registry.register({
    isToken: (credential) => credential.startsWith(tokenPrefixes.access),
    resolve: (token) =>
      Effect.gen(function*() {
        if (!isTokenOf("access", token)) return Option.none()
        const hash = sha256Hex(token)
        const found = yield* repo.findToken(hash, "access")
        if (found === undefined || !found.live || !sameDigest(found.tokenHash, hash)) return Option.none()
        return Option.some({
          grantId: found.grantId,
          customerId: found.customerId,
          memberId: found.memberId,
          keyId: found.keyId,
          role: found.role,
          resource: found.resource
        })
      })
  })
})).pipe(Layer.provide(OAuthRepo.layer))
