import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"

/** The official SDK client over the SSE transport (`?token=`), closed with the scope. */
export const sseClient = (url: string, key: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "test", version: "1.0.0" })
      await client.connect(new SSEClientTransport(new URL(`${url}/mcp/sse?token=${key}`)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** The official SDK client over Streamable HTTP (Bearer header), closed with the scope. */
export const httpClient = (url: string, key: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "test", version: "1.0.0" })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } }
        })
      )
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )
