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
  for (const [method, path] of allRoutes()) add(method, path as `/${string}`)
  return router
}

let table: FindMyWay.Router<true> | undefined
/** Every literal segment of every route, in lower case (the router matches them in any case). */
let literals: ReadonlySet<string> | undefined

/** Method and path of every route the server answers. */
export const allRoutes = (): Array<readonly [string, string]> => [
  ...Object.values(Api.groups).flatMap((group) =>
    Object.values(group.endpoints).map((endpoint) => [endpoint.method, endpoint.path] as const)
  ),
  ...extraRoutes
]

/** A segment that can only fill a parameter whatever the router makes of special characters. */
const plainSegment = /^[A-Za-z0-9_-]+$/

/**
 * A path with each plain segment that names no literal replaced by `:`.
 * Paths of one shape answer the same methods (such a segment can only go down
 * a parameter edge), so the cache holds shapes, not ids: a busy server sees
 * few shapes but as many paths as it has customers.
 */
const shapeOf = (path: string): string => {
  literals ??= new Set(allRoutes().flatMap(([, route]) => route.split("/").filter((s) => !s.startsWith(":")).map((s) => s.toLowerCase())))
  const segments = path.split("/")
  for (let i = 0; i < segments.length; i++) {
    if (plainSegment.test(segments[i]) && !literals.has(segments[i].toLowerCase())) segments[i] = ":"
  }
  return segments.join("/")
}

/** Answers by shape; bounded, since unknown shapes are unbounded (scanners, fuzzers). */
const cache = new Map<string, ReadonlyArray<string>>()
const cacheLimit = 2_000

/** The methods a path answers to; empty for an unknown path. */
export const allowedMethods = (url: string): ReadonlyArray<string> => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  // A path of literals only is its own shape: found without splitting it.
  const cached = cache.get(path)
  if (cached !== undefined) return cached
  const shape = shapeOf(path)
  const known = cache.get(shape)
  if (known !== undefined) return known
  table ??= build()
  const allowed: Array<string> = methods.filter((method) => table!.find(method, shape) !== undefined)
  if (allowed.includes("GET")) allowed.splice(1, 0, "HEAD")
  if (cache.size >= cacheLimit) cache.clear()
  cache.set(shape, allowed)
  return allowed
}
