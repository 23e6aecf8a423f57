import { Context, Effect, Layer } from "effect"
import { FindMyWay, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

/** A route as the server runs it: its handler, with the route-level middleware already applied. */
export interface TableRoute {
  readonly route: HttpRouter.Route<unknown, unknown>
}

/**
 * Every route of the service, by method and path. Features and the API
 * builder add theirs through the `HttpRouter` service this layer also
 * provides (the same interface effect's router has), and Herald's server
 * (`Server.ts`) looks each request up here and runs the handler itself:
 * effect's router would add its own step, fiber bookkeeping and context
 * copies to every request.
 */
export class RouteTable extends Context.Service<RouteTable, {
  readonly find: (method: string, url: string) => FindMyWay.FindResult<TableRoute> | undefined
  /** The paths of the routes added so far that take no parameter (no `:name`, no wildcard). */
  readonly literalPaths: () => ReadonlyArray<string>
}>()("herald/platform/http/RouteTable") {}

/** The brand effect's router carries (not exported; the same string). */
const routerTypeId = "~effect/http/HttpRouter" as const

const unsupported = (what: string) => () => {
  throw new Error(`${what} is not supported by Herald's route table: apply it in the server or per route`)
}

const toEffect = (
  handler:
    | HttpServerResponse.HttpServerResponse
    | Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown>
    | ((request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse>)
): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown> =>
  HttpServerResponse.isHttpServerResponse(handler)
    ? Effect.succeed(handler)
    : Effect.isEffect(handler)
    ? handler
    : Effect.flatMap(HttpServerRequest.HttpServerRequest, handler)

/** The route table and the `HttpRouter` that fills it (trailing slashes ignored, as the API's paths are matched). */
export const RouteTableLive: Layer.Layer<RouteTable | HttpRouter.HttpRouter> = Layer.effectContext(
  Effect.sync(() => {
    const router = FindMyWay.make<TableRoute>({ ignoreTrailingSlash: true })
    const literalPaths = new Set<string>()
    const addAll = (routes: ReadonlyArray<HttpRouter.Route<any, any>>) =>
      Effect.sync(() => {
        for (const route of routes) {
          if (route.prefix._tag === "Some") unsupported("a prefixed route")()
          const entry: TableRoute = { route }
          const paths = route.path.endsWith("/*") ? [route.path, route.path.slice(0, -2)] : [route.path]
          if (!route.path.includes(":") && !route.path.includes("*")) literalPaths.add(route.path)
          for (const path of paths) {
            if (route.method === "*") router.all(path as FindMyWay.PathInput, entry)
            else router.on(route.method, path as FindMyWay.PathInput, entry)
          }
        }
      })
    const httpRouter = HttpRouter.HttpRouter.of({
      [routerTypeId]: routerTypeId,
      prefixed: unsupported("HttpRouter.prefixed"),
      addAll: addAll as HttpRouter.HttpRouter["addAll"],
      add: ((method, path, handler, options) =>
        addAll([
          HttpRouter.route(method, path, toEffect(handler as never), options)
        ])) as HttpRouter.HttpRouter["add"],
      addGlobalMiddleware: unsupported("global middleware"),
      asHttpEffect: unsupported("HttpRouter.asHttpEffect")
    } as unknown as HttpRouter.HttpRouter)
    return Context.make(HttpRouter.HttpRouter, httpRouter).pipe(
      Context.add(
        RouteTable,
        RouteTable.of({ find: (method, url) => router.find(method, url), literalPaths: () => [...literalPaths] })
      )
    )
  })
)
