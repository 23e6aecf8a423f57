import { assert, describe, it } from "@effect/vitest"
import { fileURLToPath } from "node:url"
import { type Edge, featureCycle, importEdges, violation } from "./support/importGraph.ts"
import { expectedKey, serviceKeys } from "./support/serviceKeys.ts"
import { migrationTables, tableReferences } from "./support/sqlTables.ts"
import { ownershipViolations, type SharedUse, staleSharedUses } from "./support/tableOwners.ts"

const src = fileURLToPath(new URL("../src", import.meta.url))
const migrations = fileURLToPath(new URL("../migrations", import.meta.url))

const analyticsReads = (file: string, tables: ReadonlyArray<string>): ReadonlyArray<SharedUse> =>
  tables.map((table) => ({
    file,
    table,
    reads: true,
    reason:
      "analytics is a read model: one query per report joins the figures where they are written; it writes none of them"
  }))

/** Uses of another owner's table kept on purpose. Anything not here goes through the owner's service. */
const sharedUses: ReadonlyArray<SharedUse> = [
  ...analyticsReads("features/analytics/Analytics.ts", [
    "content",
    "link_clicks",
    "tracked_links",
    "post_metrics",
    "revenue"
  ]),
  ...analyticsReads("features/analytics/OwnFiguresRepo.ts", ["content", "events"]),
  {
    file: "platform/Keys.ts",
    table: "customers",
    reads: true,
    reason: "authentication reads the key and its customer's status in one round trip on every request"
  },
  ...["webhooks", "webhook_events", "webhook_deliveries"].map((table): SharedUse => ({
    file: "platform/Outbox.ts",
    table,
    reads: table === "webhooks",
    reason:
      "the outbox records an event and its deliveries in the transaction of the change that caused it, so neither exists without the other"
  })),
  ...(["features/social/Publisher.ts", "features/social/pages.ts"] as const).map((file): SharedUse => ({
    file,
    table: "content",
    reads: true,
    reason:
      "a post is sent and shown with its piece's text: the publisher's claim and the sandbox page read it with the job in one statement"
  }))
]

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
    assert.deepStrictEqual(featureCycle([edge("agent", "workflows"), edge("workflows", "agent")]), [
      "feature:agent",
      "feature:workflows",
      "feature:agent"
    ])
    assert.deepStrictEqual(featureCycle([edge("a", "b"), edge("b", "c"), edge("c", "a")])?.length, 4)
    assert.isUndefined(featureCycle([edge("a", "b"), edge("b", "c"), edge("a", "c")]))
  })

  it("every table is named in SQL only by its owner, or by a use declared with its reason", () => {
    const references = tableReferences(src, migrationTables(migrations))
    assert.isAbove(references.length, 50, "the SQL was read")
    assert.deepStrictEqual(ownershipViolations(references, sharedUses), [])
    assert.deepStrictEqual(staleSharedUses(references, sharedUses), [], "a declared use the code no longer has")
  })

  it("the table rule finds unowned tables, undeclared uses and writes declared as reads", () => {
    const reads: ReadonlyArray<SharedUse> = [{
      file: "features/analytics/A.ts",
      table: "content",
      reads: true,
      reason: ""
    }]
    assert.deepStrictEqual(
      ownershipViolations([{ file: "features/content/Repo.ts", table: "content", readOnly: false }], []),
      []
    )
    assert.lengthOf(
      ownershipViolations([{ file: "features/social/Publisher.ts", table: "content", readOnly: true }], []),
      1
    )
    assert.lengthOf(
      ownershipViolations([{ file: "features/x/Repo.ts", table: "nobody_owns_me", readOnly: true }], []),
      1
    )
    assert.deepStrictEqual(
      ownershipViolations([{ file: "features/analytics/A.ts", table: "content", readOnly: true }], reads),
      []
    )
    assert.lengthOf(
      ownershipViolations([{ file: "features/analytics/A.ts", table: "content", readOnly: false }], reads),
      1
    )
    assert.lengthOf(
      ownershipViolations([{ file: "features/workflows/Run.ts", table: "cluster_messages", readOnly: false }], []),
      1
    )
    assert.deepStrictEqual(
      ownershipViolations([{ file: "features/workflows/Engine.ts", table: "cluster_messages", readOnly: false }], []),
      []
    )
    assert.deepStrictEqual(staleSharedUses([], reads), ["features/analytics/A.ts content"])
  })

  it("every service key follows one scheme: herald/<folder under src>/<declared name>", () => {
    const keys = serviceKeys(src)
    assert.isAbove(keys.length, 40, "the keys were read")
    assert.deepStrictEqual(keys.filter((k) => k.key !== expectedKey(k)).map((k) => `${k.file} ${k.name}: ${k.key}`), [])
    assert.strictEqual(new Set(keys.map((k) => k.key)).size, keys.length, "keys are unique")
  })

  it("the key scheme names the folder and the declared name", () => {
    assert.strictEqual(
      expectedKey({ file: "features/content/Repo.ts", name: "ContentRepo" }),
      "herald/features/content/ContentRepo"
    )
    assert.strictEqual(expectedKey({ file: "Config.ts", name: "AppConfig" }), "herald/AppConfig")
    assert.notStrictEqual(expectedKey({ file: "platform/Cursor.ts", name: "Cursors" }), "herald/server/Cursors")
  })
})
