import * as FindMyWay from "effect/http/FindMyWay"
import { Api } from "../api/Api.ts"

/**
 * Routes served outside the HttpApi definition (discovery files, pages, MCP
 * transports). Together with the Api they let the core middleware tell an
 * unknown path (404) from a known path with the wrong method (405).
 */
export const extraRoutes: Array<readonly [method: string, path: `/${string}`]> = [
  ["GET", "/openapi.json"],
  ["GET", "/.well-known/oauth-protected-resource"]
]

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

const build = () => {
  const router = FindMyWay.make<true>({ ignoreTrailingSlash: true })
  const add = (method: string, path: `/${string}`) => router.on(method, path, true)
  for (const group of Object.values(Api.groups)) {
    for (const endpoint of Object.values(group.endpoints)) add(endpoint.method, endpoint.path as `/${string}`)
  }
  for (const [method, path] of extraRoutes) add(method, path)
  return router
}

let table: FindMyWay.Router<true> | undefined
/** Answers by path; bounded, since unknown paths are unbounded (scanners, fuzzers). */
const cache = new Map<string, ReadonlyArray<string>>()
const cacheLimit = 2_000

/** The methods a path answers to; empty for an unknown path. */
export const allowedMethods = (url: string): ReadonlyArray<string> => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  const cached = cache.get(path)
  if (cached !== undefined) return cached
  table ??= build()
  const allowed: Array<string> = methods.filter((method) => table!.find(method, path) !== undefined)
  if (allowed.includes("GET")) allowed.splice(1, 0, "HEAD")
  if (cache.size >= cacheLimit) cache.clear()
  cache.set(path, allowed)
  return allowed
}
