import { assert, describe, it } from "@effect/vitest"
import { fileURLToPath } from "node:url"
import { type Edge, featureCycle, importEdges, violation } from "./support/importGraph.ts"
import { expectedKey, serviceKeys } from "./support/serviceKeys.ts"

const src = fileURLToPath(new URL("../src", import.meta.url))

describe("layout", () => {
  it("no module of src/ imports across the layering", () => {
    const edges = importEdges(src)
    assert.isAbove(edges.length, 50, "the graph was read")
    assert.deepStrictEqual(edges.map(violation).filter((reason) => reason !== undefined), [])
  })

  it("the rule refuses each forbidden kind of edge and allows the rest", () => {
    const refused: ReadonlyArray<Edge> = [
      { from: "domain/Content.ts", to: "platform/Events.ts" },
      { from: "domain/Content.ts", to: "api/Content.ts" },
      { from: "api/Content.ts", to: "platform/Cursor.ts" },
      { from: "platform/Security.ts", to: "features/customers/Customers.ts" },
      { from: "platform/http/Server.ts", to: "ApiRoutes.ts" },
      { from: "features/content/Content.ts", to: "features/settings/http.ts" },
      { from: "features/content/Content.ts", to: "features/social/Repo.ts" },
      { from: "features/content/Content.ts", to: "App.ts" },
      { from: "Config.ts", to: "platform/Database.ts" },
      { from: "features/content/Content.ts", to: "server/Content.ts" },
      { from: "features/agent/tools.ts", to: "features/analytics/tools.ts" },
      { from: "features/agent/Agent.ts", to: "features/analytics/OwnFiguresRepo.ts" }
    ]
    const allowed: ReadonlyArray<Edge> = [
      { from: "features/content/Content.ts", to: "features/settings/Settings.ts" },
      { from: "features/content/Content.ts", to: "features/content/Repo.ts" },
      { from: "features/content/http.ts", to: "platform/http/LeanGroup.ts" },
      { from: "platform/Security.ts", to: "api/Security.ts" },
      { from: "api/Content.ts", to: "domain/Content.ts" },
      { from: "ApiRoutes.ts", to: "features/content/http.ts" },
      { from: "Tools.ts", to: "features/scan/tools.ts" },
      { from: "features/scan/tools.ts", to: "platform/tools/Handler.ts" },
      { from: "platform/tools/ToolRunner.ts", to: "api/tools/definitions.ts" }
    ]
    for (const edge of refused) assert.isString(violation(edge), `${edge.from} -> ${edge.to}`)
    for (const edge of allowed) assert.isUndefined(violation(edge), `${edge.from} -> ${edge.to}`)
  })

  it("no two features depend on each other, directly or around a circle", () => {
    assert.isUndefined(featureCycle(importEdges(src)))
  })

  it("the cycle rule finds a circle of features and passes a chain", () => {
    const edge = (a: string, b: string): Edge => ({ from: `features/${a}/${a}.ts`, to: `features/${b}/${b}.ts` })
    assert.deepStrictEqual(featureCycle([edge("agent", "workflows"), edge("workflows", "agent")]), ["feature:agent", "feature:workflows", "feature:agent"])
    assert.deepStrictEqual(featureCycle([edge("a", "b"), edge("b", "c"), edge("c", "a")])?.length, 4)
    assert.isUndefined(featureCycle([edge("a", "b"), edge("b", "c"), edge("a", "c")]))
  })

  it("every service key follows one scheme: herald/<folder under src>/<declared name>", () => {
    const keys = serviceKeys(src)
    assert.isAbove(keys.length, 40, "the keys were read")
    assert.deepStrictEqual(keys.filter((k) => k.key !== expectedKey(k)).map((k) => `${k.file} ${k.name}: ${k.key}`), [])
    assert.strictEqual(new Set(keys.map((k) => k.key)).size, keys.length, "keys are unique")
  })

  it("the key scheme names the folder and the declared name", () => {
    assert.strictEqual(expectedKey({ file: "features/content/Repo.ts", name: "ContentRepo" }), "herald/features/content/ContentRepo")
    assert.strictEqual(expectedKey({ file: "Config.ts", name: "AppConfig" }), "herald/AppConfig")
    assert.notStrictEqual(expectedKey({ file: "platform/Cursor.ts", name: "Cursors" }), "herald/server/Cursors")
  })
})
