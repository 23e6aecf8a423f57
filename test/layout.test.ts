import { assert, describe, it } from "@effect/vitest"
import { fileURLToPath } from "node:url"
import { type Edge, importEdges, violation } from "./support/importGraph.ts"

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
      { from: "features/content/Content.ts", to: "server/Content.ts" }
    ]
    const allowed: ReadonlyArray<Edge> = [
      { from: "features/content/Content.ts", to: "features/settings/Settings.ts" },
      { from: "features/content/Content.ts", to: "features/content/Repo.ts" },
      { from: "features/content/http.ts", to: "platform/http/LeanGroup.ts" },
      { from: "platform/Security.ts", to: "api/Security.ts" },
      { from: "api/Content.ts", to: "domain/Content.ts" },
      { from: "ApiRoutes.ts", to: "features/content/http.ts" }
    ]
    for (const edge of refused) assert.isString(violation(edge), `${edge.from} -> ${edge.to}`)
    for (const edge of allowed) assert.isUndefined(violation(edge), `${edge.from} -> ${edge.to}`)
  })
})
