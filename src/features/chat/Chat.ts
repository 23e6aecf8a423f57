import { Cause, Context, Effect, Layer, Stream } from "effect"
import { AiError, Chat, LanguageModel, type Prompt, type Response } from "effect/ai"
import { CurrentPrincipal, type Principal } from "../../api/Security.ts"
import { AppConfig } from "../../Config.ts"
import {
  type ChatEvent,
  type ChatMessage,
  type ChatRequest,
  type ChatThread,
  type ChatThreadSummary,
  threadTitle
} from "../../domain/Chat.ts"
import { BudgetExceeded, NotFound } from "../../domain/Errors.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import { chatToolkit } from "../../platform/tools/ChatToolkit.ts"
import { ModelBilling, modelRefusal, profileMarker } from "../agent/Agent.ts"
import { reportsContext } from "../agent/reports.ts"
import { Onboarding } from "../onboarding/Onboarding.ts"
import { Reports } from "../reports/Reports.ts"
import { ChatRepo } from "./Repo.ts"

/** A tool's refusal (the registry's `{code, message}`) as the stream's error data; anything else is an internal error. */
const toolError = (result: unknown): { readonly error: string; readonly code: string } => {
  const failure = result as { readonly code?: unknown; readonly message?: unknown } | null
  return typeof failure?.code === "string" && typeof failure.message === "string"
    ? { error: failure.message, code: failure.code }
    : { error: "The tool failed", code: "E_INTERNAL" }
}

/** Messages of a thread given to the model as history (the latest ones). */
const historyLimit = 40
/** Messages a thread read answers (the latest ones). */
const threadReadLimit = 1000

export interface ChatStart {
  readonly threadId: string
  /** The events after `thread`, ending with `done` or `error`; the model runs as this stream is pulled. */
  readonly events: Stream.Stream<ChatEvent>
}

/**
 * The system prompt: who the agent is and the brand it works for. The tools
 * run for the session's customer, so the prompt carries no id to pass on.
 */
export const systemPrompt = (
  profile: Record<string, unknown> | undefined,
  extra: ReadonlyArray<string> = []
): string => {
  const brandName = typeof profile?.["brandName"] === "string" ? profile["brandName"] : undefined
  return [
    `You are Herald, the marketing team of ${brandName ?? "this customer"}: strategist, writer and analyst.`,
    "Answer briefly and concretely. Use the tools when the user asks for something they can do; never invent results.",
    "The tools act for this customer's account; they take no customer id.",
    profile === undefined ? "No brand profile has been confirmed yet." : `${profileMarker}${JSON.stringify(profile)}`,
    ...extra
  ].join("\n")
}

/** A stored message as the model reads it again; a tool message becomes a note of what was done. */
const asPrompt = (message: ChatMessage): Prompt.MessageEncoded => {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content }
    case "assistant":
      return { role: "assistant", content: message.content }
    case "tool":
      return { role: "assistant", content: `(tool call: ${message.content})` }
  }
}

/** What a failed model call tells the client: the budget's reason, or a model failure without provider details. */
const errorEvent = (cause: Cause.Cause<AiError.AiError>): ChatEvent => {
  const error = Cause.squash(cause)
  if (AiError.isAiError(error)) {
    if (error.reason._tag === "ToolNotFoundError") {
      return {
        event: "error",
        data: {
          error: `The model asked for a tool that does not exist: ${error.reason.toolName}`,
          code: "E_UNKNOWN_TOOL"
        }
      }
    }
    const refusal = modelRefusal(error)
    return refusal instanceof BudgetExceeded
      ? { event: "error", data: { error: refusal.error, code: refusal.code } }
      : {
        event: "error",
        data: { error: `The language model failed (${error.reason._tag}); try again`, code: "E_UNAVAILABLE" }
      }
  }
  return { event: "error", data: { error: "Internal error", code: "E_INTERNAL" } }
}

/**
 * The streamed chat with the marketing agent: threads kept in the database,
 * each turn answered by the language model with the brand profile, the
 * thread's history and the tool registry's toolkit (run as the caller).
 */
