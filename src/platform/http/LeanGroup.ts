import { Context, Effect, Layer, Scope } from "effect"
import { HttpRouter } from "effect/http"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { AdminAuthentication } from "../../api/Admin.ts"
import { Api } from "../../api/Api.ts"
import { PaymentSignature, SignupLimits } from "../../api/Billing.ts"
import { Authentication } from "../../api/Security.ts"
import { compileEndpoint, type HandlerRuntime } from "./CompiledEndpoint.ts"

/** What a group's routes look up in the context it was built in: their security middleware. */
type Middleware = Authentication | AdminAuthentication | SignupLimits | PaymentSignature
const middlewareKeys = [Authentication.key, AdminAuthentication.key, SignupLimits.key, PaymentSignature.key]

/** A group's routes and handlers as HttpApiBuilder keeps them under the group's key. */
interface GroupService {
  readonly routes: Array<HttpRouter.Route<unknown, unknown>>
  readonly handlers: Map<string, unknown>
}

/**
 * HttpApiBuilder's own route maker for one handler. It is exported by the
 * module but left out of its declarations; the group's build uses it too, so
 * these routes are the ones HttpApiBuilder.group would make.
 */
const handlerToRoute = (HttpApiBuilder as unknown as {
  readonly handlerToRoute: (
    api: typeof Api,
    group: unknown,
    handler: unknown,
    context: Context.Context<never>
  ) => HttpRouter.Route<unknown, unknown>
}).handlerToRoute

/**
 * HttpApiBuilder.group keeps the context its layer is built in and merges it
 * into every request's context, a copy of the request's services per request
 * (and a fresh fiber cache). The only things its routes read from that
 * context are their security middleware, and they read them once, while the
 * routes are made. So a group made here is built where only its security
 * middleware is in context, then its routes are made again over a context
 * that is emptied as soon as they are made: per request the merge then finds
 * nothing to add. `make` takes the group's services up front; the types see
 * to it that its handlers need nothing else at request time.
 */
export const leanGroup = <A, E, R extends Middleware, E2, R2>(
  make: Effect.Effect<Layer.Layer<A, E, R>, E2, R2>
): Layer.Layer<A, E | E2, R | Exclude<R2, Scope.Scope>> =>
  Layer.effectContext(Effect.gen(function*() {
    const group = yield* make
    const outer = yield* Effect.context<R>()
    const scope = yield* Scope.Scope
    const kept = new Map<string, unknown>()
    for (const key of middlewareKeys) {
      if (outer.mapUnsafe.has(key)) kept.set(key, outer.mapUnsafe.get(key))
    }
    const built = yield* Layer.buildWithScope(group, scope).pipe(
      Effect.updateContext((_: Context.Context<never>) => Context.makeUnsafe<R>(new Map(kept)))
    )
    for (const apiGroup of Object.values(Api.groups)) {
      const service = built.mapUnsafe.get(apiGroup.key) as GroupService | undefined
      if (service === undefined) continue
      const buildTime = Context.makeUnsafe<never>(new Map(kept))
      const routes = [...service.handlers.values()].map((handler) => {
        const route = handlerToRoute(Api, apiGroup, handler, buildTime)
        const compiled = compileEndpoint(Api, apiGroup, handler as HandlerRuntime, buildTime)
        return compiled === undefined
          ? route
          : HttpRouter.route(route.method as never, route.path, compiled, { uninterruptible: route.uninterruptible })
      })
      ;(buildTime.mapUnsafe as Map<string, unknown>).clear()
      service.routes.splice(0, service.routes.length, ...routes)
    }
    return built
  }))
