import { createHmac } from "node:crypto"
import { safeEqual } from "./Secrets.ts"

/** Seconds a signature's timestamp may differ from now, either way. */
export const signatureTolerance = 300

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` keyed with the signing key's UTF-8 bytes. */
export const signOrchestratorRequest = (key: string, body: string, unixSeconds: number): string =>
  `t=${unixSeconds},v1=${createHmac("sha256", key).update(`${unixSeconds}.${body}`).digest("hex")}`

/**
 * Whether an `X-Orchestrator-Signature` header is valid for `body` at `nowSeconds`:
 * a timestamp within the tolerance and at least one `v1` matching (compared in
 * constant time). Anything malformed is simply invalid.
 */
export const verifyOrchestratorSignature = (
  header: string | undefined,
  body: string,
  key: string,
  nowSeconds: number
): boolean => {
  if (header === undefined || header.length > 2048 || key.length === 0) return false
  let timestamp: string | undefined
  const signatures: Array<string> = []
  for (const part of header.split(",")) {
    const eq = part.indexOf("=")
    if (eq < 0) continue
    const name = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (name === "t") timestamp = value
    else if (name === "v1") signatures.push(value.toLowerCase())
  }
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0) return false
  if (Math.abs(nowSeconds - Number(timestamp)) > signatureTolerance) return false
  const expected = createHmac("sha256", key).update(`${timestamp}.${body}`).digest("hex")
  return signatures.some((candidate) => /^[0-9a-f]{64}$/.test(candidate) && safeEqual(candidate, expected))
}
