import { defineConfig } from "vitest/config"

/** The pure rules' unit and property tests: what `npm run mutation:domain` runs against each mutant of src/domain. */
export default defineConfig({
  test: {
    include: [
      "test/domain-rules.test.ts",
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
      "test/social-rules.property.test.ts"
    ],
    testTimeout: 30_000
  }
})
