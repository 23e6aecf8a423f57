import { Effect } from "effect"
import { TestServer } from "./harness.ts"
import type { Tenant } from "./processes.ts"

export interface SseEvent {
  readonly event: string
  readonly data: any
}

export interface ChatReply {
  readonly status: number
  readonly contentType: string | null
  readonly raw: string
  readonly events: ReadonlyArray<SseEvent>
  readonly json: any
}

/** Parses SSE frames; comment lines are skipped, every `data:` must be JSON (JSON.parse throws otherwise). */
export const parseEvents = (raw: string): Array<SseEvent> =>
  raw.split("\n\n").filter((frame) => frame.trim().length > 0 && !frame.startsWith(":")).map((frame) => {
    const lines = frame.split("\n")
    const event = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "message"
    const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n")
    return { event, data: JSON.parse(data) }
  })

/** POSTs a chat message and reads the whole answer (an event stream, or a JSON error). */
export const chat = (tenant: Tenant, body: unknown, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    return yield* Effect.promise(async (): Promise<ChatReply> => {
      const response = await fetch(`${url}/api/chat/${tenant.id}`, {
        method: "POST",
        headers: { ...tenant.h, "content-type": "application/json", ...headers },
        body: JSON.stringify(body)
      })
      const raw = await response.text()
      const contentType = response.headers.get("content-type")
      const isStream = contentType?.startsWith("text/event-stream") === true
      return {
        status: response.status,
        contentType,
        raw,
        events: isStream ? parseEvents(raw) : [],
        json: isStream ? undefined : JSON.parse(raw)
      }
    })
  })

export const names = (reply: ChatReply) => reply.events.map((e) => e.event)

/** The answer's text: its deltas joined. */
export const deltaText = (reply: ChatReply): string =>
  reply.events.filter((e) => e.event === "delta").map((e) => e.data.text).join("")
