import { assert, describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"
import { AdminAuthentication } from "../src/api/Admin.ts"
import { Api } from "../src/api/Api.ts"
import { PaymentSignature, SignupLimits } from "../src/api/Billing.ts"
import { Authentication } from "../src/api/Security.ts"
import { compileEndpoint } from "../src/platform/http/CompiledEndpoint.ts"

/** Stand-ins for the security middleware: each scheme passes the handler through. */
const passThrough = new Proxy({}, { get: () => (handler: unknown) => handler })
const middlewares = Context.makeUnsafe<never>(
  new Map([Authentication.key, AdminAuthentication.key, SignupLimits.key, PaymentSignature.key].map((key) => [
    key,
    passThrough
  ]))
)

describe("compiled endpoints", () => {
  it("every endpoint takes the compiled path but those answering HTML, images or streams, or reading a raw body", () => {
    const kept: Array<string> = []
    let compiled = 0
    for (const group of Object.values(Api.groups)) {
      for (const endpoint of Object.values(group.endpoints)) {
        const route = compileEndpoint(Api, group, {
          endpoint,
          handler: () => Effect.void,
          isRaw: false,
          uninterruptible: false
        }, middlewares)
        if (route === undefined) kept.push(`${endpoint.method} ${endpoint.path}`)
        else compiled++
      }
    }
    assert.deepStrictEqual(kept.sort(), [
      "GET /api/dashboard/:customerId",
      "GET /api/scan/:customerId/:scanId/screenshot.png",
      "GET /api/session/:sessionId",
      "POST /api/chat/:customerId",
      "POST /api/checkout",
      "POST /api/webhooks/payment"
    ])
    assert.isAtLeast(compiled, 60)
  })

  it("a raw handler keeps HttpApiBuilder's route", () => {
    const endpoint = Api.groups.health.endpoints.health as unknown as HttpApiEndpoint.Top
    const route = compileEndpoint(Api, Api.groups.health, {
      endpoint,
      handler: () => Effect.void,
      isRaw: true,
      uninterruptible: false
    }, middlewares)
    assert.isUndefined(route)
  })
})
