import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Redacted, Schema, Stream } from "effect"
import { Chat, LanguageModel, Tool, Toolkit } from "effect/ai"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../src/Config.ts"
import { ModelBilling, Writer } from "../src/features/agent/Agent.ts"
import { makeOpenAiModel } from "../src/features/agent/OpenAiModel.ts"
import { Customers } from "../src/features/customers/Customers.ts"
import { Settings } from "../src/features/settings/Settings.ts"
import { startOpenAiServer } from "./support/openai-server.ts"
import { testServices } from "./support/services.ts"

const LookupBrand = Tool.make("lookup_brand", {
  description: "Look up a brand's profile",
  parameters: Schema.Struct({ name: Schema.String }),
  success: Schema.Struct({ name: Schema.String, voice: Schema.String })
})
const Tools = Toolkit.make(LookupBrand)
const lookups: Array<string> = []
const ToolsLive = Tools.toLayer(Tools.of({
  lookup_brand: ({ name }) =>
    Effect.sync(() => {
      lookups.push(name)
      return { name, voice: "friendly" }
    })
}))

// Prices per million tokens: 1,000,000 input tokens cost 2, output 8.
const prices = { llmPriceInput: 2, llmPriceOutput: 8 }

layer(testServices, { timeout: 60_000 })("openai-compatible provider against a local protocol server", (it) => {
  const setup = Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(Effect.promise(startOpenAiServer), (s) => Effect.promise(s.close))
    const config = yield* AppConfig
    const model = yield* makeOpenAiModel({
      ...config,
      llmBaseUrl: server.url,
      llmApiKey: Option.some(Redacted.make("sk-test-123")),
      llmModel: "test-model",
      llmMaxOutputTokens: 100,
      llmTimeoutMs: 10_000,
      ...prices
    })
    const { customer } = yield* (yield* Customers).provision({ email: `m-${Math.random()}@x.co` })
    return { server, model, customerId: customer.id }
  })

  const ledger = (customerId: string) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<
        { channel: string; amount: string }
      >`SELECT channel, amount::text AS amount FROM spend_ledger WHERE customer_id = ${customerId} ORDER BY id`
      return rows.map((r) => [r.channel, Number(r.amount)] as const)
    })

  it.effect("streams deltas, prices the reported usage to the model channel, sends key and model", () =>
    Effect.gen(function*() {
      const { server, model, customerId } = yield* setup
      server.script({ kind: "text", chunks: ["Launch ", "day ", "is here."], usage: { prompt: 1000, completion: 500 } })
      const parts = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "Write a tweet about launch day" }))
        .pipe(
          Effect.provideService(LanguageModel.LanguageModel, model),
          Effect.provideService(ModelBilling, { customerId })
        )
      const deltas = parts.filter((p) => p.type === "text-delta").map((p) => (p as any).delta)
      assert.deepStrictEqual(deltas, ["Launch ", "day ", "is here."])
      const finish = parts.find((p) => p.type === "finish") as any
      assert.strictEqual(finish.usage.inputTokens.total, 1000)
      assert.strictEqual(finish.usage.outputTokens.total, 500)
      assert.strictEqual(server.requests[0]!.model, "test-model")
      assert.strictEqual(server.requests[0]!.stream, true)
      assert.strictEqual(server.authorizations[0], "Bearer sk-test-123")
      // 1000 * 2 / 1e6 + 500 * 8 / 1e6 = 0.006
      assert.deepStrictEqual(yield* ledger(customerId), [["model", 0.006]])
    }))

  it.effect("a tool call round trip: fragments assembled, the tool runs, its result goes back as a tool message", () =>
    Effect.gen(function*() {
      const { server, model, customerId } = yield* setup
      server.script(
        {
          kind: "tool",
          name: "lookup_brand",
          argumentFragments: ["{\"na", "me\": \"Ac", "me\"}"],
          usage: { prompt: 50, completion: 10 }
        },
        { kind: "text", chunks: ["Acme sounds ", "friendly."], usage: { prompt: 80, completion: 5 } }
      )
      const chat = yield* Chat.fromPrompt([{ role: "user", content: "What is Acme's voice?" }])
      const turn = chat.generateText({ prompt: [], toolkit: Tools }).pipe(
        Effect.provide(ToolsLive),
        Effect.provideService(LanguageModel.LanguageModel, model),
        Effect.provideService(ModelBilling, { customerId })
      )
      const first = yield* turn
      assert.deepStrictEqual(first.toolCalls.map((c) => [c.name, c.params]), [["lookup_brand", { name: "Acme" }]])
      assert.deepStrictEqual(lookups, ["Acme"])
      const second = yield* turn
      assert.strictEqual(second.text, "Acme sounds friendly.")
      assert.strictEqual(server.requests[0]!.tools[0].function.name, "lookup_brand")
      assert.strictEqual(server.requests[0]!.tools[0].function.parameters.type, "object")
      const messages = server.requests[1]!.messages as Array<any>
      const call = messages.find((m) => m.role === "assistant")
      assert.strictEqual(call.tool_calls[0].function.name, "lookup_brand")
      const tool = messages.find((m) => m.role === "tool")
      assert.strictEqual(tool.tool_call_id, call.tool_calls[0].id)
      assert.deepStrictEqual(JSON.parse(tool.content), { name: "Acme", voice: "friendly" })
      assert.strictEqual((yield* ledger(customerId)).length, 2)
    }))

  it.effect("an error mid-stream fails the call after the deltas already sent; a dropped connection too", () =>
    Effect.gen(function*() {
      const { server, model, customerId } = yield* setup
      const run = () => {
        const seen: Array<string> = []
        return LanguageModel.streamText({ prompt: "hello" }).pipe(
          Stream.runForEach((p) => Effect.sync(() => p.type === "text-delta" && seen.push(p.delta))),
          Effect.provideService(LanguageModel.LanguageModel, model),
          Effect.provideService(ModelBilling, { customerId }),
          Effect.exit,
          Effect.map((exit) => ({ exit, seen }))
        )
      }
      server.script({ kind: "error-event", chunks: ["Half a "], message: "model overloaded" })
      const errored = yield* run()
      assert.isTrue(Exit.isFailure(errored.exit))
      assert.deepStrictEqual(errored.seen, ["Half a "])
      assert.include(String(Exit.isFailure(errored.exit) && errored.exit.cause), "overloaded")
      server.script({ kind: "drop", chunks: ["Half "] })
      const dropped = yield* run()
      assert.isTrue(Exit.isFailure(dropped.exit))
      assert.deepStrictEqual(dropped.seen, ["Half "])
      server.script({ kind: "status", status: 500, message: "boom" })
      const failed = yield* run()
      assert.isTrue(Exit.isFailure(failed.exit))
    }))

  it.effect("a call whose worst case would pass the model cap is refused and never sent", () =>
    Effect.gen(function*() {
      const { server, model, customerId } = yield* setup
      // The worst case of one call: at least 100 output tokens * 8 / 1e6 = 0.0008.
      yield* (yield* Settings).updateBudget(customerId, { channels: { model: 0.0005 } })
      server.script({ kind: "text", chunks: ["never"], usage: { prompt: 1, completion: 1 } })
      const exit = yield* LanguageModel.generateText({ prompt: "Write" }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model),
        Effect.provideService(ModelBilling, { customerId }),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(server.requests.length, 0)
      assert.deepStrictEqual(yield* ledger(customerId), [])
      // The Writer turns the refusal into BudgetExceeded (a workflow run suspends on it).
      const writer = yield* Writer.pipe(
        Effect.provide(Layer.fresh(Writer.layer).pipe(Layer.provide(Layer.succeed(LanguageModel.LanguageModel, model))))
      )
      const refused = yield* Effect.flip(
        writer.write(customerId, { brandName: "Acme" }, { kind: "social", platform: "x", topic: "launch" })
      )
      assert.strictEqual(refused._tag, "BudgetExceeded")
      assert.strictEqual(server.requests.length, 0)
      // With room under the cap, the call goes out and is charged.
      yield* (yield* Settings).updateBudget(customerId, { channels: { model: 1 } })
      server.script({ kind: "text", chunks: ["Title\n\nBody text"], usage: { prompt: 10, completion: 10 } })
      const written = yield* writer.write(customerId, { brandName: "Acme" }, {
        kind: "social",
        platform: "x",
        topic: "launch"
      })
      assert.deepStrictEqual(written, { title: "Title", body: "Body text" })
      assert.deepStrictEqual(yield* ledger(customerId), [["model", 0.0001]])
    }))
})
