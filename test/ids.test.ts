import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectTypeOf } from "vitest"
import type { Principal } from "../src/api/Security.ts"
import type { ContentPiece } from "../src/domain/Content.ts"
import type { Customer } from "../src/domain/Identity.ts"
import {
  type ContentId,
  CustomerId,
  newContentId,
  newRunId,
  newScanId,
  newWebhookId,
  type RunId
} from "../src/domain/Ids.ts"
import type { ScanResult } from "../src/domain/Scan.ts"
import type { Webhook } from "../src/domain/Webhooks.ts"
import type { WorkflowRun } from "../src/domain/Workflows.ts"
import type { Content } from "../src/features/content/Content.ts"
import type { Customers } from "../src/features/customers/Customers.ts"
import type { Scanner } from "../src/features/scan/Scanner.ts"
import type { Webhooks } from "../src/features/webhooks/Webhooks.ts"
import type { Workflows } from "../src/features/workflows/Workflows.ts"
import { call, testApp } from "./support/harness.ts"
import { tenant } from "./support/processes.ts"

/**
 * Checked by `npm run typecheck` (test files are part of it): each `@ts-expect-error` line must fail to
 * compile, so a service that took plain strings again (or one brand for another) breaks the typecheck.
 * Never called: only its types matter.
 */
export const swappedIdsDoNotCompile = (
  services: {
    readonly content: Content["Service"]
    readonly customers: Customers["Service"]
    readonly workflows: Workflows["Service"]
    readonly scanner: Scanner["Service"]
    readonly webhooks: Webhooks["Service"]
  },
  ids: { readonly customerId: CustomerId; readonly contentId: ContentId; readonly runId: RunId }
) => {
  const { content, customers, scanner, webhooks, workflows } = services
  const { contentId, customerId, runId } = ids
  content.get(customerId, contentId)
  // @ts-expect-error a content id where the customer id belongs, and the other way round
  content.get(contentId, customerId)
  // @ts-expect-error a plain string is no content id
  content.get(customerId, "cnt_0")
  // @ts-expect-error a plain string is no customer id
  customers.get("00000000-0000-4000-8000-000000000000")
  // @ts-expect-error a content id is no run id
  workflows.getRun(customerId, contentId)
  // @ts-expect-error a run id is no scan id
  scanner.get(customerId, runId)
  // @ts-expect-error a content id is no webhook id
  webhooks.remove(customerId, contentId)
  // @ts-expect-error a customer id is no content id
  content.ofRun(customerId, customerId)
}

describe("branded ids (types)", () => {
  it("answers and principals carry the brand of what they name", () => {
    expectTypeOf<Customer["id"]>().toEqualTypeOf<CustomerId>()
    expectTypeOf<Principal["customerId"]>().toEqualTypeOf<CustomerId>()
    expectTypeOf<ContentPiece["id"]>().toEqualTypeOf<ContentId>()
    expectTypeOf<ContentPiece["runId"]>().toEqualTypeOf<RunId | null>()
    expectTypeOf<WorkflowRun["runId"]>().toEqualTypeOf<RunId>()
    expectTypeOf<ScanResult["scanId"]>().toEqualTypeOf<ReturnType<typeof newScanId>>()
    expectTypeOf<Webhook["id"]>().toEqualTypeOf<ReturnType<typeof newWebhookId>>()
    expectTypeOf<ContentId>().not.toEqualTypeOf<CustomerId>()
    expectTypeOf<string>().not.toExtend<CustomerId>()
    // Branded ids are still text wherever text is taken (SQL parameters, logs, JSON).
    expectTypeOf<CustomerId>().toExtend<string>()
  })

  it("minted ids keep the shapes ids have always had", () => {
    assert.match(newContentId(), /^cnt_[0-9a-f]{32}$/)
    assert.match(newRunId(), /^run_[0-9a-f]{32}$/)
    assert.match(newScanId(), /^scan_[0-9a-f]{24}$/)
    assert.match(newWebhookId(), /^wh_[0-9a-f]{24}$/)
    // A brand adds no check: any text is the id it is said to be.
    assert.strictEqual(CustomerId.make("any text"), "any text")
  })
})

layer(testApp(), { timeout: 60_000 })("branded ids over HTTP", (it) => {
  it.effect("the API takes and answers the same ids as before: shapes, case of the customer id, unknown ids", () =>
    Effect.gen(function*() {
      const t = yield* tenant()
      assert.match(t.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)

      // The path's customer id is case-insensitive and answered in lower case.
      const customer = yield* call("GET", `/api/customer/${t.id.toUpperCase()}`, { headers: t.h })
      assert.strictEqual(customer.status, 200, customer.text)
      assert.strictEqual(customer.json.id, t.id)

      const created = yield* call("POST", `/api/content/${t.id}`, { headers: t.h, body: { type: "blog", body: "B" } })
      assert.strictEqual(created.status, 200, created.text)
      assert.match(created.json.id, /^cnt_[0-9a-f]{32}$/)
      const read = yield* call("GET", `/api/content/${t.id}/${created.json.id}`, { headers: t.h })
      assert.deepStrictEqual(read.json, created.json)

      // Path ids still take any text: one that names nothing is 404, never 400.
      for (const id of ["nothing", "%20x", "cnt_%00", t.id]) {
        const missing = yield* call("GET", `/api/content/${t.id}/${id}`, { headers: t.h })
        assert.strictEqual(missing.status, 404, `${id}: ${missing.text}`)
        assert.strictEqual(missing.json.code, "E_NOT_FOUND")
        assert.strictEqual(missing.json.error, "Content not found")
      }
      for (const path of [`/api/runs/${t.id}/nothing`, `/api/scan/${t.id}/nothing`]) {
        const missing = yield* call("GET", path, { headers: t.h })
        assert.strictEqual(missing.status, 404, `${path}: ${missing.text}`)
      }
      const noHook = yield* call("DELETE", `/api/hooks/${t.id}/nothing`, { headers: t.h })
      assert.strictEqual(noHook.status, 404, noHook.text)

      const run = yield* call("POST", `/api/workflows/${t.id}/performance-report/run`, { headers: t.h, body: {} })
      assert.strictEqual(run.status, 200, run.text)
      assert.match(run.json.runId, /^run_[0-9a-f]{32}$/)
      const got = yield* call("GET", `/api/runs/${t.id}/${run.json.runId}`, { headers: t.h })
      assert.strictEqual(got.status, 200, got.text)
      assert.strictEqual(got.json.runId, run.json.runId)

      const hook = yield* call("POST", `/api/hooks/${t.id}`, {
        headers: t.h,
        body: { url: "http://127.0.0.1:9/hook", events: ["team.invited"] }
      })
      assert.strictEqual(hook.status, 200, hook.text)
      assert.match(hook.json.id, /^wh_[0-9a-f]{24}$/)
      const hooks = yield* call("GET", `/api/hooks/${t.id}`, { headers: t.h })
      assert.deepStrictEqual(hooks.json.hooks.map((w: { id: string }) => w.id), [hook.json.id])
    }))
})
