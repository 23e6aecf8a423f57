import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { send } from "./support/harness.ts"
import { adminSecret, provisionAt, spawnServer, uniqueEmail } from "./support/processes.ts"

it.live(
  "MCP request logs show the status the client received (SSE stream, 202, refusals), never the token",
  () =>
    Effect.gen(function*() {
      const server = yield* spawnServer({
        env: { LOG_LEVEL: "info", DATABASE_URL: "pglite://memory", ADMIN_SECRET: adminSecret }
      })
      const url = server.url
      const key = (yield* Effect.promise(() => provisionAt(url, { email: uniqueEmail("logs") }))).apiKey
      const unknown = yield* Effect.promise(() =>
        send(url, "POST", "/mcp/message?sessionId=nope", { body: { jsonrpc: "2.0", id: 1, method: "ping" } })
      )
      const noToken = yield* Effect.promise(() => send(url, "GET", "/mcp/sse"))
      const stream = yield* Effect.promise(async () => {
        const abort = new AbortController()
        const res = await fetch(`${url}/mcp/sse?token=${key}`, { signal: abort.signal })
        const reader = res.body!.getReader()
        let text = ""
        // The stream opens with a comment; the endpoint event follows.
        while (!/event: endpoint\ndata: \S+\n\n/.test(text)) {
          text += new TextDecoder().decode((await reader.read()).value)
        }
        return {
          abort,
          endpoint: /event: endpoint\ndata: (\S+)/.exec(text)![1],
          status: res.status,
          id: res.headers.get("x-request-id")!
        }
      })
      const accepted = yield* Effect.promise(() =>
        send(url, "POST", stream.endpoint, { body: { jsonrpc: "2.0", id: 1, method: "ping" } })
      )
      stream.abort.abort()
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 300)))

      const sent = [
        [unknown, "POST", "/mcp/message", 400],
        [noToken, "GET", "/mcp/sse", 401],
        [accepted, "POST", "/mcp/message", 202]
      ] as const
      const entries = server.output().split("\n").flatMap((line) => {
        try {
          return [JSON.parse(line)]
        } catch {
          return []
        }
      }).filter((entry) => entry.message === "request")
      const byId = (id: string) =>
        entries.filter((entry) => entry.annotations?.requestId === id).map((entry) => entry.annotations)
      for (const [res, method, path, status] of sent) {
        assert.strictEqual(res.status, status)
        const [line] = byId(res.headers.get("x-request-id")!)
        assert.deepInclude(line, { method, path, status })
      }
      assert.deepInclude(byId(stream.id)[0], { method: "GET", path: "/mcp/sse", status: 200 })
      assert.notInclude(server.output(), key.slice(9))
    }),
  60_000
)
