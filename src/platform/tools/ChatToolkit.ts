import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { CurrentPrincipal } from "../../api/Security.ts"
import { toolDefinitions } from "../../api/tools/definitions.ts"
import type { AnyToolDefinition } from "../../api/tools/Tool.ts"
import type { ToolCallContext } from "./Handler.ts"
import { ToolRunner, type ToolRunnerShape } from "./ToolRunner.ts"

/** What a tool answers the model: the summary and the structured result. */
export const ChatToolSuccess = Schema.Struct({ summary: Schema.String, data: Schema.Record(Schema.String, Schema.Unknown) })
/** A refusal the model reads and can act on (another customer's id, a bad argument, a domain rule). */
export const ChatToolFailure = Schema.Struct({ code: Schema.String, message: Schema.String })

/** One registry definition as an effect/ai tool: same name, description and parameter schema; needs the caller's principal. */
const aiTool = (definition: AnyToolDefinition) =>
  Tool.make(definition.name, {
    description: definition.description,
    parameters: definition.input,
    success: ChatToolSuccess,
    failure: ChatToolFailure,
    failureMode: "return",
    dependencies: [CurrentPrincipal]
  })

/**
 * An effect/ai toolkit over `runner`: the tools it can run that `offer`
 * keeps (the model is never offered one it cannot call), each handled by
 * `runner.call` with the principal of the surrounding `CurrentPrincipal`, so
 * decoding, tenancy and roles are exactly MCP's.
 */
export const toolkitOf = (
  runner: ToolRunnerShape,
  via: ToolCallContext["via"],
  offer: (definition: AnyToolDefinition) => boolean = () => true
) => {
  const runnable = new Set(runner.tools.map((tool) => tool.name))
  const definitions = toolDefinitions.filter((definition) => runnable.has(definition.name) && offer(definition))
  // The set of tools is known only once the runner is built, so the toolkit's types are the general ones.
  const toolkit = Toolkit.make(...definitions.map(aiTool)) as unknown as Toolkit.Toolkit<Record<string, Tool.Any>>
  const handlers = Object.fromEntries(definitions.map((definition) => [
    definition.name,
    (params: unknown, context: { readonly toolCallId?: string | undefined }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        runner.call(definition.name, params, { principal, requestId: `${via}_${context.toolCallId ?? "call"}`, via }).pipe(
          Effect.mapError((failure) => ({ code: failure.code, message: failure.message }))
        ))
  ]))
  const layer = toolkit.toLayer(handlers as never)
  return { toolkit, layer }
}

/**
 * The chat agent's toolkit, made from the same registry as MCP: every tool
 * the app's runner can run. Use:
 *   const { toolkit, layer } = yield* chatToolkit
 *   LanguageModel.streamText({ prompt, toolkit }).pipe(Effect.provide(layer), Effect.provideService(CurrentPrincipal, principal))
 */
export const chatToolkit = Effect.gen(function*() {
  return toolkitOf(yield* ToolRunner, "chat")
})
