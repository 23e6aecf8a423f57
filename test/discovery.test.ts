import { assert, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { adminSecret, uniqueEmail } from "./support/processes.ts"
import { specToolNames } from "./support/specTools.ts"

const twelve = [...specToolNames]

const get = (path: string, headers: Record<string, string> = {}) => call("GET", path, { headers })

layer(testApp(), { timeout: 60_000 })("discovery documents", (it) => {
  it.effect("the server card, both agent cards and MCP tools/list agree, all from the registry", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const card = yield* get("/.well-known/mcp/server-card.json")
      assert.strictEqual(card.status, 200)
      assert.deepStrictEqual(card.json.tools.map((t: any) => t.name), twelve)
      for (const key of ["name", "title", "version", "description"]) assert.isString(card.json[key])
      assert.deepStrictEqual(card.json.remotes.map((r: any) => [r.type, r.url]), [
        ["sse", `${url}/mcp/sse`],
        ["streamable-http", `${url}/mcp`]
      ])
      for (const tool of card.json.tools) {
        assert.isAbove(tool.description.length, 40)
        assert.strictEqual(tool.inputSchema.type, "object")
        assert.include(tool.inputSchema.required, "customerId")
        assert.isFalse(tool.inputSchema.additionalProperties)
        // Every argument is described for the model.
        for (const [name, property] of Object.entries<any>(tool.inputSchema.properties)) {
          assert.isString(property.description ?? property.items?.description, `${tool.name}.${name}`)
        }
        assert.strictEqual(tool.inputSchema.properties.customerId.format, "uuid")
      }
      for (const path of ["/.well-known/mcp/server-card", "/mcp/server-card"]) {
        assert.deepStrictEqual((yield* get(path)).json, card.json)
      }

      const agent = yield* get("/api/public/agent-card")
      assert.strictEqual(agent.status, 200)
      assert.deepStrictEqual(agent.json.tools.map((t: any) => t.name), twelve)
      assert.deepStrictEqual(
        agent.json.tools.map((t: any) => [t.name, t.description, t.inputSchema]),
        card.json.tools.map((t: any) => [t.name, t.description, t.inputSchema])
      )
      const readOnly = agent.json.tools.filter((t: any) => t.annotations.readOnlyHint).map((t: any) => t.name)
      assert.sameMembers(readOnly, ["ask_cmo", "query_ga4"])
      const destructive = agent.json.tools.filter((t: any) => t.annotations.destructiveHint).map((t: any) => t.name)
      assert.sameMembers(destructive, ["schedule_content", "publish_to_social"])

      for (const path of ["/.well-known/agent.json", "/.well-known/agent-card.json"]) {
        const a2a = yield* get(path)
        assert.strictEqual(a2a.status, 200)
        for (
          const key of [
            "name",
            "description",
            "url",
            "version",
            "protocolVersion",
            "capabilities",
            "defaultInputModes",
            "defaultOutputModes",
            "skills",
            "securitySchemes"
          ]
        ) {
          assert.property(a2a.json, key)
        }
        assert.deepStrictEqual(a2a.json.skills.map((s: any) => s.id), twelve)
        for (const skill of a2a.json.skills) assert.isNotEmpty(skill.tags)
      }

      // tools/list shows the runnable ones, exactly those the agent card marks available, with the same schemas.
      const provisioned = yield* call("POST", "/api/admin/provision", {
        headers: { "x-admin-secret": adminSecret },
        body: { email: uniqueEmail("disc") }
      })
      const listed = yield* Effect.acquireUseRelease(
        Effect.promise(async () => {
          const client = new Client({ name: "discovery-test", version: "1" })
          await client.connect(
            new StreamableHTTPClientTransport(new URL(`${url}/mcp?token=${provisioned.json.apiKey}`))
          )
          return client
        }),
        (client) => Effect.promise(() => client.listTools()),
        (client) => Effect.promise(() => client.close())
      )
      const available = agent.json.tools.filter((t: any) => t.available)
      // Every tool runs on this server.
      assert.deepStrictEqual(available.map((t: any) => t.name), twelve)
      assert.deepStrictEqual(listed.tools.map((t) => t.name), available.map((t: any) => t.name))
      for (const tool of listed.tools) {
        const same = available.find((t: any) => t.name === tool.name)
        assert.deepStrictEqual(tool.inputSchema, same.inputSchema)
        assert.strictEqual(tool.description, same.description)
      }
    }))

  it.effect("api-catalog is an RFC 9727 linkset; HEAD carries its Link", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const res = yield* get("/.well-known/api-catalog")
      assert.strictEqual(res.status, 200)
      assert.strictEqual(
        res.headers.get("content-type"),
        "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\""
      )
      assert.deepStrictEqual(Object.keys(res.json), ["linkset"])
      assert.isArray(res.json.linkset)
      const [context] = res.json.linkset
      assert.strictEqual(context.anchor, url)
      assert.deepStrictEqual(context["service-desc"], [{
        href: `${url}/openapi.json`,
        type: "application/openapi+json"
      }])
      assert.isNotEmpty(context["service-doc"])
      assert.deepStrictEqual(context.status, [{ href: `${url}/api/public/status`, type: "application/json" }])
      // Every relation is an array of target objects with an href (RFC 9264 §4.2).
      for (const [rel, targets] of Object.entries(context)) {
        if (rel === "anchor") continue
        for (const target of targets as Array<any>) assert.isString(target.href)
      }
      const head = yield* call("HEAD", "/.well-known/api-catalog")
      assert.strictEqual(head.status, 200)
      assert.strictEqual(head.headers.get("link"), "</.well-known/api-catalog>; rel=\"api-catalog\"")
      // Every linked document answers.
      for (
        const target of [
          ...context["service-desc"],
          ...context.status,
          ...context["service-meta"],
          ...context["service-doc"]
        ]
      ) {
        assert.strictEqual((yield* get(new URL(target.href).pathname)).status, 200, target.href)
      }
    }))

  it.effect("llms.txt follows llmstxt.org: H1, blockquote, no headings in the notes, then H2 sections of links", () =>
    Effect.gen(function*() {
      const res = yield* get("/llms.txt")
      assert.strictEqual(res.status, 200)
      assert.match(res.headers.get("content-type")!, /^text\/plain/)
      const lines = res.text.split("\n")
      assert.strictEqual(lines[0], "# Herald")
      const firstH2 = lines.findIndex((line) => line.startsWith("## "))
      assert.isAbove(firstH2, 0)
      const before = lines.slice(1, firstH2)
      assert.isTrue(before.filter((l) => l.length > 0)[0].startsWith("> "), "a blockquote summary follows the title")
      assert.isFalse(before.some((l) => l.startsWith("#")), "no headings before the first section")
      assert.strictEqual(lines.filter((l) => l.startsWith("# ")).length, 1)
      for (const line of lines.slice(firstH2)) {
        if (line.length === 0 || line.startsWith("## ")) continue
        assert.match(line, /^- \[[^\]]+\]\([^)]+\)(: .+)?$/, line)
      }
      for (const name of twelve) assert.include(res.text, `[${name}]`)
      const sections = lines.filter((l) => l.startsWith("## "))
      assert.strictEqual(sections.at(-1), "## Optional")
    }))

  it.effect("the home page: escaped HTML with the seven Link rels, Markdown and agent modes, a sitemap", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const home = yield* get("/")
      assert.strictEqual(home.status, 200)
      assert.match(home.headers.get("content-type")!, /^text\/html/)
      assert.match(home.text, /^<!doctype html>\s*<html lang="en">/)
      assert.include(home.headers.get("content-security-policy")!, "default-src 'none'")
      assert.strictEqual(home.headers.get("referrer-policy"), "no-referrer")
      const links = home.headers.get("link")!.split(/,\s*(?=<)/).map((link) => {
        const [, target, params] = /^<([^>]+)>(.*)$/.exec(link)!
        return [/rel="([^"]+)"/.exec(params)![1], target, /type="([^"]+)"/.exec(params)?.[1]] as const
      })
      assert.deepStrictEqual(links.map(([rel, target]) => [rel, target]), [
        ["sitemap", "/sitemap.xml"],
        ["alternate", "/index.md"],
        ["service-desc", "/openapi.json"],
        ["api-catalog", "/.well-known/api-catalog"],
        ["describedby", "/?mode=agent"],
        ["related", "/.well-known/mcp/server-card.json"],
        ["llms-txt", "/llms.txt"]
      ])
      assert.strictEqual(links[1][2], "text/markdown")
      for (const [, target] of links) assert.strictEqual((yield* get(target)).status, 200, target)
      // Every tool and every REST operation is on the page; nothing unescaped.
      for (const name of twelve) assert.include(home.text, name)
      assert.include(home.text, "GET /api/content/{customerId}")
      assert.notInclude(
        home.text.replace(
          /<\/?[a-z0-9]+(?: [a-z-]+(?:="[^"<>]*")?)*>|<!doctype html>|<meta [^<>]*>|<link [^<>]*>/g,
          ""
        ),
        "<"
      )

      const agent = yield* get("/?mode=agent")
      assert.strictEqual(agent.status, 200)
      assert.match(agent.headers.get("content-type")!, /^application\/json/)
      assert.deepStrictEqual(agent.json.tools.map((t: any) => t.name), twelve)
      assert.strictEqual(agent.json.endpoints.mcpSse, `${url}/mcp/sse`)
      assert.isTrue(agent.json.operations.some((op: any) => op.path === "/api/public/agent-card"))

      const md = yield* get("/index.md")
      assert.match(md.headers.get("content-type")!, /^text\/markdown/)
      assert.isTrue(md.text.startsWith("# Herald\n"))
      assert.include(md.text, "`POST /api/content/{customerId}`")
      assert.strictEqual((yield* get("/", { accept: "text/markdown" })).text, md.text)

      const map = yield* get("/sitemap.xml")
      assert.match(map.headers.get("content-type")!, /^application\/xml/)
      assert.include(map.text, "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">")
      assert.include(map.text, `<loc>${url}/llms.txt</loc>`)
    }))

  it.effect("CORS * on every discovery GET", () =>
    Effect.gen(function*() {
      for (
        const path of [
          "/",
          "/?mode=agent",
          "/index.md",
          "/llms.txt",
          "/sitemap.xml",
          "/.well-known/api-catalog",
          "/.well-known/agent.json",
          "/.well-known/agent-card.json",
          "/.well-known/mcp/server-card.json",
          "/.well-known/mcp/server-card",
          "/openapi.json",
          "/.well-known/oauth-protected-resource"
        ]
      ) {
        const res = yield* get(path, { origin: "https://elsewhere.example" })
        assert.strictEqual(res.status, 200, path)
        assert.strictEqual(res.headers.get("access-control-allow-origin"), "*", path)
        assert.isString(res.headers.get("x-request-id"))
      }
      const card = yield* get("/api/public/agent-card", { origin: "https://elsewhere.example" })
      assert.strictEqual(card.status, 200)
      assert.strictEqual(card.headers.get("access-control-allow-origin"), "*")
    }))
})
