import type { Schema } from "effect"
import type { Role } from "../../domain/Identity.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import type { skillNames } from "../../domain/Settings.ts"

/** The twelve tool names (the first twelve skill names an autonomy override may name). */
export type ToolName = Extract<typeof skillNames[number], `${string}_${string}`>

/**
 * MCP tool annotations (2025-03-26 on). Clients treat a tool without them as
 * destructive and open-world, so every definition states all four.
 */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

/** What a tool is, independent of how it runs: one definition per tool, projected to MCP, cards and chat. */
export interface ToolDefinition<I extends { readonly customerId: CustomerId } = { readonly customerId: CustomerId }> {
  readonly name: ToolName
  readonly title: string
  /** Written for a model: what the tool does, when to use it, what it answers. */
  readonly description: string
  /** Decodes the call's arguments (the JSON Schema shown to clients is generated from it). */
  readonly input: Schema.Codec<I, unknown>
  readonly annotations: ToolAnnotations
  /** The least team role a key needs to run it (same ladder as REST: viewer < editor < admin). */
  readonly role: Role
  /** A word or two for discovery documents (A2A skill tags, llms.txt grouping). */
  readonly tags: ReadonlyArray<string>
}

/**
 * A definition of some tool, whatever its input: what lists of tools hold.
 * Each tool's input type differs and a schema is invariant in the type it
 * decodes to, so a list can only say "some input" (`any` here and nowhere
 * else); each tool's own schema decodes its arguments.
 */
export type AnyToolDefinition = ToolDefinition<any>
