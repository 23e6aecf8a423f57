import { assert, layer } from "@effect/vitest"
import { Context, Effect } from "effect"
import { Writer } from "../src/features/agent/Agent.ts"
import { TestServer } from "./support/harness.ts"
import { httpClient } from "./support/mcp-clients.ts"
import { appWithModel, ModelServer } from "./support/model-app.ts"
import { provision } from "./support/processes.ts"

interface SseEvent {
  readonly event: string
  readonly data: any
}

/** POSTs a chat message and reads every event of the stream. */
const chat = (customerId: string, key: string, message: string) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    const raw = yield* Effect.promise(async () => {
      const response = await fetch(`${url}/api/chat/${customerId}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ message })
      })
      return response.text()
    })
    return raw.split("\n\n").filter((f) => f.trim().length > 0 && !f.startsWith(":")).map((frame): SseEvent => {
      const lines = frame.split("\n")
      return {
        event: lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "message",
        data: JSON.parse(lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n"))
      }
    })
  })

/** What the customer's model channel was charged, from the ledger. */
const modelSpend = (customerId: string) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    const rows = yield* sql<
      { total: string | null }
    >`SELECT sum(amount)::text AS total FROM spend_ledger WHERE customer_id = ${customerId} AND channel = 'model'`
    return Number(rows[0]?.total ?? 0)
  }).pipe(Effect.orDie)

// Prices of the model app: 10 per million tokens each way.
const cost = (prompt: number, completion: number) => (prompt + completion) * 10 / 1_000_000

layer(appWithModel(), { timeout: 60_000, excludeTestServices: true })(
  "the OpenAI-compatible provider end to end",
  (it) => {
    it.effect("a chat turn: two tools in one turn, arguments split across chunks, run for the caller; the answer streamed; usage charged", () =>
      Effect.gen(function*() {
        const model = yield* ModelServer
        const owner = yield* provision({ email: "e2e-two-tools@x.co" })
        model.script(
          {
            kind: "tools",
            calls: [
              { name: "query_ga4", argumentFragments: ["{\"per", "iod\":\"last_", "30_days\"}"] },
              {
                name: "run_content_creation",
                argumentFragments: ["{\"type\":\"social\",", "\"platform\":\"x\",", "\"topic\":\"Cold brew\"}"]
              }
            ],
            usage: { prompt: 300, completion: 40 }
          },
          { kind: "text", chunks: ["Drafted ", "and checked."], usage: { prompt: 500, completion: 6 } }
        )
        const before = model.requests.length
        const events = yield* chat(owner.customerId, owner.apiKey, "Check last month and draft a tweet on cold brew")
        assert.deepStrictEqual(events.map((e) => e.event), [
          "thread",
          "tool_call",
          "tool_call",
          "tool_result",
          "tool_result",
          "delta",
          "delta",
          "done"
        ])
        assert.deepStrictEqual(events.slice(1, 3).map((e) => e.data), [
          { name: "query_ga4", arguments: { period: "last_30_days" } },
          { name: "run_content_creation", arguments: { type: "social", platform: "x", topic: "Cold brew" } }
        ])
        const piece = events.find((e) =>
          e.event === "tool_result" && e.data.name === "run_content_creation"
        )!.data.result.data
        assert.strictEqual(piece.platform, "x")
        // The second request carries both results (in the order they finished), each under its call's id.
        const followUp = model.requests[before + 1]!.messages as Array<any>
        assert.sameMembers(followUp.filter((m) => m.role === "tool").map((m) => m.tool_call_id), [
          "call_1_0",
          "call_1_1"
        ])
        const tools = model.requests[before]!.tools as Array<any>
        for (const tool of tools) assert.notProperty(tool.function.parameters.properties ?? {}, "customerId")
        assert.closeTo(yield* modelSpend(owner.customerId), cost(300, 40) + cost(500, 6), 1e-9)
      }))

    it.effect("a tool error ends the turn as an error event; the model is not called again", () =>
      Effect.gen(function*() {
        const model = yield* ModelServer
        const owner = yield* provision({ email: "e2e-tool-error@x.co" })
        model.script({
          kind: "tool",
          name: "ai_seo_audit",
          argumentFragments: ["{}"],
          usage: { prompt: 100, completion: 5 }
        })
        const before = model.requests.length
        const events = yield* chat(owner.customerId, owner.apiKey, "audit my site")
        assert.deepStrictEqual(events.map((e) => e.event), ["thread", "tool_call", "error"])
        assert.strictEqual(events[2]!.data.code, "E_VALIDATION")
        assert.match(events[2]!.data.error, /url/)
        assert.strictEqual(model.requests.length, before + 1)
        assert.closeTo(yield* modelSpend(owner.customerId), cost(100, 5), 1e-9)
      }))

    it.effect("a refusal is streamed as the model's answer", () =>
      Effect.gen(function*() {
        const model = yield* ModelServer
        const owner = yield* provision({ email: "e2e-refusal@x.co" })
        model.script({ kind: "refusal", chunks: ["I can't help ", "with that."], usage: { prompt: 50, completion: 4 } })
        const events = yield* chat(owner.customerId, owner.apiKey, "Write something hateful")
        assert.deepStrictEqual(events.map((e) => e.event), ["thread", "delta", "delta", "done"])
        assert.strictEqual(
          events.filter((e) => e.event === "delta").map((e) => e.data.text).join(""),
          "I can't help with that."
        )
      }))

    it.effect("MCP ask_cmo: read-only tools offered without customerId, a tool round, the answer and its calls", () =>
      Effect.gen(function*() {
        const model = yield* ModelServer
        const { url } = yield* TestServer
        const owner = yield* provision({ email: "e2e-cmo@x.co" })
        model.script(
          {
            kind: "tool",
            name: "query_ga4",
            argumentFragments: ["{\"period\":", "\"last_7_days\"}"],
            usage: { prompt: 200, completion: 10 }
          },
          { kind: "text", chunks: ["Post twice ", "a week."], usage: { prompt: 400, completion: 5 } }
        )
        const before = model.requests.length
        const client = yield* httpClient(url, owner.apiKey)
        const result: any = yield* Effect.promise(() =>
          client.callTool({
            name: "ask_cmo",
            arguments: { customerId: owner.customerId, question: "How often should we post?" }
          })
        )
        assert.notStrictEqual(result.isError, true)
        assert.strictEqual(result.structuredContent.answer, "Post twice a week.")
        assert.deepStrictEqual(result.structuredContent.toolCalls.map((c: any) => [c.name, c.params]), [["query_ga4", {
          period: "last_7_days"
        }]])
        const offered = (model.requests[before]!.tools as Array<any>).map((t) => t.function)
        assert.deepStrictEqual(offered.map((f) => f.name), ["query_ga4"])
        assert.notProperty(offered[0].parameters.properties, "customerId")
        assert.closeTo(yield* modelSpend(owner.customerId), cost(200, 10) + cost(400, 5), 1e-9)
      }))

    it.effect("a workflow step's writing: the Writer sends the brief and keeps the title and body the model streams", () =>
      Effect.gen(function*() {
        const model = yield* ModelServer
        const { services } = yield* TestServer
        const owner = yield* provision({ email: "e2e-writer@x.co" })
        model.script({
          kind: "text",
          chunks: ["Cold brew, ", "explained\n\n", "Steep it overnight. ", "#ColdBrew"],
          usage: { prompt: 120, completion: 12 }
        })
        const before = model.requests.length
        const written = yield* Context.get(services, Writer).write(owner.customerId, {
          brandName: "Brewline Coffee Roasters",
          audience: "home coffee brewers"
        }, {
          kind: "social",
          platform: "x",
          topic: "Cold brew"
        })
        assert.deepStrictEqual(written, { title: "Cold brew, explained", body: "Steep it overnight. #ColdBrew" })
        const system = (model.requests[before]!.messages as Array<any>)[0].content as string
        assert.include(system, "Brewline Coffee Roasters")
        assert.include(system, "at most 280 characters")
        assert.closeTo(yield* modelSpend(owner.customerId), cost(120, 12), 1e-9)
      }))
  }
)
