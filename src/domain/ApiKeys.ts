import { randomBytes } from "node:crypto"
import { sha256Hex } from "./Secrets.ts"

/** A new key: prefix + 64 lowercase hex characters (32 random bytes). */
export const generateApiKey = (prefix: string): string => prefix + randomBytes(32).toString("hex")

const hex64 = /^[0-9a-f]{64}$/

/** Whether `key` has the shape of one of our keys; checked before any lookup. */
export const isWellFormedKey = (prefix: string, key: string): boolean =>
  key.length === prefix.length + 64 && key.startsWith(prefix) && hex64.test(key.slice(prefix.length))

/** Keys are stored and looked up only by this digest. */
export const hashApiKey = (key: string): string => sha256Hex(key)

export type BearerParse =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Malformed" }
  | { readonly _tag: "Key"; readonly key: string }

/** Reads `Authorization: Bearer <key>`; never throws, whatever the header holds. */
export const parseBearer = (header: string | undefined): BearerParse => {
  if (header === undefined || header.length === 0) return { _tag: "Missing" }
  const match = /^Bearer +(\S+) *$/i.exec(header)
  return match === null ? { _tag: "Malformed" } : { _tag: "Key", key: match[1] }
}
