import { generateKeyPairSync, randomBytes, verify } from "node:crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"

/**
 * A local stand-in for Google's two endpoints the GA4 adapter uses, speaking
 * their documented protocols:
 * - the OAuth 2.0 token endpoint with the JWT bearer grant (RFC 7523,
 *   developers.google.com/identity/protocols/oauth2/service-account): a form
 *   POST `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`,
 *   the JWT signed RS256 by the service account's key with claims iss, scope,
 *   aud (= the token URI), iat, exp (at most an hour later); answers
 *   `{access_token, expires_in, token_type: "Bearer"}` or 400 `{error: "invalid_grant", error_description}`;
 * - the Analytics Data API v1beta `POST /v1beta/properties/{id}:runReport`
 *   with `Authorization: Bearer`, answering `{dimensionHeaders, metricHeaders,
 *   rows: [{dimensionValues, metricValues}], rowCount, kind}` or Google's error
 *   body `{error: {code, message, status}}`.
 * The report's figures are a fixed table, so tests can check the numbers.
 */
export interface Ga4Stub {
  readonly url: string
  readonly propertyId: string
  /** The service-account key file to give the app (token_uri points here). */
  readonly credentials: string
  readonly tokensIssued: () => number
  readonly reports: () => ReadonlyArray<Record<string, unknown>>
  /** Revokes every issued token (the next report call answers 401). */
  readonly revokeTokens: () => void
  readonly close: () => Promise<void>
}

/** Daily figures the fake property holds, newest last. */
const days = [
  { date: "20261120", sessionSource: "google", sessions: 120, totalUsers: 90, screenPageViews: 300, conversions: 4 },
  { date: "20261121", sessionSource: "linkedin", sessions: 80, totalUsers: 70, screenPageViews: 150, conversions: 2 },
  { date: "20261122", sessionSource: "google", sessions: 100, totalUsers: 85, screenPageViews: 260, conversions: 3 }
] as const
const knownMetrics = new Set(["sessions", "totalUsers", "screenPageViews", "conversions"])
const knownDimensions = new Set(["date", "sessionSource"])

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

export const startGa4Stub = async (): Promise<Ga4Stub> => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const clientEmail = "herald-test@herald-test.iam.gserviceaccount.com"
  const propertyId = "123456789"
  const tokens = new Set<string>()
  const reports: Array<Record<string, unknown>> = []
  let issued = 0
  let tokenUri = ""

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req)
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(value))
    }
    const grantError = (description: string) => json(400, { error: "invalid_grant", error_description: description })
    const apiError = (code: number, status: string, message: string) => json(code, { error: { code, message, status } })

    if (req.method === "POST" && req.url === "/token") {
      const form = new URLSearchParams(body)
      if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
        return json(400, { error: "unsupported_grant_type", error_description: "Invalid grant_type" })
      }
      const parts = (form.get("assertion") ?? "").split(".")
      if (parts.length !== 3) return grantError("Invalid JWT")
      const header = JSON.parse(Buffer.from(parts[0], "base64url").toString("utf8"))
      const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"))
      if (header.alg !== "RS256") return grantError("Invalid JWT: alg")
      const signed = verify(
        "RSA-SHA256",
        Buffer.from(`${parts[0]}.${parts[1]}`),
        publicKey,
        Buffer.from(parts[2], "base64url")
      )
      if (!signed) return grantError("Invalid JWT Signature.")
      const now = Math.floor(Date.now() / 1000)
      if (claims.iss !== clientEmail) return grantError("Invalid issuer")
      if (claims.aud !== tokenUri) return grantError("Invalid JWT: aud")
      if (claims.scope !== "https://www.googleapis.com/auth/analytics.readonly") return grantError("Invalid scope")
      if (
        typeof claims.iat !== "number" || typeof claims.exp !== "number" || claims.exp <= now ||
        claims.exp - claims.iat > 3600
      ) {
        return grantError("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
      }
      const token = `ya29.${randomBytes(16).toString("hex")}`
      tokens.add(token)
      issued++
      return json(200, { access_token: token, expires_in: 3599, token_type: "Bearer" })
    }

    const match = /^\/v1beta\/properties\/([^/:]+):runReport$/.exec(req.url ?? "")
    if (req.method === "POST" && match !== null) {
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")
      if (auth === null || !tokens.has(auth[1])) {
        return apiError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
      }
      if (decodeURIComponent(match[1]) !== propertyId) {
        return apiError(403, "PERMISSION_DENIED", "User does not have sufficient permissions for this property.")
      }
      const request = JSON.parse(body) as {
        dateRanges?: Array<{ startDate: string; endDate: string }>
        metrics?: Array<{ name: string }>
        dimensions?: Array<{ name: string }>
        limit?: string
      }
      reports.push(request)
      if (!Array.isArray(request.dateRanges) || request.dateRanges.length === 0) {
        return apiError(400, "INVALID_ARGUMENT", "dateRanges is required.")
      }
      const metrics = (request.metrics ?? []).map((m) => m.name)
      const dimensions = (request.dimensions ?? []).map((d) => d.name)
      const unknown = metrics.find((m) => !knownMetrics.has(m)) ?? dimensions.find((d) => !knownDimensions.has(d))
      if (unknown !== undefined) {
        return apiError(
          400,
          "INVALID_ARGUMENT",
          `Field ${unknown} is not a valid metric or dimension. For a list of valid metrics and dimensions, see https://developers.google.com/analytics/devguides/reporting/data/v1/api-schema`
        )
      }
      // Grouped by the requested dimensions, summed.
      const groups = new Map<string, { dims: Array<string>; sums: Array<number> }>()
      for (const day of days) {
        const dims = dimensions.map((d) => String(day[d as keyof typeof day]))
        const key = dims.join("\u0000")
        const group = groups.get(key) ?? { dims, sums: metrics.map(() => 0) }
        metrics.forEach((m, i) => (group.sums[i] += day[m as keyof typeof day] as number))
        groups.set(key, group)
      }
      const rows = [...groups.values()].slice(0, Number(request.limit ?? 10_000))
      return json(200, {
        dimensionHeaders: dimensions.map((name) => ({ name })),
        metricHeaders: metrics.map((name) => ({ name, type: "TYPE_INTEGER" })),
        rows: rows.map((row) => ({
          dimensionValues: row.dims.map((value) => ({ value })),
          metricValues: row.sums.map((value) => ({ value: String(value) }))
        })),
        rowCount: groups.size,
        metadata: { currencyCode: "USD", timeZone: "UTC" },
        kind: "analyticsData#runReport"
      })
    }
    apiError(404, "NOT_FOUND", "Not found")
  })

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
  tokenUri = `${url}/token`
  const credentials = JSON.stringify({
    type: "service_account",
    project_id: "herald-test",
    private_key_id: "key-1",
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: clientEmail,
    client_id: "1",
    token_uri: tokenUri
  })
  return {
    url,
    propertyId,
    credentials,
    tokensIssued: () => issued,
    reports: () => reports,
    revokeTokens: () => tokens.clear(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
