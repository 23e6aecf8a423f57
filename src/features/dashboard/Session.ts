import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { createHmac, randomBytes } from "node:crypto"
import type { Principal } from "../../api/Security.ts"
import { AppConfig } from "../../Config.ts"
import { AccountInactive, InvalidApiKey } from "../../domain/Errors.ts"
import { safeEqual, sha256Hex } from "../../domain/Secrets.ts"
import { Keys } from "../../platform/Keys.ts"
import { serverSecret } from "../../platform/ServerSecrets.ts"

export const cookieName = "herald_session"
const lifetimeSeconds = 12 * 3600

export interface SignedIn {
  readonly principal: Principal
  /** The CSRF token bound to this session. */
  readonly csrf: string
  readonly sessionHash: string
}

const parseCookies = (header: string | undefined): Map<string, string> => {
  const cookies = new Map<string, string>()
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=")
    if (eq > 0) cookies.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
  }
  return cookies
}

/**
 * Cookie sign-in to the dashboard. The cookie holds a random session id and
 * its HMAC (so a forged cookie is refused without a database read); the
 * database keeps the id's digest and the key id it was opened with. Each use
 * re-checks that key and the customer's status. The CSRF token is an HMAC of
 * the session id: bound to the session, never stored.
 */
export class DashboardAuth extends Context.Service<DashboardAuth, {
  /** Opens a session for a key; answers the Set-Cookie value. */
  readonly signIn: (apiKey: string) => Effect.Effect<string, InvalidApiKey | AccountInactive>
  /** The signed-in principal of a Cookie header, or undefined. */
  readonly current: (cookieHeader: string | undefined) => Effect.Effect<SignedIn | undefined>
  readonly signOut: (sessionHash: string) => Effect.Effect<void>
  /** The Set-Cookie value that removes the cookie. */
  readonly clearCookie: string
  readonly checkCsrf: (signedIn: SignedIn, token: string | undefined) => boolean
}>()("herald/features/dashboard/DashboardAuth") {
  static readonly layer = Layer.effect(
    DashboardAuth,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const keys = yield* Keys
      const config = yield* AppConfig
      const secret = yield* serverSecret("dashboard")
      const secure = config.baseUrl.startsWith("https:")
      const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`

      const mac = (purpose: string, value: string) =>
        createHmac("sha256", secret).update(`${purpose} ${value}`).digest("base64url")

      const signIn = Effect.fn("DashboardAuth.signIn")(function*(apiKey: string) {
        const { principal, status, audience } = yield* keys.authenticate(apiKey)
        // An assistant's OAuth token is not a key to sign a person in with.
        if (audience !== undefined) return yield* new InvalidApiKey()
        if (status !== "active" && status !== "onboarding") return yield* new AccountInactive()
        const sid = randomBytes(32).toString("base64url")
        yield* sql`DELETE FROM dashboard_sessions WHERE expires_at < now()`.pipe(Effect.orDie)
        yield* sql`INSERT INTO dashboard_sessions (id_hash, key_id, customer_id, expires_at)
        VALUES (${
          sha256Hex(sid)
        }, ${principal.keyId}, ${principal.customerId}, now() + make_interval(secs => ${lifetimeSeconds}))`
          .pipe(Effect.orDie)
        return `${cookieName}=${sid}.${mac("session", sid)}; Max-Age=${lifetimeSeconds}; ${attributes}`
      })

      const current = Effect.fnUntraced(function*(cookieHeader: string | undefined) {
        const value = parseCookies(cookieHeader).get(cookieName)
        if (value === undefined) return undefined
        const dot = value.indexOf(".")
        if (dot <= 0) return undefined
        const sid = value.slice(0, dot)
        if (!safeEqual(mac("session", sid), value.slice(dot + 1))) return undefined
        const sessionHash = sha256Hex(sid)
        const rows = yield* sql<{ keyId: string }>`SELECT key_id FROM dashboard_sessions
        WHERE id_hash = ${sessionHash} AND expires_at > now()`.pipe(Effect.orDie)
        if (rows.length === 0) return undefined
        const found = yield* Effect.result(keys.byId(rows[0].keyId))
        if (found._tag === "Failure") return undefined
        const { principal, status } = found.success
        if (status !== "active" && status !== "onboarding") return undefined
        return { principal, csrf: mac("csrf", sid), sessionHash } satisfies SignedIn
      })

      const signOut = (sessionHash: string) =>
        sql`DELETE FROM dashboard_sessions WHERE id_hash = ${sessionHash}`.pipe(Effect.orDie, Effect.asVoid)

      return DashboardAuth.of({
        signIn,
        current,
        signOut,
        clearCookie: `${cookieName}=; Max-Age=0; ${attributes}`,
        checkCsrf: (signedIn, token) => token !== undefined && safeEqual(signedIn.csrf, token)
      })
    })
  )
}
