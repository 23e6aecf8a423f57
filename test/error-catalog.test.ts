import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { errorClasses, errorStatuses } from "../src/domain/ErrorCatalog.ts"

describe("error catalog", () => {
  it("lists every error class once, by tag length then tag (an order no module loader decides)", () => {
    const tags = errorClasses().map((c) => c.tag)
    assert.isAbove(tags.length, 20)
    assert.strictEqual(new Set(tags).size, tags.length)
    for (let i = 1; i < tags.length; i++) {
      const [a, b] = [tags[i - 1]!, tags[i]!]
      assert.isTrue(a.length < b.length || (a.length === b.length && a < b), `${a} before ${b}`)
    }
    assert.include(tags, "NotFound")
    assert.deepStrictEqual(errorClasses().find((c) => c.tag === "NotFound"), {
      tag: "NotFound",
      code: "E_NOT_FOUND",
      status: 404
    })
  })

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
