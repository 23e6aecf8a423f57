import { createHash, timingSafeEqual } from "node:crypto"

export const sha256Hex = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex")

/** Constant-time equality of two strings of any length (compares their digests). */
export const safeEqual = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest())
