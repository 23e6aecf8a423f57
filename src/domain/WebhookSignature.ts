import { createHmac, randomBytes } from "node:crypto"
import { safeEqual } from "./Secrets.ts"

/**
 * Webhook signing. Two schemes go out on every delivery so receivers can use
 * either: the configured single header (hex HMAC-SHA256 of the raw body keyed with
 * the secret string's UTF-8 bytes, as Stripe keys it) and Standard Webhooks
 * (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the decoded
 * bytes after `whsec_`), which the reference libraries verify unchanged.
 */
const prefix = "whsec_"

/** `whsec_` + base64 of 32 random bytes. */
export const generateSecret = (): string => prefix + randomBytes(32).toString("base64")

/** The Standard Webhooks key: the base64 part after `whsec_`, decoded. */
export const standardKey = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(prefix) ? secret.slice(prefix.length) : secret, "base64")

/** Hex HMAC-SHA256 of the raw body, keyed with the whole secret string. */
export const serviceSignature = (secret: string, body: string): string =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("hex")

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export const standardSignature = (secret: string, id: string, timestamp: number, body: string): string =>
  "v1," + createHmac("sha256", standardKey(secret)).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")

export interface SignedHeaders {
  readonly [name: string]: string
}

/**
 * The headers of one attempt. `secrets` lists the current secret first, then
 * any still-valid previous one: Standard Webhooks carries one signature per
 * secret (space-separated) so a receiver keeps verifying across a rotation;
 * the single-value header carries the current secret's only.
 */
export const signedHeaders = (options: {
  readonly headerName: string
  readonly secrets: readonly [string, ...Array<string>]
  readonly id: string
  readonly timestamp: number
  readonly body: string
}): SignedHeaders => ({
  "content-type": "application/json",
  [options.headerName.toLowerCase()]: serviceSignature(options.secrets[0], options.body),
  "webhook-id": options.id,
  "webhook-timestamp": String(options.timestamp),
  "webhook-signature": options.secrets
    .map((secret) => standardSignature(secret, options.id, options.timestamp, options.body))
    .join(" ")
})

/** Receiver side of the single-value header (used by tests and documentation). */
export const verifyServiceSignature = (secret: string, body: string, header: string | undefined): boolean =>
  header !== undefined && safeEqual(serviceSignature(secret, body), header.trim().toLowerCase())

/**
 * Receiver side of Standard Webhooks: any listed `v1` signature matches and the
 * timestamp is within `toleranceSeconds` of `nowSeconds` (5 minutes by default,
 * as the reference library).
 */
export const verifyStandardSignature = (options: {
  readonly secret: string
  readonly id: string | undefined
  readonly timestamp: string | undefined
  readonly signature: string | undefined
  readonly body: string
  readonly nowSeconds: number
  readonly toleranceSeconds?: number
}): boolean => {
  const { id, signature, timestamp } = options
  if (id === undefined || timestamp === undefined || signature === undefined) return false
  if (!/^\d+$/.test(timestamp)) return false
  const ts = Number(timestamp)
  if (Math.abs(options.nowSeconds - ts) > (options.toleranceSeconds ?? 300)) return false
  const expected = standardSignature(options.secret, id, ts, options.body)
  return signature.split(" ").some((candidate) => safeEqual(candidate, expected))
}
