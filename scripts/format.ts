/**
 * The formatter: dprint's TypeScript plugin with the settings in dprint.json
 * (the Effect codebases' settings), run through @dprint/formatter, the
 * plugin's WebAssembly host for Node. The dprint CLI is not used: its npm
 * package installs a native binary per platform, and a lock file that must
 * list every platform's binary cannot be written where the registry serves
 * only some of them.
 *
 * `node scripts/format.ts` rewrites the files that differ; `--check` lists
 * them and exits 1. A file whose first comment is `// dprint-ignore-file` is
 * left as it is.
 */
import { createFromBuffer } from "@dprint/formatter"
import { getPath } from "@dprint/typescript"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

interface Settings {
  readonly lineWidth: number
  readonly indentWidth: number
  readonly typescript: Record<string, unknown>
  readonly roots: ReadonlyArray<string>
}

const root = fileURLToPath(new URL("..", import.meta.url))
const settings = JSON.parse(readFileSync(join(root, "dprint.json"), "utf8")) as Settings
const check = process.argv.includes("--check")

const formatter = createFromBuffer(readFileSync(getPath()))
formatter.setConfig({ lineWidth: settings.lineWidth, indentWidth: settings.indentWidth }, settings.typescript)

const skipped = new Set(["node_modules", "reports", "coverage", "dist", ".stryker-tmp", "test-artifacts"])

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name) || entry.name.startsWith(".")) return []
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return filesUnder(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

const files = settings.roots.flatMap((name) => filesUnder(join(root, name)))
const differing: Array<string> = []
for (const file of files) {
  const text = readFileSync(file, "utf8")
  const formatted = formatter.formatText({ filePath: file, fileText: text })
  if (formatted === text) continue
  differing.push(relative(root, file))
  if (!check) writeFileSync(file, formatted)
}

if (check && differing.length > 0) {
  process.stderr.write(`Not formatted (npm run format fixes them):\n${differing.map((file) => `  ${file}\n`).join("")}`)
  process.exit(1)
}
process.stdout.write(`${files.length} files, ${differing.length} ${check ? "not formatted" : "formatted"}\n`)
