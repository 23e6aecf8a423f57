import { Context, Effect } from "effect"

/**
 * Points a run passes that a test can act on: the start of each step (by its
 * name) and the moment a piece's model answer is recorded (`answer:<piece
 * key>`, e.g. `answer:social-1`). The service provides nothing here, so the
 * default does nothing; the crash tests start the service through
 * `test/support/crash-main.ts`, which kills the process at a named point,
 * standing in for a step that crashes it.
 */
export const StepHooks = Context.Reference<{ readonly reached: (point: string) => Effect.Effect<void> }>(
  "herald/features/workflows/StepHooks",
  { defaultValue: () => ({ reached: () => Effect.void }) }
)
