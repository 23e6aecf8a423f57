import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * Stryker runs every test file for a static mutant (a declaration evaluated at
 * import) and stops at the first failure: files that failed last time go
 * first, as vitest does, then the quick `*.mutation.test.ts` files that
 * assert the declarations, then the rest, slowest first.
 */
class DeclarationsFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const failed = (spec: TestSpecification) => this.ctx.cache.getTestSpecificationResult(spec)?.failed === true
    const first = (spec: TestSpecification) => failed(spec) || spec.moduleId.endsWith(".mutation.test.ts")
    return [...sorted.filter(first), ...sorted.filter((spec) => !first(spec))]
  }
}

/** The pure rules' unit and property tests: what `npm run mutation:domain` runs against each mutant of src/domain. */
export default defineConfig({
  test: {
    include: [
      "test/domain-rules.test.ts",
      "test/error-catalog.test.ts",
      "test/domain-contract.test.ts",
      "test/content-rules.test.ts",
      "test/input-rules.property.test.ts",
      "test/keys.property.test.ts",
      "test/webhook-signature.test.ts",
      "test/billing-rules.property.test.ts",
      "test/brand-from.test.ts",
      "test/chat-rules.property.test.ts",
      "test/cron.property.test.ts",
      "test/drafting.property.test.ts",
      "test/house-model.property.test.ts",
      "test/scan-rules.property.test.ts",
      "test/social-rules.property.test.ts",
      "test/domain-*.mutation.test.ts"
    ],
    setupFiles: ["test/support/mutation-setup.ts"],
    sequence: { sequencer: DeclarationsFirst },
    testTimeout: 30_000
  }
})
