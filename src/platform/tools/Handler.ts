import { Data, type Effect } from "effect"
import type { Principal } from "../../api/Security.ts"
import type { AnyToolDefinition, ToolDefinition } from "../../api/tools/Tool.ts"
import type { CustomerId } from "../../domain/Ids.ts"

/** Who is calling: the key's principal (the tool checks `customerId` against it) and a request id for logs. */
export interface ToolCallContext {
  readonly principal: Principal
  readonly requestId: string
  /** Which surface called: stored as the `agentId` of what the tool creates. */
  readonly via: "mcp" | "chat"
}

/** Something stored that a result points at (a report), with where to read it. */
export interface ToolLink {
  /** An absolute URL. */
  readonly uri: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
}

/** A successful call: a short human summary and the structured result. */
export interface ToolOutput {
  readonly summary: string
  readonly data: Record<string, unknown>
  /** What the result points at: MCP clients that read links (2025-06-18 on) get each as a `resource_link` item. */
  readonly links?: ReadonlyArray<ToolLink> | undefined
}

/**
 * A failure the caller should see as a tool error (`isError: true`), never a
 * protocol error: bad arguments, another customer's id, a refused action.
 */
export class ToolFailure extends Data.TaggedError("ToolFailure")<{
  readonly code: string
  readonly message: string
  /** Arguments that failed their schema, one per field, worded as REST's validation details. */
  readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }>
}> {}

/**
 * A domain error (any of src/domain/Errors.ts: NotFound, ValidationError,
 * PlatformNotConnected, BudgetExceeded, FetchFailed, ...) as the tool error the
 * caller reads, keeping its code and text: `Effect.mapError(toolFailure)`.
 */
export const toolFailure = (error: { readonly error: string; readonly code: string }): ToolFailure =>
  new ToolFailure({ code: error.code, message: error.error })

/**
 * What a handler may fail with: a ToolFailure, or a domain error of
 * src/domain/Errors.ts as it is (PlatformNotConnected, ValidationError,
 * BudgetExceeded, NotFound, FetchFailed, ...), which the registry turns into
 * the tool error with the same code and text (see `toolFailure`).
 */
export interface DomainFailure {
  readonly _tag: string
  readonly error: string
  readonly code: string
}

export type HandlerFailure = ToolFailure | DomainFailure

/** Whether a failure is a domain error the caller may read (its code and text), not a defect. */
export const isDomainFailure = (value: unknown): value is DomainFailure =>
  typeof value === "object" && value !== null &&
  typeof (value as DomainFailure)._tag === "string" &&
  typeof (value as DomainFailure).error === "string" &&
  typeof (value as DomainFailure).code === "string" &&
  /^E_[A-Z_]+$/.test((value as DomainFailure).code)

/** A tool's runnable form: its definition and a handler whose services are already provided. */
export interface RunnableTool {
  readonly definition: AnyToolDefinition
  /** Called with the arguments its definition's schema decoded (the runner decodes before it calls). */
  readonly run: (input: never, context: ToolCallContext) => Effect.Effect<ToolOutput, HandlerFailure>
}

/**
 * How a tool gets its handler: `make` takes the services the tool calls (its
 * requirements `R`) once, when the registry is built, and returns the
 * per-call function. Providing `R` is all it takes to add a tool.
 */
export interface ToolImplementation<R> {
  readonly definition: AnyToolDefinition
  readonly make: Effect.Effect<RunnableTool["run"], never, R>
}

export const implement = <I extends { readonly customerId: CustomerId }, R>(
  definition: ToolDefinition<I>,
  make: Effect.Effect<(input: I, context: ToolCallContext) => Effect.Effect<ToolOutput, HandlerFailure>, never, R>
): ToolImplementation<R> => ({ definition, make })

/** Some tool's implementation, whatever its input and services: what lists of tools hold. */
export type AnyToolImplementation = ToolImplementation<any>
