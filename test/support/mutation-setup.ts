/**
 * Setup for `vitest.mutation-domain.config.ts` only (never `npm test`):
 * Stryker runs the pure tests once per mutant, so property tests that do not
 * set their own `numRuns` try 20 cases instead of fast-check's 100.
 */
import fc from "fast-check"

fc.configureGlobal({ numRuns: 20 })
