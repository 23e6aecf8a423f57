import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"

/**
 * Stored `Idempotency-Key` replays may reveal a secret (a new API key, a
 * webhook secret). They are sealed with AES-256-GCM under a key derived from
 * the Idempotency-Key itself, which is stored only as a digest, and from a
 * server secret: the database alone cannot open them, the client that holds
 * its key can have its answer again.
 */
const deriveKey = (idempotencyKey: string, serverSecret: string, scope: string): Buffer =>
  Buffer.from(
    hkdfSync(
      "sha256",
      Buffer.from(idempotencyKey, "utf8"),
      Buffer.from(serverSecret, "utf8"),
      `herald replay ${scope}`,
      32
    )
  )

/** `v1.` + base64url(iv ‖ tag ‖ ciphertext). */
export const sealReplay = (plaintext: string, idempotencyKey: string, serverSecret: string, scope: string): string => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", deriveKey(idempotencyKey, serverSecret, scope), iv)
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`
}

/** The plaintext, or undefined when the seal is not one this key and scope made. */
export const openReplay = (
  sealed: string,
  idempotencyKey: string,
  serverSecret: string,
  scope: string
): string | undefined => {
  if (!sealed.startsWith("v1.")) return undefined
  const raw = Buffer.from(sealed.slice(3), "base64url")
  if (raw.length < 28) return undefined
  try {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      deriveKey(idempotencyKey, serverSecret, scope),
      raw.subarray(0, 12)
    )
    decipher.setAuthTag(raw.subarray(12, 28))
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])])
    )
  }
  return value
}

/**
 * The request body as it is meant, so that key order and spacing do not make
 * a retry "another body". No body and `null` are the empty object, as the
 * endpoints that take one treat them (no other endpoint succeeds on any of
 * the three, so none of them is ever kept there). Text that is not JSON (or
 * nests too deep to walk) compares as sent.
 */
export const canonicalBody = (text: string): string => {
  if (text.trim() === "") return "{}"
  try {
    const value = JSON.parse(text)
    return value === null ? "{}" : JSON.stringify(sortKeys(value))
  } catch {
    return text
  }
}
