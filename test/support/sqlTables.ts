import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"
import { sourceFiles } from "./importGraph.ts"

/** A table named by SQL in a source file under src/, and whether that file only reads it. */
export interface TableReference {
  readonly file: string
  readonly table: string
  readonly readOnly: boolean
}

/** The tables the migrations create: the only names that count as tables below. */
export const migrationTables = (migrations: string): ReadonlySet<string> =>
  new Set(
    readdirSync(migrations).filter((f) => f.endsWith(".sql")).flatMap((f) =>
      [...readFileSync(join(migrations, f), "utf8").matchAll(/\bCREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/gi)]
        .map((m) => m[1]!.toLowerCase())
    )
  )

/** A table name right after the keywords that name one; FROM and JOIN read it, the others (DELETE FROM too) write it. */
const tableAfterKeyword = /\b(delete\s+from|from|join|into|update|table|only)\s+([a-z_][a-z0-9_]*)/gi

/**
 * Every table of `known` named in SQL text under `root`: the text of string and
 * template literals (the parts between interpolations), so comments and
 * identifiers in code do not count. Tables of effect/cluster (`cluster_*`)
 * count whether the migrations create them or not.
 */
export const tableReferences = (root: string, known: ReadonlySet<string>): ReadonlyArray<TableReference> =>
  sourceFiles(root).flatMap((file) => {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true)
    const found = new Map<string, boolean>()
    const scan = (text: string) => {
      for (const match of text.matchAll(tableAfterKeyword)) {
        const table = match[2]!.toLowerCase()
        if (!known.has(table) && !table.startsWith("cluster_")) continue
        const reads = /^(?:from|join)$/i.test(match[1]!)
        found.set(table, (found.get(table) ?? true) && reads)
      }
    }
    const visit = (node: ts.Node) => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) scan(node.text)
      else if (ts.isTemplateExpression(node)) {
        scan(node.head.text)
        for (const span of node.templateSpans) scan(span.literal.text)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
    return [...found].map(([table, readOnly]) => ({ file, table, readOnly }))
  })
