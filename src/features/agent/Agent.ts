import { Context, Data, Effect, Layer } from "effect"
import { type AiError, Chat, LanguageModel, type Prompt, type Tool, type Toolkit } from "effect/ai"
import { AppConfig } from "../../Config.ts"
import { platformBodyLimits } from "../../domain/Content.ts"
import { type Brief, type CopyKind, fitWords } from "../../domain/Copywriting.ts"
import { BudgetExceeded } from "../../domain/Errors.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import { briefMarker, makeHouseModel } from "./HouseModel.ts"

export { profileMarker } from "./HouseModel.ts"
import { budgetReason, isBudgetRefusal, makeOpenAiModel, ModelBilling } from "./OpenAiModel.ts"

export { ModelBilling } from "./OpenAiModel.ts"

/**
 * The one `LanguageModel` of the service, chosen by `LLM_PROVIDER`: `house`
 * (local, deterministic) or `openai` (an OpenAI-compatible server, priced to
 * the `model` budget channel). Needs AppConfig, Budget and the SQL client.
 * Chat and MCP provide this layer and call `LanguageModel.generateText` /
 * `streamText` inside `Effect.provideService(ModelBilling, { customerId })`.
 */
export const LanguageModelLive = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.gen(function*() {
    const config = yield* AppConfig
    return config.llmProvider === "openai" ? yield* makeOpenAiModel(config) : yield* makeHouseModel
  })
)

/** The model failed (network, server, malformed output): the step fails with this. */
export class ModelFailed extends Data.TaggedError("ModelFailed")<{ readonly message: string }> {}

/**
 * The line of a system prompt that carries the brief as JSON: the house model
 * composes from it, a remote model reads it. Callers build prompts with this,
 * never with the marker itself.
 */
export const briefLine = (brief: Brief): string => `${briefMarker}${JSON.stringify(brief)}`

/** A model call's failure as the caller's error: a refusal by the budget, or the model failing. */
export const modelRefusal = (error: AiError.AiError): BudgetExceeded | ModelFailed =>
  isBudgetRefusal(error)
    ? new BudgetExceeded({ error: `The model call would pass the budget: ${budgetReason(error)}` })
    : new ModelFailed({ message: error.message })

/** The brand a piece is written for. */
export interface BrandVoice {
  readonly brandName: string
  readonly description?: string | null | undefined
  readonly voice?: string | null | undefined
  readonly audience?: string | null | undefined
  readonly products?: ReadonlyArray<string> | undefined
  /** The brand's own topics and keywords: hashtags come from them. */
  readonly topics?: ReadonlyArray<string> | undefined
  readonly url?: string | null | undefined
}

export interface WriteRequest {
  readonly kind: CopyKind
  readonly topic: string
  readonly platform?: string | null | undefined
  readonly keywords?: ReadonlyArray<string> | undefined
  readonly facts?: ReadonlyArray<string> | undefined
  readonly angle?: number | undefined
}

export interface Written {
  readonly title: string
  readonly body: string
}

/** Splits a model's answer into the title (first line) and the body (the rest). */
export const splitAnswer = (text: string, fallbackTitle: string): Written => {
  const trimmed = text.trim()
  const newline = trimmed.indexOf("\n")
  const first = (newline < 0 ? trimmed : trimmed.slice(0, newline)).replace(/^#+\s*|^title:\s*/i, "").trim()
  const rest = newline < 0 ? "" : trimmed.slice(newline + 1).trim()
  return rest.length === 0
    ? { title: fitWords(fallbackTitle, 300), body: trimmed.length > 0 ? trimmed : fallbackTitle }
    : { title: fitWords(first.length > 0 ? first : fallbackTitle, 300), body: rest }
}

/**
 * Writes marketing pieces through the LanguageModel: the brief goes into the
 * system prompt (the house model composes from it; a remote model reads it),
 * the answer is fitted to the platform's length limit.
 */
export class Writer extends Context.Service<Writer, {
  readonly write: (
    customerId: CustomerId,
    brand: BrandVoice,
    request: WriteRequest
  ) => Effect.Effect<Written, BudgetExceeded | ModelFailed>
}>()("herald/features/agent/Writer") {
  static readonly layer = Layer.effect(
    Writer,
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      const write = Effect.fn("Writer.write")(
        function*(customerId: CustomerId, brand: BrandVoice, request: WriteRequest) {
          const limit = request.platform == null ? undefined : platformBodyLimits[request.platform]
          const brief: Brief = { ...brand, ...request }
          const where = request.platform == null ? "" : ` for ${request.platform}`
          const system = [
            `You are the marketing writer of ${brand.brandName}.`,
            `Answer with the title on the first line, then a blank line, then the body only.`,
            limit === undefined ? "" : `The body must be at most ${limit} characters.`,
            briefLine(brief)
          ].filter((line) => line.length > 0).join("\n")
          const response = yield* model.generateText({
            prompt: [
              { role: "system", content: system },
              { role: "user", content: `Write a ${request.kind}${where} about ${request.topic}.` }
            ],
            toolChoice: "none"
          }).pipe(
            Effect.provideService(ModelBilling, { customerId }),
            Effect.mapError(modelRefusal)
          )
          const written = splitAnswer(response.text, `${request.topic}`)
          return { title: written.title, body: limit === undefined ? written.body : fitWords(written.body, limit) }
        }
      )
      return Writer.of({ write })
    })
  )
}

export interface AgentTurn {
  /** The model's final text (after its last tool round). */
  readonly text: string
  /** Model calls made: tool rounds plus the final answer. */
  readonly rounds: number
  /** The tool calls made, in order, with their results. */
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly params: unknown; readonly result: unknown }>
}

/**
 * One agent turn for chat and MCP: the model answers the prompt, calling the
 * toolkit's tools as it likes; each tool round's results go back to the model
 * until it answers without a tool call, or `maxRounds` (LLM_MAX_TOOL_ROUNDS)
 * model calls have been made. Charged to `customerId`'s model budget.
 */
export const agentTurn = <Tools extends Record<string, Tool.Any>>(options: {
  readonly customerId: CustomerId
  readonly prompt: Prompt.RawInput
  readonly toolkit: Toolkit.WithHandler<Tools>
  readonly maxRounds: number
}) =>
  Effect.gen(function*() {
    const chat = yield* Chat.fromPrompt(options.prompt)
    const toolCalls: Array<{ name: string; params: unknown; result: unknown }> = []
    for (let rounds = 1;; rounds++) {
      const response = yield* chat.generateText({ prompt: [], toolkit: options.toolkit })
      for (const call of response.toolCalls) {
        const result = response.toolResults.find((r) => r.id === call.id)
        toolCalls.push({ name: call.name, params: call.params, result: result?.result })
      }
      if (response.toolCalls.length === 0 || rounds >= options.maxRounds) {
        return { text: response.text, rounds, toolCalls } satisfies AgentTurn
      }
    }
  }).pipe(Effect.provideService(ModelBilling, { customerId: options.customerId }))
