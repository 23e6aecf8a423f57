import { Schema } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { Role } from "./Identity.ts"

/**
 * The resource (RFC 8707) every token Herald issues is for: its MCP endpoint.
 * Tokens carry it as their audience.
 */
export const mcpResource = (baseUrl: string): string => `${baseUrl}/mcp`

/**
 * Whether a requested `resource` names Herald: its MCP endpoint, or the base
 * address that `/.well-known/oauth-protected-resource` publishes as the
 * resource (clients that read that document name it). A trailing slash is the
 * same resource.
 */
export const isOurResource = (baseUrl: string, resource: string | null | undefined): boolean =>
  resource !== null && resource !== undefined &&
  [baseUrl, mcpResource(baseUrl)].some((ours) => resource === ours || resource === `${ours}/`)

/**
 * Token shapes: a prefix that tells them from API keys (and from each other)
 * and 32 random bytes. They are opaque: Herald is both the authorization
 * server and the only resource server, so a self-contained JWT would buy no
 * offline check and would outlive its revocation; an opaque token stored as a
 * digest ends the moment its grant is revoked. Randomness and digests come
 * from node:crypto.
 */
export const tokenPrefixes = { access: "hat_", refresh: "hrt_", code: "hac_" } as const

const tokenBody = /^[A-Za-z0-9_-]{43}$/

export const newToken = (kind: keyof typeof tokenPrefixes): string =>
  tokenPrefixes[kind] + randomBytes(32).toString("base64url")

export const isTokenOf = (kind: keyof typeof tokenPrefixes, value: string): boolean =>
  value.length === tokenPrefixes[kind].length + 43 && value.startsWith(tokenPrefixes[kind]) &&
  tokenBody.test(value.slice(tokenPrefixes[kind].length))

/** RFC 7636 verifier: 43 to 128 characters of the unreserved set. */
const verifierShape = /^[A-Za-z0-9._~-]{43,128}$/
/** An S256 challenge: the base64url SHA-256 of a verifier, 43 characters. */
const challengeShape = /^[A-Za-z0-9_-]{43}$/

export const isS256Challenge = (challenge: string): boolean => challengeShape.test(challenge)

/**
 * PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(verifier)) equals the challenge,
 * compared in constant time. Only S256 exists here: `plain` is refused where
 * the challenge is taken.
 */
export const verifiesS256 = (verifier: string, challenge: string): boolean => {
  if (!verifierShape.test(verifier) || !challengeShape.test(challenge)) return false
  const computed = createHash("sha256").update(verifier, "ascii").digest()
  const expected = Buffer.from(challenge, "base64url")
  return expected.length === computed.length && timingSafeEqual(computed, expected)
}

const loopbackHosts = new Set(["127.0.0.1", "localhost", "[::1]"])
const refusedSchemes = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "about:",
  "blob:",
  "filesystem:",
  "http:",
  "https:"
])
const schemeShape = /^[a-z][a-z0-9+.-]*:$/

/**
 * A redirect URI a client may register: absolute, no fragment, no userinfo;
 * https, or http only to the loopback (native apps, RFC 8252 §7.3), or a
 * private-use scheme of a native app (`com.example.app:/callback`). Answers
 * why not, or undefined.
 */
export const redirectUriProblem = (value: unknown): string | undefined => {
  if (typeof value !== "string" || value.length === 0 || value.length > 2000) {
    return "must be a URL of at most 2000 characters"
  }
  if (!URL.canParse(value)) return "must be an absolute URL"
  const url = new URL(value)
  if (url.hash !== "" || value.includes("#")) return "must not have a fragment"
  if (url.username !== "" || url.password !== "") return "must not carry credentials"
  if (url.protocol === "https:") return undefined
  if (url.protocol === "http:") {
    return loopbackHosts.has(url.hostname)
      ? undefined
      : "http is allowed only for the loopback address"
  }
  if (!schemeShape.test(url.protocol) || refusedSchemes.has(url.protocol)) return "uses a scheme that is not allowed"
  return undefined
}

/**
 * Whether `requested` is one of the client's redirect URIs: exact string
 * match, except that a loopback URI may name any port (RFC 8252 §7.3: a
 * native app learns its port only when it listens).
 */
export const redirectUriAllowed = (registered: ReadonlyArray<string>, requested: string): boolean => {
  if (registered.includes(requested)) return true
  if (!URL.canParse(requested)) return false
  const asked = new URL(requested)
  if (asked.protocol !== "http:" || !loopbackHosts.has(asked.hostname)) return false
  return registered.some((uri) => {
    if (!URL.canParse(uri)) return false
    const known = new URL(uri)
    return known.protocol === "http:" && known.hostname === asked.hostname && known.pathname === asked.pathname &&
      known.search === asked.search
  })
}

/** Where a browser may be sent after the consent form: the form's CSP must allow that origin (or scheme). */
export const formTargetOf = (redirectUri: string): string => {
  const url = new URL(redirectUri)
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol
}

/** Roles a person may hand a client: their own and below. */
export const grantableRoles = (own: Role): ReadonlyArray<Role> => {
  const order: ReadonlyArray<Role> = ["viewer", "editor", "admin", "owner"]
  return order.slice(0, order.indexOf(own) + 1)
}

/** Lifetimes, in seconds. */
export const lifetimes = {
  /** An authorization code: exchanged within a minute or never. */
  code: 60,
  /** An access token: short, so a leaked one is worth little; the refresh token renews it. */
  access: 3600,
  /** A refresh token: each use rotates it, so this bounds only an idle grant. */
  refresh: 30 * 24 * 3600,
  /** A client's metadata document kept without a fetch: the document's max-age within these bounds. */
  metadataMin: 60,
  metadataDefault: 3600,
  metadataMax: 24 * 3600
} as const

/** An assistant connected by OAuth, as the customer sees it. */
export const ConnectedApp = Schema.Struct({
  grantId: Schema.String,
  clientId: Schema.String.annotate({
    description: "A registered client id, or the URL of the client's metadata document"
  }),
  clientName: Schema.String,
  role: Role,
  memberId: Schema.NullOr(Schema.String).annotate({
    description: "The team member who approved it; null for the owner"
  }),
  createdAt: Schema.String.annotate({ format: "date-time" }),
  lastRenewedAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
}).annotate({ identifier: "ConnectedApp" })
export type ConnectedApp = typeof ConnectedApp.Type

export const ConnectedAppList = Schema.Struct({ apps: Schema.Array(ConnectedApp) }).annotate({
  identifier: "ConnectedAppList"
})
