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

/** An exported layer constant of src/: the file and the name it is exported under. */
export interface LayerExport {
  readonly file: string
  readonly name: string
}

// An initializer built with the Layer module, a router or an HTTP API builder, or a
// service's own layer; or another layer under a new name. Read from the syntax: the
// type checker gives the same list on this code but takes about a minute.
const layerish =
  /\bLayer\.|\bHttpRouter\.(?:use|middleware)\b|\bleanGroup\(|\.toLayer\(|\.layer\b|\bHttpApiBuilder\.layer\(|\bjsonDocumentRoute\(/

const exported = (statement: ts.VariableStatement) =>
  statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) === true

/** Every exported constant under `root` that is a layer (functions and plain values are not). */
export const layerExports = (root: string): ReadonlyArray<LayerExport> =>
  sourceFiles(root).flatMap((file) => {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true)
    return source.statements.filter(ts.isVariableStatement).filter(exported).flatMap((statement) =>
      statement.declarationList.declarations.flatMap((declaration) => {
        const init = declaration.initializer
        if (init === undefined || !ts.isIdentifier(declaration.name)) return []
        if (
          ts.isArrowFunction(init) || ts.isFunctionExpression(init) || ts.isObjectLiteralExpression(init) ||
          ts.isArrayLiteralExpression(init) || ts.isAsExpression(init)
        ) return []
        const isLayer = layerish.test(init.getText()) || (ts.isIdentifier(init) && layerName.test(init.text))
        return isLayer ? [{ file, name: declaration.name.text }] : []
      })
    )
  })

/**
 * The one naming scheme for layers: a service's own layer is its class's
 * static `layer`; every exported layer is named for its role, `Live` (the
 * services or background work it brings, and each feature's one layer for
 * the app), `Services` (a feature's services without its loops and routes,
 * for other features and tests), `Routes`, `Handlers` (a REST group's) or
 * `Middleware`.
 */
export const layerName = /(?:Live|Services|Routes|Handlers|Middleware)$/

/** A feature's `Live.ts` exports `<Feature>Live`, and `<Feature>Services` when the feature has loops or routes besides. */
export const featureLayerNames = (folder: string): ReadonlyArray<string> => {
  const feature = folder.charAt(0).toUpperCase() + folder.slice(1)
  return [`${feature}Live`, `${feature}Services`]
}
