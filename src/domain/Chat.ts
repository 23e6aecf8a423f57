import { Schema } from "effect"
import { isMaxChars, storableText } from "./Text.ts"

const DateTime = Schema.String.annotate({ format: "date-time" })

/** A chat request: the user's message, and the thread it continues (absent: a new thread). */
export const ChatRequest = Schema.Struct({
  message: Schema.String.check(Schema.isMinLength(1), isMaxChars(10_000), storableText).annotate({
    description: "The user's message, 1-10000 characters"
  }),
  threadId: Schema.optional(
    Schema.String.check(isMaxChars(200), storableText).annotate({
      description:
        "A `threadId` from an earlier response: the message continues that thread (404 when it is not the caller's)"
    })
  )
})
export type ChatRequest = typeof ChatRequest.Type

export const ChatRole = Schema.Literals(["user", "assistant", "tool"])
export type ChatRole = typeof ChatRole.Type

export const ChatMessage = Schema.Struct({
  messageId: Schema.String,
  role: ChatRole,
  content: Schema.String.annotate({ description: "The text; for a tool message, JSON `{name, arguments, result}`" }),
  createdAt: DateTime
})
export type ChatMessage = typeof ChatMessage.Type

export const ChatThread = Schema.Struct({
  threadId: Schema.String,
  messages: Schema.Array(ChatMessage)
})
export type ChatThread = typeof ChatThread.Type

export const ChatThreadSummary = Schema.Struct({
  threadId: Schema.String,
  title: Schema.String,
  createdAt: DateTime,
  updatedAt: DateTime,
  messageCount: Schema.Int
})
export type ChatThreadSummary = typeof ChatThreadSummary.Type

/** The events of a chat stream, in the order a stream sends them. */
export type ChatEvent =
  | { readonly event: "thread"; readonly data: { readonly threadId: string } }
  | { readonly event: "delta"; readonly data: { readonly text: string } }
  | { readonly event: "tool_call"; readonly data: { readonly name: string; readonly arguments: unknown } }
  | { readonly event: "tool_result"; readonly data: { readonly name: string; readonly result: unknown } }
  | { readonly event: "done"; readonly data: { readonly threadId: string; readonly messageId: string } }
  | { readonly event: "error"; readonly data: { readonly error: string; readonly code: string } }

/** One Server-Sent Events frame: the event name and its JSON data on one `data:` line (JSON never holds a raw newline). */
export const sseFrame = (event: ChatEvent): string => `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`

/** A thread's title: the first line of its first message, at most 80 characters. */
export const threadTitle = (message: string): string => {
  const line = message.trim().split("\n")[0]!.trim()
  const chars = Array.from(line)
  return chars.length <= 80 ? line : `${chars.slice(0, 79).join("")}…`
}
