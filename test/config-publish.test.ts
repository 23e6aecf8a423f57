import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { appConfig, describeConfigError } from "../src/Config.ts"

const read = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.result(appConfig.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))))
  )

/**
 * Publishing settings: every schedule and lease the configuration accepts is
 * safe with every provider (a retry the provider's answer cannot settle waits,
 * uncounted, instead of posting twice), so none is refused for being short;
 * what is refused is what cannot work, in one line naming the variable.
 */
describe("publish settings", () => {
  it("the shortest schedule and lease are accepted with Ayrshare", async () => {
    const result = await read({ SOCIAL_PROVIDER: "ayrshare", PUBLISH_RETRY_SCHEDULE: "0", PUBLISH_LEASE_SECONDS: "1" })
    assert.strictEqual(result._tag, "Success")
    if (result._tag === "Success") {
      assert.deepStrictEqual(result.success.publishRetrySchedule, [0])
      assert.strictEqual(result.success.publishLeaseSeconds, 1)
      assert.strictEqual(result.success.socialProvider, "ayrshare")
    }
  })

  it("a lease of 0 or a schedule that is not numbers stops start-up naming the variable", async () => {
    for (
      const [env, name] of [
        [{ PUBLISH_LEASE_SECONDS: "0" }, "PUBLISH_LEASE_SECONDS"],
        [{ PUBLISH_RETRY_SCHEDULE: "5,soon" }, "PUBLISH_RETRY_SCHEDULE"],
        [{ PUBLISH_RETRY_SCHEDULE: "-5" }, "PUBLISH_RETRY_SCHEDULE"]
      ] as const
    ) {
      const result = await read(env)
      assert.strictEqual(result._tag, "Failure", JSON.stringify(env))
      if (result._tag === "Failure") {
        const line = describeConfigError(result.failure)
        assert.isTrue(line.startsWith(`${name}: `), line)
        assert.notInclude(line, "\n")
      }
    }
  })
})
