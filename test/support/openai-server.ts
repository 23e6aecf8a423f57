import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A local server speaking the OpenAI chat-completions protocol as documented
 * (POST /v1/chat/completions; with `stream: true` Server-Sent Events of
 * `chat.completion.chunk` objects in `data:` lines, tool calls as
 * `delta.tool_calls` fragments keyed by `index`, a final chunk with `usage`
 * and empty `choices` when `stream_options.include_usage`, then
 * `data: [DONE]`). What it answers is scripted per test; every request body
 * is kept so tests can see what was (and was not) sent.
 */

export type Script =
  | {
    readonly kind: "text"
    readonly chunks: ReadonlyArray<string>
    readonly usage: { prompt: number; completion: number }
    /** Wait this long before answering (a slow model). */
    readonly delayMs?: number
    /** Slow mode: wait this long between chunks, and stop when the client goes away. */
    readonly intervalMs?: number
  }
  | {
    readonly kind: "tool"
    readonly name: string
    /** The arguments JSON, sent in these fragments. */
    readonly argumentFragments: ReadonlyArray<string>
    readonly usage: { prompt: number; completion: number }
  }
  /** Several tool calls in one turn, their argument fragments interleaved chunk by chunk. */
  | {
    readonly kind: "tools"
    readonly calls: ReadonlyArray<{ readonly name: string; readonly argumentFragments: ReadonlyArray<string> }>
    readonly usage: { prompt: number; completion: number }
  }
  /** A refusal: `delta.refusal` fragments instead of content. */
  | {
    readonly kind: "refusal"
    readonly chunks: ReadonlyArray<string>
    readonly usage: { prompt: number; completion: number }
  }
  /** Streams these text chunks, then drops the connection mid-stream. */
  | { readonly kind: "drop"; readonly chunks: ReadonlyArray<string> }
  /** Streams these text chunks, then an error event as OpenAI sends one mid-stream. */
  | { readonly kind: "error-event"; readonly chunks: ReadonlyArray<string>; readonly message: string }
  | { readonly kind: "status"; readonly status: number; readonly message: string }

export interface OpenAiServer {
  readonly url: string
  readonly requests: Array<Record<string, any>>
  readonly authorizations: Array<string | undefined>
  /** Text chunks written so far, all requests together (a chunk is about a token). */
  readonly textChunksServed: () => number
  /** Streams whose client went away before the end. */
  readonly clientsGone: () => number
  /** Scripts answered in order; the last one repeats. */
  script: (...scripts: ReadonlyArray<Script>) => void
  close: () => Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

export const startOpenAiServer = async (): Promise<OpenAiServer> => {
  let scripts: Array<Script> = []
  let served = 0
  const requests: Array<Record<string, any>> = []
  const authorizations: Array<string | undefined> = []
  let textChunksServed = 0
  let clientsGone = 0

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req)
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }))
      return
    }
    const request = JSON.parse(body) as Record<string, any>
    requests.push(request)
    authorizations.push(req.headers.authorization)
    const script = scripts[Math.min(served++, scripts.length - 1)]
    if (script === undefined) throw new Error("no script")
    if (script.kind === "status") {
      res.writeHead(script.status, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: script.message, type: "server_error", code: null } }))
      return
    }
    if (script.kind === "text" && script.delayMs !== undefined) await new Promise((r) => setTimeout(r, script.delayMs))
    const id = `chatcmpl-${served}`
    const created = Math.floor(Date.now() / 1000)
    const chunk = (choices: Array<unknown>, usage?: unknown) =>
      `data: ${
        JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created,
          model: request.model,
          choices,
          ...(usage === undefined ? {} : { usage })
        })
      }\n\n`
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
    res.write(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]))
    const includeUsage = request.stream_options?.include_usage === true
    const usageOf = (u: { prompt: number; completion: number }) => ({
      prompt_tokens: u.prompt,
      completion_tokens: u.completion,
      total_tokens: u.prompt + u.completion
    })
    switch (script.kind) {
      case "text":
        if (script.intervalMs !== undefined) {
          let gone = false
          res.on("close", () => {
            if (!res.writableFinished) gone = true
          })
          for (const text of script.chunks) {
            await new Promise((r) => setTimeout(r, script.intervalMs))
            if (gone || res.destroyed) {
              clientsGone++
              return
            }
            res.write(chunk([{ index: 0, delta: { content: text }, finish_reason: null }]))
            textChunksServed++
          }
        } else {
          for (const text of script.chunks) {
            res.write(chunk([{ index: 0, delta: { content: text }, finish_reason: null }]))
            textChunksServed++
          }
        }
        res.write(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]))
        if (includeUsage) res.write(chunk([], usageOf(script.usage)))
        res.end("data: [DONE]\n\n")
        return
      case "tool": {
        const callId = `call_${served}`
        script.argumentFragments.forEach((fragment, i) => {
          const delta = i === 0
            ? {
              tool_calls: [{
                index: 0,
                id: callId,
                type: "function",
                function: { name: script.name, arguments: fragment }
              }]
            }
            : { tool_calls: [{ index: 0, function: { arguments: fragment } }] }
          res.write(chunk([{ index: 0, delta, finish_reason: null }]))
        })
        res.write(chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]))
        if (includeUsage) res.write(chunk([], usageOf(script.usage)))
        res.end("data: [DONE]\n\n")
        return
      }
      case "tools": {
        const longest = Math.max(...script.calls.map((c) => c.argumentFragments.length))
        for (let step = 0; step < longest; step++) {
          script.calls.forEach((call, index) => {
            const fragment = call.argumentFragments[step]
            if (fragment === undefined) return
            const delta = step === 0
              ? {
                tool_calls: [{
                  index,
                  id: `call_${served}_${index}`,
                  type: "function",
                  function: { name: call.name, arguments: fragment }
                }]
              }
              : { tool_calls: [{ index, function: { arguments: fragment } }] }
            res.write(chunk([{ index: 0, delta, finish_reason: null }]))
          })
        }
        res.write(chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]))
        if (includeUsage) res.write(chunk([], usageOf(script.usage)))
        res.end("data: [DONE]\n\n")
        return
      }
      case "refusal":
        for (const text of script.chunks) {
          res.write(chunk([{ index: 0, delta: { refusal: text }, finish_reason: null }]))
        }
        res.write(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]))
        if (includeUsage) res.write(chunk([], usageOf(script.usage)))
        res.end("data: [DONE]\n\n")
        return
      case "drop":
        for (const text of script.chunks) {
          res.write(chunk([{ index: 0, delta: { content: text }, finish_reason: null }]))
        }
        setTimeout(() => res.socket?.destroy(), 20)
        return
      case "error-event":
        for (const text of script.chunks) {
          res.write(chunk([{ index: 0, delta: { content: text }, finish_reason: null }]))
        }
        res.end(`data: ${JSON.stringify({ error: { message: script.message, type: "server_error" } })}\n\n`)
        return
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500)
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    textChunksServed: () => textChunksServed,
    clientsGone: () => clientsGone,
    script: (...next) => {
      scripts = [...next]
      served = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
