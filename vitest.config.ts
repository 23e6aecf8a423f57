import { readdirSync, readFileSync } from "node:fs"
import { defineConfig } from "vitest/config"

/**
 * Test files that reach no database: nothing from the support modules that
 * start the service or its layers, no SQL client, no child service. CI runs
 * the suite against PostgreSQL and again against PGlite; with
 * `TEST_SCOPE=database` the second run leaves these out, since they would
 * repeat the same work with no database under them.
 */
const reachesDatabase =
  /support\/(?:harness|processes|services)\.ts|effect\/sql|DATABASE_URL|service-process|src\/main\.ts/
const databaseFree = readdirSync("test")
  .filter((file) => file.endsWith(".test.ts"))
  .filter((file) => !reachesDatabase.test(readFileSync(`test/${file}`, "utf8")))
  .map((file) => `test/${file}`)

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: process.env["TEST_SCOPE"] === "database" ? databaseFree : [],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2
  }
})
