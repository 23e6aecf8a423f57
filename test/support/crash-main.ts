/**
 * The service as `src/main.ts` starts it, plus one test-only behaviour: the
 * process kills itself (SIGKILL) when a run reaches the point named by
 * HERALD_TEST_CRASH_STEP (a step's name, or `answer:<piece key>` right after
 * that piece's model answer is recorded). It stands in for a step that
 * crashes its process, so the crash tests can prove such a run is
 * quarantined, and a recorded answer reused rather than paid for again.
 */
import { Effect, Layer } from "effect"
import { StepHooks } from "../../src/features/workflows/StepHooks.ts"
import { runService } from "../../src/Service.ts"

const point = process.env.HERALD_TEST_CRASH_STEP

await runService(Layer.succeed(StepHooks, {
  reached: (name) =>
    Effect.sync(() => {
      if (name === point) process.kill(process.pid, "SIGKILL")
    })
}) as Layer.Layer<never>)
