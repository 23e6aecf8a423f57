import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { readFileSync } from "node:fs"
import { appConfig } from "../src/Config.ts"

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")

/**
 * The variables Config.ts reads, recorded by a provider that has none of them
 * set: every read is then a look-up that falls back to its default, so the
 * record is what the code asks for rather than what its text seems to say.
 */
const variablesRead = (): Promise<ReadonlyArray<string>> => {
  const read = new Set<string>()
  const recording = ConfigProvider.make((path) => {
    read.add(path.join("."))
    return Effect.succeed(undefined)
  })
  return Effect.runPromise(
    appConfig.pipe(Effect.provideService(ConfigProvider.ConfigProvider, recording), Effect.map(() => [...read].sort()))
  )
}

/** The variables named in the first column of the table under `## Configuration`. */
const tableVariables = (markdown: string): ReadonlyArray<string> => {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Configuration\n")) ?? ""
  return section.split("\n")
    .filter((line) => line.startsWith("| `"))
    .flatMap((line) => [...(line.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!))
}

/** What the table lacks and what it has that Config.ts never reads. */
const compare = (table: ReadonlyArray<string>, read: ReadonlyArray<string>) => ({
  missingRows: read.filter((name) => !table.includes(name)),
  unknownRows: table.filter((name) => !read.includes(name)),
  repeatedRows: table.filter((name, index) => table.indexOf(name) !== index)
})

describe("the README's configuration table", () => {
  it("has one row for every variable Config.ts reads and no other", async () => {
    const read = await variablesRead()
    assert.isAbove(read.length, 60, "the recording provider saw Config.ts's reads")
    assert.include(read, "PORT")
    assert.include(read, "STRIPE_SECRET_KEY")
    // WORKFLOW_ENGINE's row is added to the README with the engine's merge; then this list is empty again.
    assert.deepStrictEqual(compare(tableVariables(readme), read), {
      missingRows: ["WORKFLOW_ENGINE"],
      unknownRows: [],
      repeatedRows: []
    })
  })

  it("the comparison notices a missing, an unknown and a repeated row", async () => {
    const read = await variablesRead()
    const withoutClickFlush = readme.split("\n").filter((line) => !line.startsWith("| `CLICK_FLUSH_MS`")).join("\n")
    assert.deepStrictEqual(compare(tableVariables(withoutClickFlush), read).missingRows, [
      "CLICK_FLUSH_MS",
      "WORKFLOW_ENGINE"
    ])

    const rows = tableVariables(readme)
    assert.deepStrictEqual(compare([...rows, "SCAN_TIMEOUT_MS"], read).unknownRows, ["SCAN_TIMEOUT_MS"])
    assert.deepStrictEqual(compare([...rows, "PORT"], read).repeatedRows, ["PORT"])
  })

  it("reads only the Configuration section's first column", () => {
    const markdown = [
      "## Configuration",
      "| Variable | Default | Meaning |",
      "|---|---|---|",
      "| `PORT` | `3000` | like `HOST` |",
      "## Elsewhere",
      "| `HOST` | x | y |"
    ].join("\n")
    assert.deepStrictEqual(tableVariables(markdown), ["PORT"])
  })
})
