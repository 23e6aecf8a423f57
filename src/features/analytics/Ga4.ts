import { Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { createPrivateKey, type KeyObject, sign } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import { safeFetch } from "../../platform/OutboundGuard.ts"

/** The fields of a Google service-account key file that signing needs. */
export interface ServiceAccount {
  readonly client_email: string
  readonly private_key: string
  readonly private_key_id?: string
  readonly token_uri?: string
}

export interface Ga4ReportRequest {
  /** GA4 date strings: `YYYY-MM-DD`, `today`, `yesterday` or `NdaysAgo`. */
  readonly startDate: string
  readonly endDate: string
  readonly metrics: ReadonlyArray<string>
  readonly dimensions: ReadonlyArray<string>
  readonly limit: number
}

export interface Ga4Row {
  readonly dimensions: Record<string, string>
  readonly metrics: Record<string, number | string>
}

export interface Ga4Report {
  readonly propertyId: string
  readonly rows: ReadonlyArray<Ga4Row>
  readonly rowCount: number
  readonly totals: Record<string, number>
}

/** GA4 refused or could not be reached; `message` is safe to show (never a token or key). */
export class Ga4Error extends Data.TaggedError("Ga4Error")<{ readonly message: string }> {}

const scope = "https://www.googleapis.com/auth/analytics.readonly"
const defaultTokenUri = "https://oauth2.googleapis.com/token"
const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url")

/** A JWT-bearer assertion (RFC 7523) signed RS256 with the service account's key, as Google's token endpoint expects. */
export const signAssertion = (
  account: ServiceAccount,
  key: KeyObject,
  tokenUri: string,
  nowSeconds: number
): string => {
  const header = {
    alg: "RS256",
    typ: "JWT",
    ...(account.private_key_id === undefined ? {} : { kid: account.private_key_id })
  }
  const claims = { iss: account.client_email, scope, aud: tokenUri, iat: nowSeconds, exp: nowSeconds + 3600 }
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`
  return `${input}.${b64url(sign("RSA-SHA256", Buffer.from(input), key))}`
}

/** Google's error body `{error: {code, message, status}}` (or OAuth's `{error, error_description}`) as one line. */
const googleError = (status: number, body: Buffer): string => {
  try {
    const json = JSON.parse(body.toString("utf8")) as { error?: unknown; error_description?: unknown }
    if (typeof json.error === "object" && json.error !== null) {
      const e = json.error as { message?: unknown; status?: unknown }
      return `GA4 answered ${status}${typeof e.status === "string" ? ` ${e.status}` : ""}: ${String(e.message ?? "")}`
        .trim()
    }
    if (typeof json.error === "string") {
      return `GA4 token endpoint answered ${status}: ${json.error}${
        typeof json.error_description === "string" ? ` (${json.error_description})` : ""
      }`
    }
  } catch {
    // not JSON: fall through
  }
  return `GA4 answered ${status}`
}

interface RawReport {
  readonly dimensionHeaders?: ReadonlyArray<{ readonly name: string }>
  readonly metricHeaders?: ReadonlyArray<{ readonly name: string; readonly type?: string }>
  readonly rows?: ReadonlyArray<{
    readonly dimensionValues?: ReadonlyArray<{ readonly value?: string }>
    readonly metricValues?: ReadonlyArray<{ readonly value?: string }>
  }>
  readonly rowCount?: number
}

const numeric = (type: string | undefined) => type === undefined || !/STRING/.test(type)

/** runReport's header/value arrays as named rows, numbers as numbers, with per-metric totals over the rows. */
export const readReport = (propertyId: string, raw: RawReport): Ga4Report => {
  const dimensions = (raw.dimensionHeaders ?? []).map((h) => h.name)
  const metrics = raw.metricHeaders ?? []
  const totals: Record<string, number> = {}
  for (const m of metrics) if (numeric(m.type)) totals[m.name] = 0
  const rows = (raw.rows ?? []).map((row) => {
    const d: Record<string, string> = {}
    dimensions.forEach((name, i) => (d[name] = row.dimensionValues?.[i]?.value ?? ""))
    const m: Record<string, number | string> = {}
    metrics.forEach((header, i) => {
      const value = row.metricValues?.[i]?.value ?? "0"
      if (numeric(header.type) && Number.isFinite(Number(value))) {
        m[header.name] = Number(value)
        totals[header.name] = (totals[header.name] ?? 0) + Number(value)
      } else m[header.name] = value
    })
    return { dimensions: d, metrics: m }
  })
  return { propertyId, rows, rowCount: raw.rowCount ?? rows.length, totals }
}

/**
 * Google Analytics 4 Data API (v1beta `runReport`), authenticated as a
 * service account: a JWT signed RS256 with node:crypto is exchanged at the
 * account's token URI for an access token, kept until a minute before it
 * expires. Configured by GA4_PROPERTY_ID and GA4_CREDENTIALS; without them
 * `propertyId` is None and callers answer from Herald's own data.
 */
export class Ga4 extends Context.Service<Ga4, {
  readonly propertyId: Option.Option<string>
  readonly runReport: (request: Ga4ReportRequest) => Effect.Effect<Ga4Report, Ga4Error>
}>()("herald/features/analytics/Ga4") {
  static readonly layer = Layer.effect(
    Ga4,
    Effect.gen(function*() {
      const config = yield* AppConfig
      if (Option.isNone(config.ga4PropertyId) || Option.isNone(config.ga4Credentials)) {
        return Ga4.of({
          propertyId: Option.none(),
          runReport: () =>
            Effect.fail(new Ga4Error({ message: "GA4 is not configured (GA4_PROPERTY_ID, GA4_CREDENTIALS)" }))
        })
      }
      const propertyId = config.ga4PropertyId.value
      const account = JSON.parse(Redacted.value(config.ga4Credentials.value)) as ServiceAccount
      const key = createPrivateKey(account.private_key)
      const tokenUri = account.token_uri ?? defaultTokenUri
      const reportUrl = `${config.ga4ApiBase}/v1beta/properties/${encodeURIComponent(propertyId)}:runReport`
      const fetchOptions = { allowPrivateTargets: config.allowPrivateTargets, timeoutMs: 15_000 }
      let cached: { readonly token: string; readonly expiresAt: number } | undefined

      const accessToken = Effect.gen(function*() {
        const now = Date.now()
        if (cached !== undefined && cached.expiresAt > now) return cached.token
        const assertion = signAssertion(account, key, tokenUri, Math.floor(now / 1000))
        const response = yield* safeFetch(tokenUri, {
          ...fetchOptions,
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString()
        }).pipe(Effect.mapError((e) => new Ga4Error({ message: `GA4 token endpoint unreachable: ${e.message}` })))
        if (response.status !== 200) {
          return yield* new Ga4Error({ message: googleError(response.status, response.body) })
        }
        const json = yield* Effect.try({
          try: () => JSON.parse(response.body.toString("utf8")) as { access_token?: unknown; expires_in?: unknown },
          catch: () => new Ga4Error({ message: "GA4 token endpoint answered something other than JSON" })
        })
        if (typeof json.access_token !== "string") {
          return yield* new Ga4Error({ message: "GA4 token endpoint gave no access_token" })
        }
        const lifetime = typeof json.expires_in === "number" ? json.expires_in : 3600
        cached = { token: json.access_token, expiresAt: now + Math.max(0, lifetime - 60) * 1000 }
        return json.access_token
      })

      const post = (token: string, request: Ga4ReportRequest) =>
        safeFetch(reportUrl, {
          ...fetchOptions,
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({
            dateRanges: [{ startDate: request.startDate, endDate: request.endDate }],
            metrics: request.metrics.map((name) => ({ name })),
            dimensions: request.dimensions.map((name) => ({ name })),
            limit: String(request.limit)
          })
        }).pipe(Effect.mapError((e) => new Ga4Error({ message: `GA4 Data API unreachable: ${e.message}` })))

      const runReport = (request: Ga4ReportRequest) =>
        Effect.gen(function*() {
          let response = yield* post(yield* accessToken, request)
          if (response.status === 401) {
            // The token was revoked or expired early: one fresh token, one more try.
            cached = undefined
            response = yield* post(yield* accessToken, request)
          }
          if (response.status !== 200) {
            return yield* new Ga4Error({ message: googleError(response.status, response.body) })
          }
          const raw = yield* Effect.try({
            try: () => JSON.parse(response.body.toString("utf8")) as RawReport,
            catch: () => new Ga4Error({ message: "GA4 Data API answered something other than JSON" })
          })
          return readReport(propertyId, raw)
        })

      return Ga4.of({ propertyId: Option.some(propertyId), runReport })
    })
  )
}
