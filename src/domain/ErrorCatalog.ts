import * as Errors from "./Errors.ts"

/**
 * Every error class's code with the HTTP status it declares
 * (`httpApiStatus`), read from the classes themselves so that no table of
 * statuses can drift from them. Where two classes share a code (the
 * orchestrator's and the payment webhook's E_SIGNATURE_INVALID) the first
 * declared wins.
 */
export const errorStatuses = (): ReadonlyMap<string, number> => {
  const statuses = new Map<string, number>()
  for (const value of Object.values(Errors)) {
    if (typeof value !== "function" || !(value.prototype instanceof Error)) continue
    // Every error class has constructor defaults for all its fields; the constructor's type differs per class.
    const code: unknown = new (value as new(fields: object) => { readonly code?: unknown })({}).code
    const status: unknown = (value as { readonly ast?: { readonly annotations?: { readonly httpApiStatus?: unknown } } }).ast?.annotations
      ?.httpApiStatus
    if (typeof code === "string" && typeof status === "number" && !statuses.has(code)) statuses.set(code, status)
  }
  return statuses
}
