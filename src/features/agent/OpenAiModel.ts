// dprint-ignore-file: dprint-plugin-typescript 0.96 does not reach a fixed point on this file (it formats it differently on every pass)
import { Context, Effect, Option, Redacted, Stream } from "effect"
import { AiError, LanguageModel, Prompt, Response, Tool } from "effect/ai"
import type OpenAI from "openai"
import type { AppConfigShape } from "../../Config.ts"
import type { BudgetExceeded } from "../../domain/Errors.ts"
import { charLength } from "../../domain/Text.ts"
import { Budget } from "../settings/Budget.ts"
import type { CustomerId } from "../../domain/Ids.ts"

/**
 * Whose budget pays for a model call. Callers acting for a customer (a
 * workflow step, a chat turn, an MCP tool) wrap the call in
 * `Effect.provideService(ModelBilling, { customerId })`; without it nothing is
 * charged (the house model is free anyway).
 */
export const ModelBilling = Context.Reference<{ readonly customerId: CustomerId | undefined }>("herald/features/agent/ModelBilling", {
  defaultValue: () => ({ customerId: undefined })
})

/** Marks the AiError of a call refused by the budget, so callers can tell it from a provider failure. */
export const budgetRefusal = "herald.budget"

export const isBudgetRefusal = (error: AiError.AiError): boolean =>
  error.reason._tag === "QuotaExhaustedError" && error.reason.metadata[budgetRefusal] !== undefined

export const budgetReason = (error: AiError.AiError): string =>
  error.reason._tag === "QuotaExhaustedError" ? String(error.reason.metadata[budgetRefusal] ?? "") : ""

export interface Prices {
  /** Currency units per million input tokens. */
  readonly input: number
  /** Currency units per million output tokens. */
  readonly output: number
}

/** The cost of a call's tokens, rounded to micro-units as the ledger keeps them. */
export const costOf = (prices: Prices, inputTokens: number, outputTokens: number): number =>
  Math.round((inputTokens * prices.input + outputTokens * prices.output)) / 1_000_000

/** An upper estimate of a prompt's tokens: one per three characters, plus a few per message. */
export const estimateTokens = (messages: ReadonlyArray<unknown>): number =>
  messages.reduce<number>((sum, m) => sum + 4 + Math.ceil(charLength(JSON.stringify(m) ?? "") / 3), 0)

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam

const textOf = (parts: ReadonlyArray<{ readonly type: string }>) =>
  parts.filter((p): p is Prompt.TextPart => p.type === "text").map((p) => p.text).join("\n")

/** The prompt as chat-completions messages. */
export const toMessages = (prompt: Prompt.Prompt): Array<ChatMessage> => {
  const out: Array<ChatMessage> = []
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content })
        break
      case "user":
        out.push({ role: "user", content: textOf(message.content) })
        break
      case "assistant": {
        const calls = message.content.filter((p): p is Prompt.ToolCallPart => p.type === "tool-call")
        const text = textOf(message.content)
        out.push({
          role: "assistant",
          content: text.length > 0 ? text : null,
          ...(calls.length > 0
            ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: "function" as const,
                function: { name: c.name, arguments: JSON.stringify(c.params ?? {}) }
              }))
            }
            : {})
        })
        break
      }
      case "tool":
        for (const part of message.content) {
          if (part.type === "tool-result") {
            out.push({ role: "tool", tool_call_id: part.id, content: JSON.stringify(part.result) ?? "null" })
          }
        }
        break
    }
  }
  return out
}

const toolChoiceOf = (choice: LanguageModel.ProviderOptions["toolChoice"]): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption => {
  if (choice === "auto" || choice === "none" || choice === "required") return choice
  if ("tool" in choice) return { type: "function", function: { name: choice.tool } }
  return choice.mode === "required" ? "required" : "auto"
}

const finishReason = (reason: string | null | undefined): Response.FinishPartEncoded["reason"] => {
  switch (reason) {
    case "stop":
      return "stop"
    case "length":
      return "length"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case "content_filter":
      return "content-filter"
    default:
      return "unknown"
  }
}

