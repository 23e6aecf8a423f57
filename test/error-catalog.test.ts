import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { errorClasses, errorStatuses } from "../src/domain/ErrorCatalog.ts"

describe("error catalog", () => {
  it("a code two classes share keeps the general class's status, whatever order the module's exports are listed in", () => {
    assert.strictEqual(errorStatuses().get("E_SIGNATURE_INVALID"), 401)
    const shared = errorClasses().filter((c) => c.code === "E_SIGNATURE_INVALID").map((c) => [c.tag, c.status])
    assert.deepStrictEqual(shared, [["SignatureInvalid", 401], ["PaymentSignatureInvalid", 400]])
    // Plain Node lists a namespace's exports alphabetically (vitest in source order): the answer must not change.
    const underNode = execFileSync(process.execPath, [
      "--input-type=module",
      "-e",
      `const m = await import(${JSON.stringify(new URL("../src/domain/ErrorCatalog.ts", import.meta.url).href)}); ` +
      `console.log(m.errorStatuses().get("E_SIGNATURE_INVALID"))`
    ], { encoding: "utf8" }).trim()
    assert.strictEqual(underNode, "401")
  })
})
