import { defineConfig } from "vitest/config"

/**
 * The tests `npm run mutation` (StrykerJS) runs against each mutant: the pure
 * rules' unit and property tests, and the app tests of the security-critical
 * platform files (keys, idempotency, tenancy checks) on an in-memory PGlite.
 */
export default defineConfig({
  test: {
    include: [
      "test/domain-rules.test.ts",
      "test/domain-contract.test.ts",
      "test/content-rules.test.ts",
      "test/input-rules.property.test.ts",
      "test/keys.property.test.ts",
      "test/webhook-signature.test.ts",
      "test/outbound-guard.test.ts",
      "test/cursor.test.ts",
      "test/idempotency.test.ts",
      "test/platform-security.test.ts"
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