export class ChatAgent extends Context.Service<ChatAgent, {
  /** Checks the thread (404 before any stream), stores the user's message and answers the turn's events. */
  readonly send: (principal: Principal, request: ChatRequest) => Effect.Effect<ChatStart, NotFound>
  readonly threads: (customerId: CustomerId, limit: number) => Effect.Effect<ReadonlyArray<ChatThreadSummary>>
  readonly thread: (customerId: CustomerId, threadId: string) => Effect.Effect<ChatThread, NotFound>
}>()("herald/features/chat/ChatAgent") {
  static readonly layerWithoutRepo = Layer.effect(
    ChatAgent,
    Effect.gen(function*() {
      const repo = yield* ChatRepo
      const config = yield* AppConfig
      const onboarding = yield* Onboarding
      const reports = yield* Reports
      const model = yield* LanguageModel.LanguageModel
      const { toolkit, layer } = yield* chatToolkit
      const tools = yield* Layer.build(layer)

      const threadNotFound = new NotFound({ error: "Thread not found" })

      const turn = (principal: Principal, threadId: string, prompt: Prompt.RawInput): Stream.Stream<ChatEvent> =>
        Stream.unwrap(Effect.gen(function*() {
          const chat = yield* Chat.fromPrompt(prompt)
          let answer = ""
          let failed = false
          const round = (n: number): Stream.Stream<ChatEvent, AiError.AiError> => {
            let called = 0
            const calls = new Map<string, unknown>()
            // The toolkit's types are the general ones (see ChatToolkit.ts); its handlers and principal are provided below.
            const parts = chat.streamText({ prompt: [], toolkit }) as Stream.Stream<Response.AnyPart, AiError.AiError>
            return parts.pipe(
              Stream.mapEffect((part: Response.AnyPart): Effect.Effect<ReadonlyArray<ChatEvent>> => {
                switch (part.type) {
                  case "text-delta":
                    answer += part.delta
                    return Effect.succeed(
                      part.delta.length === 0 ? [] : [{ event: "delta", data: { text: part.delta } }]
                    )
                  case "tool-call":
                    called++
                    calls.set(part.id, part.params)
                    return Effect.succeed([{ event: "tool_call", data: { name: part.name, arguments: part.params } }])
                  case "tool-result": {
                    if (part.preliminary === true) return Effect.succeed([])
                    const args = calls.get(part.id) ?? null
                    if (part.isFailure) {
                      // The refusal as the client reads any failure: its text and code, and the turn ends here.
                      const { error, code } = toolError(part.result)
                      failed = true
                      const stored = JSON.stringify({ name: part.name, arguments: args, error, code })
                      return Effect.as(repo.append(threadId, "tool", stored), [{
                        event: "error",
                        data: { error, code }
                      }])
                    }
                    const call = JSON.stringify({ name: part.name, arguments: args, result: part.result })
                    return Effect.as(repo.append(threadId, "tool", call), [{
                      event: "tool_result",
                      data: { name: part.name, result: part.result }
                    }])
                  }
                  default:
                    return Effect.succeed([])
                }
              }),
              Stream.flatMap((events) => Stream.fromIterable(events)),
              Stream.takeUntil((event) => event.event === "error"),
              Stream.concat(
                Stream.suspend(() => !failed && called > 0 && n < config.llmMaxToolRounds ? round(n + 1) : Stream.empty)
              )
            )
          }
          const done = Stream.fromEffect(Effect.suspend(() => repo.append(threadId, "assistant", answer))).pipe(
            Stream.map((message): ChatEvent => ({ event: "done", data: { threadId, messageId: message.messageId } }))
          )
          return round(1).pipe(Stream.concat(Stream.suspend(() => failed ? Stream.empty : done)))
        })).pipe(
          Stream.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause) ? Stream.failCause(cause) : Stream.make(errorEvent(cause))
          ),
          Stream.provideContext(tools),
          Stream.provideService(CurrentPrincipal, principal),
          Stream.provideService(ModelBilling, { customerId: principal.customerId }),
          Stream.provideService(LanguageModel.LanguageModel, model)
        ) as Stream.Stream<ChatEvent>

      const send = Effect.fn("ChatAgent.send")(function*(principal: Principal, request: ChatRequest) {
        const customerId = principal.customerId
        let history: ReadonlyArray<ChatMessage> = []
        let threadId: string
        let profile: Record<string, unknown> | undefined
        // A question about stored reports reads them (the same way ask_cmo does); any other message costs no query.
        const asked = reportsContext(reports, customerId, request.message)
        let reportLines: ReadonlyArray<string>
        if (request.threadId !== undefined) {
          const found = yield* repo.find(customerId, request.threadId)
          if (found === undefined) return yield* threadNotFound
          threadId = found.threadId
          ;[history, profile, reportLines] = yield* Effect.all([
            Effect.flatMap(
              repo.messages(threadId, historyLimit),
              (messages) => Effect.as(repo.append(threadId, "user", request.message), messages)
            ),
            onboarding.profile(customerId),
            Effect.map(asked, (context) => context?.lines ?? [])
          ], { concurrency: 3 })
        } else {
          ;[threadId, profile, reportLines] = yield* Effect.all([
            repo.start(customerId, threadTitle(request.message), request.message),
            onboarding.profile(customerId),
            Effect.map(asked, (context) => context?.lines ?? [])
          ], { concurrency: 3 })
        }
        const prompt: Prompt.RawInput = [
          { role: "system", content: systemPrompt(profile, reportLines) },
          ...history.map(asPrompt),
          { role: "user", content: request.message }
        ]
        return { threadId, events: turn(principal, threadId, prompt) } satisfies ChatStart
      })

      return ChatAgent.of({
        send,
        threads: repo.list,
        thread: (customerId, threadId) =>
          Effect.gen(function*() {
            const found = yield* repo.find(customerId, threadId)
            if (found === undefined) return yield* threadNotFound
            return { threadId: found.threadId, messages: yield* repo.messages(found.threadId, threadReadLimit) }
          })
      })
    })
  )

  static readonly layer = ChatAgent.layerWithoutRepo.pipe(Layer.provide(ChatRepo.layer))
}
