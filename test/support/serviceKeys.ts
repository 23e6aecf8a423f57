import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import ts from "typescript"
import { sourceFiles } from "./importGraph.ts"

/** A service key written in src/: the file, the name it is declared under, the key string. */
export interface ServiceKey {
  readonly file: string
  readonly name: string
  readonly key: string
}

/** `Context.Service<..>()("key")`, `HttpApiMiddleware.Service<..>()("key")`: the key of a class's heritage call. */
const heritageKey = (node: ts.ClassDeclaration): string | undefined => {
  const expression = node.heritageClauses?.[0]?.types[0]?.expression
  if (expression === undefined || !ts.isCallExpression(expression)) return undefined
  const [argument] = expression.arguments
  const callee = expression.expression
  if (argument === undefined || !ts.isStringLiteral(argument) || !ts.isCallExpression(callee)) return undefined
  return /\.Service\b/.test(callee.expression.getText()) ? argument.text : undefined
}

/** `const X = Context.Reference<..>("key", ...)`: the key of a reference. */
const referenceKey = (node: ts.VariableDeclaration): string | undefined => {
  const init = node.initializer
  if (init === undefined || !ts.isCallExpression(init)) return undefined
  const [argument] = init.arguments
  if (argument === undefined || !ts.isStringLiteral(argument)) return undefined
  return /\bContext\.Reference\b/.test(init.expression.getText()) ? argument.text : undefined
}

/** Every service, middleware and reference key declared under `root`. */
export const serviceKeys = (root: string): ReadonlyArray<ServiceKey> =>
  sourceFiles(root).flatMap((file) => {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true)
    const keys: Array<ServiceKey> = []
    const visit = (node: ts.Node) => {
      if (ts.isClassDeclaration(node) && node.name !== undefined) {
        const key = heritageKey(node)
        if (key !== undefined) keys.push({ file, name: node.name.text, key })
      } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
        const key = referenceKey(node)
        if (key !== undefined) keys.push({ file, name: node.name.text, key })
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
    return keys
  })

/**
 * The one naming scheme: `herald/` + the folder of the declaring file under
 * src/ + `/` + the declared name (`herald/features/content/ContentRepo`,
 * `herald/platform/Events`, `herald/AppConfig` at the top). Every key then
 * starts with `herald/`, which is how the HTTP server tells the app's
 * services (taken when layers are built) from what a request provides.
 */
export const expectedKey = ({ file, name }: Pick<ServiceKey, "file" | "name">): string => {
  const folder = dirname(file)
  return folder === "." ? `herald/${name}` : `herald/${folder}/${name}`
}
