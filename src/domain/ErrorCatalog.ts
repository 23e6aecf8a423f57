import * as Errors from "./Errors.ts"

/** One error class: its tag, its code and the HTTP status it declares (`httpApiStatus`). */
export interface ErrorClassFacts {
  readonly tag: string
  readonly code: string
  readonly status: number
}

/**
 * Every error class's tag, code and status, read from the classes themselves
 * so that no table of statuses can drift from them. Ordered by tag length,
 * then tag: a module namespace lists its exports alphabetically under Node
 * (in source order under some loaders), so its order decides nothing.
 */
export const errorClasses = (): ReadonlyArray<ErrorClassFacts> => {
  const found: Array<ErrorClassFacts> = []
  for (const value of Object.values(Errors)) {
    if (typeof value !== "function" || !(value.prototype instanceof Error)) continue
    // Every error class has constructor defaults for all its fields; the constructor's type differs per class.
    const instance = new (value as new(fields: object) => { readonly code?: unknown; readonly _tag?: unknown })({})
    const status: unknown =
      (value as { readonly ast?: { readonly annotations?: { readonly httpApiStatus?: unknown } } }).ast?.annotations
        ?.httpApiStatus
    if (typeof instance.code === "string" && typeof instance._tag === "string" && typeof status === "number") {
      found.push({ tag: instance._tag, code: instance.code, status })
    }
  }
  return found.sort((a, b) => a.tag.length - b.tag.length || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0))
}

/**
 * Every error code with its HTTP status. Where classes share a code, the
 * general class wins: a variant is named by a prefix to the general class's
 * tag (`PaymentSignatureInvalid`, 400 as Stripe expects, beside
 * `SignatureInvalid`, 401), so the shortest tag is the general one.
 */
export const errorStatuses = (): ReadonlyMap<string, number> => {
  const statuses = new Map<string, number>()
  for (const { code, status } of errorClasses()) if (!statuses.has(code)) statuses.set(code, status)
  return statuses
}
