import * as FindMyWay from "effect/http/FindMyWay"
import { Api } from "../../api/Api.ts"
import { NoStore } from "../../api/Shared.ts"

/** What the HTTP core needs to know of a route beyond its method and path. */
export interface RouteOptions {
  /** Its answers carry a key or secret: `Cache-Control: no-store` on every response. */
  readonly noStore?: boolean
}

/**
 * Routes served outside the HttpApi definition (discovery files, pages, MCP
 * transports). Together with the Api they let the core middleware tell an
 * unknown path (404) from a known path with the wrong method (405). A route
 * that shows a key or secret adds `{ noStore: true }`.
 */
export const extraRoutes: Array<readonly [method: string, path: `/${string}`, options?: RouteOptions]> = [
  ["GET", "/openapi.json"],
  ["GET", "/.well-known/oauth-protected-resource"],
  ["GET", "/connect/sandbox"],
  ["POST", "/connect/sandbox"],
  ["GET", "/p/:contentId"],
  ["GET", "/r/:code"],
  // Sign-up pages and their assets (src/features/billing/pages.ts, src/features/pages/Assets.ts)
  ["GET", "/assets/herald.css"],
  ["GET", "/assets/signup.js"],
  ["GET", "/assets/copy.js"],
  ["GET", "/assets/home.js"],
  // Pages for people and crawlers (src/features/pages)
  ["GET", "/status"],
  ["GET", "/robots.txt"],
  ["GET", "/checkout/:sessionId"],
  ["POST", "/checkout/:sessionId"],
  ["GET", "/checkout/:sessionId/success"],
  // The signed-in dashboard (src/features/dashboard/pages.ts)
  ["GET", "/dashboard"],
  ["POST", "/dashboard"],
  ["POST", "/dashboard/sign-out"],
  ["POST", "/dashboard/content/:contentId/review"],
  ["POST", "/dashboard/settings/autonomy"],
  ["POST", "/dashboard/settings/budget"],
  ["POST", "/dashboard/team/invite"],
  ["POST", "/dashboard/webhooks/:webhookId/recover"],
  // Capabilities' dashboard sections (src/features/*/dashboard.ts)
  ["POST", "/dashboard/workflows/:workflowId/toggle"],
  ["POST", "/dashboard/social/connect"],
  ["POST", "/dashboard/social/publish"],
  // Discovery documents and the home page (src/features/discovery)
  ["GET", "/"],
  ["GET", "/.well-known/mcp/server-card.json"],
  ["GET", "/.well-known/mcp/server-card"],
  ["GET", "/mcp/server-card"],
  ["GET", "/.well-known/agent.json"],
  ["GET", "/.well-known/agent-card.json"],
  ["GET", "/.well-known/api-catalog"],
  ["GET", "/llms.txt"],
  ["GET", "/index.md"],
  ["GET", "/sitemap.xml"],
  // MCP transports (src/features/mcp)
  ["GET", "/mcp/sse"],
  ["POST", "/mcp/message"],
  ["GET", "/mcp"],
  ["POST", "/mcp"],
  ["DELETE", "/mcp"],
  // The orchestrator signs the raw body: a router route (src/features/workflows/Orchestrator.ts).
  ["GET", "/api/orchestrator"],
  ["PUT", "/api/orchestrator"],
  ["POST", "/api/orchestrator"],
  // OAuth: Herald as the authorization server of its MCP endpoints (src/features/oauth)
  ["GET", "/.well-known/oauth-protected-resource/mcp"],
  ["GET", "/.well-known/oauth-authorization-server"],
  ["GET", "/oauth/authorize"],
  ["POST", "/oauth/authorize"],
  ["POST", "/oauth/token", { noStore: true }],
  ["OPTIONS", "/oauth/token"],
  ["POST", "/oauth/register", { noStore: true }],
  ["OPTIONS", "/oauth/register"],
  ["POST", "/oauth/revoke"],
  ["OPTIONS", "/oauth/revoke"],
  ["POST", "/dashboard/apps/:grantId/revoke"],
  // The API reference (src/features/docs)
  ["GET", "/docs"],
  ["GET", "/docs/assets/:file"]
]

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

const build = () => {
  const router = FindMyWay.make<RouteOptions>({ ignoreTrailingSlash: true })
  for (const [method, path, options] of allRoutes()) router.on(method, path as `/${string}`, options ?? {})
  return router
}

let table: FindMyWay.Router<RouteOptions> | undefined
/** Every literal segment of every route, in lower case (the router matches them in any case). */
let literals: ReadonlySet<string> | undefined

/** Method, path and options of every route the server answers. */
export const allRoutes = (): Array<readonly [string, string, RouteOptions?]> => [
  ...Object.values(Api.groups).flatMap((group) =>
    Object.values(group.endpoints).map((endpoint) =>
      [endpoint.method, endpoint.path, { noStore: endpoint.annotations.mapUnsafe.get(NoStore.key) === true }] as const
    )
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
  literals ??= new Set(
    allRoutes().flatMap(([, route]) => route.split("/").filter((s) => !s.startsWith(":")).map((s) => s.toLowerCase()))
  )
  const segments = path.split("/")
  for (let i = 0; i < segments.length; i++) {
    if (plainSegment.test(segments[i]) && !literals.has(segments[i].toLowerCase())) segments[i] = ":"
  }
  return segments.join("/")
}

/** What a path answers: its methods (empty for an unknown path) and those whose answers must not be stored. */
export interface RouteFacts {
  readonly allowed: ReadonlyArray<string>
  readonly noStore: ReadonlyArray<string>
}

/** Answers by shape; bounded, since unknown shapes are unbounded (scanners, fuzzers). */
const cache = new Map<string, RouteFacts>()
const cacheLimit = 2_000

/** The methods a path answers to and which of them are `no-store`. */
export const routeFacts = (url: string): RouteFacts => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  // A path of literals only is its own shape: found without splitting it.
  const cached = cache.get(path)
  if (cached !== undefined) return cached
  const shape = shapeOf(path)
  const known = cache.get(shape)
  if (known !== undefined) return known
  table ??= build()
  const allowed: Array<string> = []
  const noStore: Array<string> = []
  for (const method of methods) {
    const found = table.find(method, shape)
    if (found === undefined) continue
    allowed.push(method)
    if (found.handler.noStore === true) noStore.push(method)
  }
  if (allowed.includes("GET")) allowed.splice(1, 0, "HEAD")
  if (cache.size >= cacheLimit) cache.clear()
  const facts = { allowed, noStore }
  cache.set(shape, facts)
  return facts
}

/** The methods a path answers to; empty for an unknown path. */
export const allowedMethods = (url: string): ReadonlyArray<string> => routeFacts(url).allowed
