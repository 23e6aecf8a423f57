import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { CurrentPrincipal } from "../../api/Security.ts"
import { customerNote, toolDefinitions } from "../../api/tools/definitions.ts"
import type { AnyToolDefinition } from "../../api/tools/Tool.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import type { ToolCallContext } from "./Handler.ts"
import { inputJsonSchema, ToolRunner, type ToolRunnerShape } from "./ToolRunner.ts"

/** What a tool answers the model: the summary and the structured result. */
export const ChatToolSuccess = Schema.Struct({
  summary: Schema.String,
  data: Schema.Record(Schema.String, Schema.Unknown)
})
/** A refusal the model reads and can act on (another customer's id, a bad argument, a domain rule). */
export const ChatToolFailure = Schema.Struct({ code: Schema.String, message: Schema.String })

/**
 * The arguments a model is shown: the registry's schema without `customerId`.
 * The customer is the session's, never the model's word, so the model is
 * neither asked for it nor able to name another one.
 */
export const modelParameters = (definition: AnyToolDefinition): Record<string, unknown> => {
  const { properties, required, ...rest } = inputJsonSchema(definition) as {
    readonly properties?: Record<string, unknown>
    readonly required?: ReadonlyArray<string>
  }
  const { customerId: _customerId, ...shown } = properties ?? {}
  return { ...rest, properties: shown, required: (required ?? []).filter((name) => name !== "customerId") }
}

/**
 * The model's arguments as the registry's input: the session's customer in
 * place of whatever `customerId` the model sent (a model may still send one
 * it read somewhere); anything but an object is an empty argument list the
 * registry then refuses, naming what is missing.
 */
export const sessionArguments = (params: unknown, customerId: CustomerId): Record<string, unknown> => {
  const given = typeof params === "object" && params !== null && !Array.isArray(params)
    ? params as Record<string, unknown>
    : {}
  const { customerId: _ignored, ...rest } = given
  return { ...rest, customerId }
}

/**
 * One registry definition as an effect/ai tool: same name and description,
 * its parameters as JSON Schema (decoding is the registry's, so a bad
 * argument is the registry's short refusal, never the toolkit's internal error).
 */
const aiTool = (definition: AnyToolDefinition) =>
  Tool.dynamic(definition.name, {
    description: definition.description.replace(` ${customerNote}`, ""),
    parameters: modelParameters(definition),
    success: ChatToolSuccess,
    failure: ChatToolFailure,
    failureMode: "return"
  })

/**
 * An effect/ai toolkit over `runner`: the tools it can run that `offer`
 * keeps (the model is never offered one it cannot call), each handled by
 * `runner.call` with the principal of the surrounding `CurrentPrincipal` and
 * that principal's customer, so decoding and roles are exactly MCP's and the
 * customer is always the caller's.
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
      Effect.flatMap(
        CurrentPrincipal,
        (principal) =>
          runner.call(definition.name, sessionArguments(params, principal.customerId), {
            principal,
            requestId: `${via}_${context.toolCallId ?? "call"}`,
            via
          }).pipe(
            // The model reads the summary and the data; links are for MCP clients.
            Effect.map((output) => ({ summary: output.summary, data: output.data })),
            Effect.mapError((failure) => ({ code: failure.code, message: failure.message }))
          )
      )
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