/** A provider failure as an AiError (status mapped as the effect/ai providers do; never the API key). */
const toAiError = (APIError: typeof OpenAI.APIError, method: string, cause: unknown): AiError.AiError => {
  if (cause instanceof APIError && typeof cause.status === "number") {
    const description = `model server answered ${cause.status}: ${cause.message}`.slice(0, 500)
    const reason = cause.status === 401 || cause.status === 403
      ? new AiError.AuthenticationError({ kind: cause.status === 401 ? "InvalidKey" : "InsufficientPermissions" })
      : cause.status === 429
      ? new AiError.RateLimitError({})
      : cause.status >= 500
      ? new AiError.InternalProviderError({ description })
      : new AiError.InvalidRequestError({ description })
    return AiError.make({ module: "OpenAiModel", method, reason })
  }
  const description = cause instanceof Error ? cause.message.slice(0, 500) : "model call failed"
  return AiError.make({ module: "OpenAiModel", method, reason: new AiError.UnknownError({ description }) })
}

interface PendingCall {
  id: string
  name: string
  args: string
}

/**
 * An OpenAI-compatible chat-completions provider (OpenAI, Ollama, vLLM,
 * llama.cpp) over the official `openai` package, streaming. Each call is
 * priced from the configured per-million-token prices: before it is sent, the
 * worst case (the prompt estimate plus the output bound) must fit the
 * customer's `model` budget, else it is refused unsent; afterwards the
 * reported usage is charged.
 */
