import { assert, describe, it } from "@effect/vitest"
import { ESLint } from "eslint"
import regexp from "eslint-plugin-regexp"
import { join } from "node:path"
import tseslint from "typescript-eslint"

/**
 * Every regular expression in src/ is free of super-linear backtracking and
 * super-linear moves, as eslint-plugin-regexp analyses them (patterns meet
 * pages, messages, bodies and headers from outside). Only those two rules run,
 * without the project's lint configuration and with disabling comments
 * ignored, so neither a config change nor an inline exception hides a finding.
 */
const root = join(import.meta.dirname, "..")

const analyzer = () =>
  new ESLint({
    cwd: root,
    overrideConfigFile: true,
    allowInlineConfig: false,
    overrideConfig: [{
      files: ["**/*.ts"],
      languageOptions: { parser: tseslint.parser, sourceType: "module" },
      plugins: { regexp },
      rules: { "regexp/no-super-linear-backtracking": "error", "regexp/no-super-linear-move": "error" }
    }]
  })

const findings = (results: ReadonlyArray<ESLint.LintResult>) =>
  results.flatMap((r) =>
    r.messages.map((m) =>
      `${r.filePath.slice(root.length + 1)}:${m.line}:${m.column} ${m.ruleId ?? "parse error"}: ${
        m.message.slice(0, 200)
      }`
    )
  )

describe("linear regular expressions", () => {
  it("finds none super-linear in src/", async () => {
    const results = await analyzer().lintFiles(["src/**/*.ts"])
    assert.isAbove(results.length, 100, "the analyzer read the sources")
    assert.deepStrictEqual(findings(results), [])
  }, 300_000)

  it("finds the kinds it guards against: nested quantifiers, and quantifiers retried from every start", async () => {
    const eslint = analyzer()
    const source = [
      "export const nested = (s: string) => /^(a+)+$/.test(s)",
      "export const trailing = (s: string) => s.replace(/\\s+$/, \"\")",
      "// eslint-disable-next-line regexp/no-super-linear-backtracking",
      "export const hidden = (s: string) => /^(?:c+)+d$/.test(s)"
    ].join("\n")
    const [result] = await eslint.lintText(source, { filePath: join(root, "src/example.ts") })
    assert.deepStrictEqual(result.messages.map((m) => [m.line, m.ruleId]), [
      [1, "regexp/no-super-linear-backtracking"],
      [2, "regexp/no-super-linear-move"],
      [4, "regexp/no-super-linear-backtracking"]
    ])
  }, 60_000)
})
