import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, normalize, relative } from "node:path"
import ts from "typescript"

/** One import of one of our modules by another, as paths relative to `src/`. */
export interface Edge {
  readonly from: string
  readonly to: string
}

const wiring = new Set(["main.ts", "Service.ts", "App.ts", "ApiRoutes.ts", "Tools.ts"])

/** Where a module sits: `domain`, `api`, `platform`, `feature:<name>`, `config` or `wiring`. */
export const layerOf = (path: string): string => {
  const [top, second] = path.split("/")
  if (top === "features") return `feature:${second}`
  if (top === "domain" || top === "api" || top === "platform") return top
  if (path === "Config.ts") return "config"
  if (wiring.has(path)) return "wiring"
  return "unknown"
}

/** A feature's files that other features must not reach: its SQL, its REST handlers and its tool handlers. */
const isPrivateToFeature = (path: string) => /(?:Repo|\/http|\/tools)\.ts$/.test(path) || /\/(?:repo|http)\//.test(path)

/**
 * Why an import breaks the layering (docs/design/architecture.md, "Layering rules"), or undefined when it
 * is allowed: domain imports only domain; api only api and domain; platform
 * no feature and no wiring; a feature platform, domain, api, config, its own
 * folder and other features' services, never their repos or handlers; only
 * the wiring imports the wiring.
 */
export const violation = ({ from, to }: Edge): string | undefined => {
  const source = layerOf(from)
  const target = layerOf(to)
  if (target === "unknown" || source === "unknown") return `${from} -> ${to}: outside the layout`
  if (target === "wiring" && source !== "wiring") return `${from} -> ${to}: only the wiring imports the wiring`
  switch (source) {
    case "domain":
      return target === "domain" ? undefined : `${from} -> ${to}: domain imports only domain`
    case "config":
      return target === "domain" ? undefined : `${from} -> ${to}: Config imports only domain`
    case "api":
      return target === "api" || target === "domain" ? undefined : `${from} -> ${to}: api imports only api and domain`
    case "platform":
      return target.startsWith("feature:") ? `${from} -> ${to}: platform imports no feature` : undefined
    case "wiring":
      return undefined
    default:
      if (target.startsWith("feature:") && target !== source && isPrivateToFeature(to)) {
        return `${from} -> ${to}: another feature's repo or handlers (use its service)`
      }
      return undefined
  }
}

/** Every .ts file under `root`, as paths relative to it. */
export const sourceFiles = (root: string, dir = ""): ReadonlyArray<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(root, path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

/** Every relative import between the `.ts` files under `root`, read with TypeScript's own pre-processor. */
export const importEdges = (root: string): ReadonlyArray<Edge> =>
  sourceFiles(root).flatMap((from) =>
    ts.preProcessFile(readFileSync(join(root, from), "utf8"), true, true).importedFiles
      .map((file) => file.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => ({ from, to: relative(root, normalize(join(root, dirname(from), name))) }))
  )

/**
 * A chain of features that depend on each other in a circle (`a -> b -> a`),
 * or undefined when the features' dependencies form no cycle: two capabilities
 * that need each other are one capability, or miss a shared mechanism.
 */
export const featureCycle = (edges: ReadonlyArray<Edge>): ReadonlyArray<string> | undefined => {
  const next = new Map<string, Set<string>>()
  for (const { from, to } of edges) {
    const a = layerOf(from)
    const b = layerOf(to)
    if (a.startsWith("feature:") && b.startsWith("feature:") && a !== b) {
      next.set(a, (next.get(a) ?? new Set()).add(b))
    }
  }
  const done = new Set<string>()
  const visit = (node: string, path: ReadonlyArray<string>): ReadonlyArray<string> | undefined => {
    if (path.includes(node)) return [...path.slice(path.indexOf(node)), node]
    if (done.has(node)) return undefined
    for (const target of next.get(node) ?? []) {
      const cycle = visit(target, [...path, node])
      if (cycle !== undefined) return cycle
    }
    done.add(node)
    return undefined
  }
  for (const node of next.keys()) {
    const cycle = visit(node, [])
    if (cycle !== undefined) return cycle
  }
  return undefined
}
