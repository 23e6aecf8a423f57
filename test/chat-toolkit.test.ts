import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { Tool } from "effect/ai"
import { CurrentPrincipal } from "../src/api/Security.ts"
import type { CustomerId } from "../src/domain/Ids.ts"
import { Content } from "../src/features/content/Content.ts"
import { Customers } from "../src/features/customers/Customers.ts"
import { chatToolkit } from "../src/platform/tools/ChatToolkit.ts"
import { ToolsLive } from "../src/Tools.ts"
import { testServices } from "./support/services.ts"
import { specToolNames } from "./support/specTools.ts"

const principalOf = (customerId: CustomerId) => ({
  customerId,
  memberId: null,
  keyId: "key_test",
  role: "owner" as const
})

/** Runs one tool call through the toolkit as the model's tool call would, and returns its result. */
const callTool = (name: string, params: unknown, customerId: CustomerId) =>
  Effect.gen(function*() {
    const { toolkit, layer } = yield* chatToolkit
    const results = yield* Effect.gen(function*() {
      const withHandler = yield* toolkit
      const stream = yield* withHandler.handle(name, params as never)
      return yield* Stream.runCollect(stream)
    }).pipe(Effect.provide(layer), Effect.provideService(CurrentPrincipal, principalOf(customerId)))
    return results.at(-1)! as { readonly isFailure: boolean; readonly result: any }
  })

layer(ToolsLive.pipe(Layer.provideMerge(testServices)), { timeout: 60_000 })(
  "the chat toolkit from the registry",
  (it) => {
    it.effect("offers all twelve tools and runs them with the chat principal, through autonomy", () =>
      Effect.gen(function*() {
        const { toolkit } = yield* chatToolkit
        assert.sameMembers(Object.keys(toolkit.tools), [...specToolNames])
        const customers = yield* Customers
        const { customer } = yield* customers.provision({ email: "chat-toolkit@example.com" })
        const created = yield* callTool("run_content_creation", {
          customerId: customer.id,
          type: "blog",
          topic: "From chat"
        }, customer.id)
        assert.isFalse(created.isFailure)
        const piece = yield* (yield* Content).get(customer.id, created.result.data.id)
        assert.strictEqual(piece.status, "pending_approval")
        assert.strictEqual(piece.agentId, "chat")
      }))

    it.effect("the model is shown no customerId; the session's customer is used whatever the model sends", () =>
      Effect.gen(function*() {
        const { toolkit } = yield* chatToolkit
        for (const tool of Object.values(toolkit.tools)) {
          const schema = Tool.getJsonSchema(tool) as {
            properties?: Record<string, unknown>
            required?: ReadonlyArray<string>
          }
          assert.notProperty(schema.properties ?? {}, "customerId", tool.name)
          assert.notInclude(schema.required ?? [], "customerId", tool.name)
          assert.notInclude(tool.description ?? "", "Pass the customerId", tool.name)
        }
        const customers = yield* Customers
        const { customer: a } = yield* customers.provision({ email: "chat-a@example.com" })
        const { customer: b } = yield* customers.provision({ email: "chat-b@example.com" })
        const created = yield* callTool(
          "run_content_creation",
          { customerId: b.id, type: "blog", topic: "Not theirs" },
          a.id
        )
        assert.isFalse(created.isFailure)
        const content = yield* Content
        // Content.get reads within the customer: the piece is the caller's.
        assert.strictEqual((yield* content.get(a.id, created.result.data.id)).title, "Not theirs")
        const figures = yield* callTool("query_ga4", {}, a.id)
        assert.isFalse(figures.isFailure)
      }))

    it.effect("a missing or wrong argument is a short refusal naming it, as plain {code, message}", () =>
      Effect.gen(function*() {
        const customers = yield* Customers
        const { customer } = yield* customers.provision({ email: "chat-bad-args@example.com" })
        for (const params of [{}, "not an object", { url: 42 }]) {
          const refused = yield* callTool("ai_seo_audit", params, customer.id)
          assert.isTrue(refused.isFailure)
          assert.deepStrictEqual(Object.keys(refused.result).sort(), ["code", "message"])
          assert.strictEqual(refused.result.code, "E_VALIDATION")
          assert.match(refused.result.message, /url/)
        }
      }))
  }
)
