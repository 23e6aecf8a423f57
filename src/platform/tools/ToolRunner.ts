import { Cause, Context, Effect, Layer, Schema, SchemaIssue } from "effect"
import { toolDefinitions } from "../../api/tools/definitions.ts"
import type { AnyToolDefinition, ToolAnnotations } from "../../api/tools/Tool.ts"
import { roleAllows } from "../../domain/Identity.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import { databaseOutage, defaultsFor } from "../http/ErrorResponses.ts"
import { detailsUnder, invalidText } from "../http/ValidationMessages.ts"
import {
  type AnyToolImplementation,
  isDomainFailure,
  type RunnableTool,
  type ToolCallContext,
  ToolFailure,
  toolFailure,
  type ToolImplementation,
  type ToolOutput
} from "./Handler.ts"

/** A tool as clients see it: MCP `tools/list` entries, server card and agent card items. */
export interface ToolDescriptor {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly annotations: ToolAnnotations & { readonly title: string }
}

/**
 * JSON Schema (2020-12) of a tool's arguments, generated from the schema that
 * decodes them, closed to properties it does not name (as decoding is).
 */
export const inputJsonSchema = (definition: AnyToolDefinition): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(definition.input, { onExcessProperty: "error" })
  const definitions = document.definitions as Record<string, unknown>
  return {
    ...(document.schema as Record<string, unknown>),
    ...(Object.keys(definitions).length > 0 ? { $defs: definitions } : {})
  }
}

export const describeTool = (definition: AnyToolDefinition): ToolDescriptor => ({
  name: definition.name,
  title: definition.title,
  description: definition.description,
  inputSchema: inputJsonSchema(definition),
  annotations: { title: definition.title, ...definition.annotations }
})

let described: ReadonlyArray<ToolDescriptor> | undefined
/** All twelve tools, described once: the list every discovery document shows. */
export const allToolDescriptors = (): ReadonlyArray<ToolDescriptor> => (described ??= toolDefinitions.map(describeTool))

const strict = { onExcessProperty: "error", errors: "all" } as const

/** Arguments that fail their schema, in REST's wording: "Invalid arguments.url: is required" with every field in `details`. */
const invalidArguments = (issue: SchemaIssue.Issue): ToolFailure => {
  const details = detailsUnder("arguments", issue)
  return new ToolFailure({ code: "E_VALIDATION", message: invalidText(details), details })
}

/** The services a set of tools calls: the union of each one's. */
export type RequirementsOf<T> = T extends ToolImplementation<infer R> ? R : never

interface Entry extends RunnableTool {
  readonly decode: (args: unknown) => Effect.Effect<{ readonly customerId: CustomerId }, Schema.SchemaError>
}

/** The runner's service: what `ToolRunner` holds. */
export interface ToolRunnerShape {
  /** The tools this server can run now (MCP `tools/list`). */
  readonly tools: ReadonlyArray<ToolDescriptor>
  readonly call: (name: string, args: unknown, context: ToolCallContext) => Effect.Effect<ToolOutput, ToolFailure>
}

/**
 * A runner over `implementations`; each one's services (`R`) are taken once,
 * here. Decodes the arguments with the tool's own schema, refuses another
 * customer's id and a role below the tool's, then runs the handler. Every
 * refusal and failure is a ToolFailure (a tool error the caller reads): a
 * domain error keeps its code and text, a database outage (unreachable,
 * refusing writes) is E_UNAVAILABLE, a defect is logged and answered
 * E_INTERNAL; never a protocol error and never another customer's data.
 */
export const makeRunner = <const Tools extends ReadonlyArray<AnyToolImplementation>>(
  implementations: Tools
): Effect.Effect<ToolRunnerShape, never, RequirementsOf<Tools[number]>> =>
  Effect.gen(function*() {
    const entries = new Map<string, Entry>()
    for (const implementation of implementations) {
      const { definition } = implementation
      const decode = Schema.decodeUnknownEffect(Schema.toCodecJson(definition.input))
      entries.set(definition.name, {
        definition,
        run: yield* implementation.make,
        decode: (args) => decode(args, strict) as Effect.Effect<{ readonly customerId: CustomerId }, Schema.SchemaError>
      })
    }
    const known = new Set(toolDefinitions.map((d) => d.name as string))
    const tools = toolDefinitions.filter((d) => entries.has(d.name)).map(describeTool)

    const call = (name: string, args: unknown, context: ToolCallContext) =>
      Effect.gen(function*() {
        const entry = entries.get(name)
        if (entry === undefined) {
          return yield* new ToolFailure(
            known.has(name)
              ? { code: "E_TOOL_UNAVAILABLE", message: `The tool ${name} is not available on this server yet` }
              : { code: "E_UNKNOWN_TOOL", message: `Unknown tool: ${name}` }
          )
        }
        const input = yield* entry.decode(args ?? {}).pipe(
          Effect.mapError((error) => invalidArguments(error.issue))
        )
        const customerId = input.customerId.toLowerCase()
        if (customerId !== context.principal.customerId) {
          return yield* new ToolFailure({
            code: "E_FORBIDDEN",
            message: "customerId does not belong to this API key's customer"
          })
        }
        if (!roleAllows(context.principal.role, entry.definition.role)) {
          return yield* new ToolFailure({
            code: "E_FORBIDDEN",
            message: `The tool ${name} needs the ${entry.definition.role} role`
          })
        }
        // The entry's own schema decoded `input`, so it is the type its handler takes.
        return yield* entry.run({ ...input, customerId } as never, context)
      }).pipe(
        // A domain error is the tool error with its code; a defect is logged with the request id and answered without detail.
        Effect.catchCause((cause) => {
          if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
          const failure = cause.reasons.find((r) => r._tag === "Fail")
          if (failure !== undefined && failure._tag === "Fail") {
            if (failure.error instanceof ToolFailure) return Effect.fail(failure.error)
            if (isDomainFailure(failure.error)) return Effect.fail(toolFailure(failure.error))
          }
          // A database that cannot be reached or refuses writes (a full disk) is an outage, answered as the
          // REST routes answer it (E_UNAVAILABLE), and logged as one, not as a bug.
          for (const reason of cause.reasons) {
            const outage = databaseOutage(
              reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
            )
            if (outage === undefined) continue
            const [code, message] = defaultsFor(503)
            return Effect.andThen(
              Effect.logWarning("tool refused: database unavailable", outage).pipe(
                Effect.annotateLogs({ tool: name, requestId: context.requestId })
              ),
              Effect.fail(new ToolFailure({ code, message }))
            )
          }
          return Effect.andThen(
            Effect.logError("tool failed", Cause.pretty(cause)).pipe(
              Effect.annotateLogs({ tool: name, requestId: context.requestId })
            ),
            Effect.fail(
              new ToolFailure({ code: "E_INTERNAL", message: `Internal error (request ${context.requestId})` })
            )
          )
        })
      )

    return { tools, call }
  })

/** The registry's runner for the app: MCP, chat and discovery read it. */
export class ToolRunner extends Context.Service<ToolRunner, ToolRunnerShape>()("herald/platform/tools/ToolRunner") {
  /** The runner over `implementations`; each one's services (`R`) are taken once, here. */
  static readonly make = <const Tools extends ReadonlyArray<AnyToolImplementation>>(
    implementations: Tools
  ): Layer.Layer<ToolRunner, never, RequirementsOf<Tools[number]>> =>
    Layer.effect(ToolRunner, Effect.map(makeRunner(implementations), ToolRunner.of))
}
