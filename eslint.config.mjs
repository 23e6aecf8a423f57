import js from "@eslint/js"
import regexp from "eslint-plugin-regexp"
import tseslint from "typescript-eslint"

/**
 * The linter: ESLint's and typescript-eslint's recommended rules with the
 * exceptions the Effect codebases make, and eslint-plugin-regexp's recommended
 * rules with super-linear backtracking and moves as errors (a pattern that
 * meets outside text must stay linear; test/regex-linear.test.ts holds src/
 * to it).
 */
export default tseslint.config(
  { ignores: ["node_modules/", "reports/", ".stryker-tmp/", "coverage/", "dist/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  regexp.configs["flat/recommended"],
  {
    files: ["**/*.ts", "**/*.mjs"],
    languageOptions: { ecmaVersion: "latest", sourceType: "module" },
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      "object-shorthand": "error",
      "prefer-destructuring": "off",
      "prefer-rest-params": "off",
      "prefer-spread": "off",
      "require-yield": "off",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/ban-ts-comment": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unsafe-function-type": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "regexp/no-super-linear-backtracking": "error",
      "regexp/no-super-linear-move": "error",
      // Schema patterns are published in JSON Schema, which has no flags and
      // whose validators in other languages read \d and \w as Unicode classes:
      // [0-9] and [A-Za-z] say the same thing everywhere.
      "regexp/prefer-d": "off",
      "regexp/prefer-w": "off",
      "regexp/use-ignore-case": "off"
    }
  }
)
