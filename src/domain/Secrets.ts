import { createHash, timingSafeEqual } from "node:crypto"

export const sha256Hex = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex")

/**
 * Constant-time equality of two digests of the same kind (two SHA-256 hex
 * strings: a stored key hash and the presented key's). Their length is fixed
 * by construction and no secret, so the bytes are compared directly; for
 * secrets whose length must not show, use `safeEqual`.
 */
export const sameDigest = (a: string, b: string): boolean =>
  // UTF-16 code units, byte for byte: no two strings share an encoding (as latin1's truncation or UTF-8's lone surrogates would).
  a.length === b.length && timingSafeEqual(Buffer.from(a, "utf16le"), Buffer.from(b, "utf16le"))

/** Constant-time equality of two strings of any length (compares their digests). */
export const safeEqual = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest())