export const makeOpenAiModel = (config: Pick<AppConfigShape, "llmBaseUrl" | "llmApiKey" | "llmModel" | "llmPriceInput" | "llmPriceOutput" | "llmMaxOutputTokens" | "llmTimeoutMs">) =>
  Effect.gen(function*() {
    const budget = yield* Budget
    const prices: Prices = { input: config.llmPriceInput, output: config.llmPriceOutput }
    const paid = prices.input > 0 || prices.output > 0
    // Loaded on first use: most installs run the house model, and the package costs ~100 ms of every start.
    const { default: OpenAIClient } = yield* Effect.promise(() => import("openai"))
    const client = new OpenAIClient({
      baseURL: config.llmBaseUrl,
      apiKey: Option.match(config.llmApiKey, { onNone: () => "none", onSome: Redacted.value }),
      timeout: config.llmTimeoutMs,
      // A retry after tokens were streamed would bill twice; the caller decides.
      maxRetries: 0
    })

    /** Refuses when `amount` would pass a cap; records nothing (the call is charged what it used, after). */
    const fits = (customerId: CustomerId, amount: number) => budget.check(customerId, "model", amount)

    const refusal = (method: string, error: BudgetExceeded) =>
      AiError.make({
        module: "OpenAiModel",
        method,
        reason: new AiError.QuotaExhaustedError({ metadata: { [budgetRefusal]: error.error } })
      })

    const streamText = (options: LanguageModel.ProviderOptions, method = "streamText") =>
      Stream.unwrap(Effect.gen(function*() {
        const { customerId } = yield* ModelBilling
        const messages = toMessages(options.prompt)
        const tools = options.tools.map((tool): OpenAI.Chat.Completions.ChatCompletionTool => ({
          type: "function",
          function: {
            name: tool.name,
            ...(Tool.getDescription(tool) === undefined ? {} : { description: Tool.getDescription(tool)! }),
            parameters: Tool.getJsonSchema(tool) as Record<string, unknown>
          }
        }))
        const estimatedInput = estimateTokens(messages) + estimateTokens(tools)
        if (paid && customerId !== undefined) {
          yield* fits(customerId, costOf(prices, estimatedInput, config.llmMaxOutputTokens)).pipe(
            Effect.mapError((error) => refusal(method, error))
          )
        }
        const usage = { input: 0, output: 0, reported: false, streamedChars: 0 }
        const charge = Effect.suspend(() => {
          if (!paid || customerId === undefined) return Effect.void
          const input = usage.reported ? usage.input : estimatedInput
          const output = usage.reported ? usage.output : Math.ceil(usage.streamedChars / 3)
          // The cap was checked for the worst case before sending; usage is recorded even if a
          // concurrent charge has since used the room (the tokens were spent).
          return budget.charge(customerId, "model", costOf(prices, input, output)).pipe(
            Effect.catchTag("BudgetExceeded", (error) =>
              Effect.logWarning("model usage charged over a cap by a concurrent call").pipe(
                Effect.annotateLogs({ customerId, error: error.error })
              ))
          )
        })
        const request = Effect.tryPromise({
          try: (signal) =>
            client.chat.completions.create({
              model: config.llmModel,
              messages,
              stream: true,
              stream_options: { include_usage: true },
              max_completion_tokens: config.llmMaxOutputTokens,
              ...(tools.length > 0 ? { tools, tool_choice: toolChoiceOf(options.toolChoice) } : {})
            }, { signal }),
          catch: (cause) => toAiError(OpenAIClient.APIError, method, cause)
        })
        const pending = new Map<number, PendingCall>()
        let textOpen = false
        let finish: string | null = null
        const chunks = Stream.unwrap(Effect.map(request, (stream) =>
          Stream.fromAsyncIterable(stream, (cause) => toAiError(OpenAIClient.APIError, method, cause))))
        const body = chunks.pipe(
          Stream.flatMap((chunk) => {
            const out: Array<Response.StreamPartEncoded> = []
            if (chunk.usage != null) {
              usage.reported = true
              usage.input = chunk.usage.prompt_tokens
              usage.output = chunk.usage.completion_tokens
            }
            for (const choice of chunk.choices ?? []) {
              const delta = choice.delta
              // A refusal is the model's answer to the person: shown as its text, as content would be.
              const refusal = (delta as { readonly refusal?: unknown } | undefined)?.refusal
              for (const text of [delta?.content, refusal]) {
                if (typeof text !== "string" || text.length === 0) continue
                if (!textOpen) {
                  textOpen = true
                  out.push({ type: "text-start", id: "text_0" })
                }
                usage.streamedChars += text.length
                out.push({ type: "text-delta", id: "text_0", delta: text })
              }
              for (const call of delta?.tool_calls ?? []) {
                const current = pending.get(call.index) ?? { id: "", name: "", args: "" }
                if (call.id) current.id = call.id
                if (call.function?.name) current.name += call.function.name
                if (call.function?.arguments) current.args += call.function.arguments
                usage.streamedChars += call.function?.arguments?.length ?? 0
                pending.set(call.index, current)
              }
              if (choice.finish_reason != null) finish = choice.finish_reason
            }
            return Stream.fromIterable(out)
          }),
          Stream.concat(Stream.suspend(() => {
            const tail: Array<Response.StreamPartEncoded> = []
            if (textOpen) tail.push({ type: "text-end", id: "text_0" })
            for (const [index, call] of [...pending.entries()].sort(([a], [b]) => a - b)) {
              let params: unknown
              try {
                params = call.args.trim().length === 0 ? {} : JSON.parse(call.args)
              } catch {
                return Stream.fail(AiError.make({
                  module: "OpenAiModel",
                  method,
                  reason: new AiError.InvalidOutputError({ description: `tool call ${call.name} sent arguments that are not JSON` })
                }))
              }
              tail.push({ type: "tool-call", id: call.id || `call_${index}`, name: call.name, params })
            }
            tail.push({
              type: "finish",
              reason: finishReason(finish),
              usage: { inputTokens: { total: usage.input }, outputTokens: { total: usage.output } }
            })
            return Stream.fromIterable(tail)
          }))
        )
        return body.pipe(Stream.ensuring(charge))
      }))

    const generateText = (options: LanguageModel.ProviderOptions) =>
      Stream.runCollect(streamText(options, "generateText")).pipe(
        Effect.map((streamed) => {
          let text = ""
          const calls: Array<Response.PartEncoded> = []
          const finishes: Array<Response.PartEncoded> = []
          for (const part of streamed) {
            if (part.type === "text-delta") text += part.delta
            else if (part.type === "tool-call") calls.push(part)
            else if (part.type === "finish") finishes.push(part)
          }
          return [...(text.length > 0 ? [{ type: "text", text } as Response.PartEncoded] : []), ...calls, ...finishes]
        })
      )

    return yield* LanguageModel.make({ generateText, streamText })
  })
