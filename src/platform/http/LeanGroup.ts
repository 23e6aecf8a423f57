import { Context, Effect, Layer, Scope } from "effect"
import { AdminAuthentication } from "../../api/Admin.ts"
import { PaymentSignature, SignupLimits } from "../../api/Billing.ts"
import { Authentication } from "../../api/Security.ts"

/** What a group's routes look up in the context it was built in: their security middleware. */
type Middleware = Authentication | AdminAuthentication | SignupLimits | PaymentSignature
const middlewareKeys = [Authentication.key, AdminAuthentication.key, SignupLimits.key, PaymentSignature.key]

/**
 * HttpApiBuilder.group keeps the whole context its layer is built in and
 * merges it into every request's context: a copy of every service of the app
 * per request, the largest single cost of a health check. A group made here is
 * built where only its security middleware is in context, so that merge is a
 * handful of entries (or skipped). `make` takes the group's services up front;
 * the types see to it that its handlers need nothing else at request time.
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
    return yield* Layer.buildWithScope(group, scope).pipe(
      Effect.updateContext((_: Context.Context<never>) => Context.makeUnsafe<R>(kept))
    )
  }))
