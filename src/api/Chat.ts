import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ChatRequest, ChatThread, ChatThreadSummary } from "../domain/Chat.ts"
import { ValidationError } from "../domain/Errors.ts"
import { PathId } from "../domain/Text.ts"
import { Authentication, RequiredRole } from "./Security.ts"
import { CustomerIdParam, intQuery, NotFoundError, strictParse, StrictPayload } from "./Shared.ts"

/** The chat answer as documented: an event stream (the handler writes it; this schema only documents it). */
export const ChatEventStream = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/event-stream" }))
  .annotate({
    description: "Server-Sent Events. `event: thread` `{threadId}`; zero or more `event: delta` `{text}`, " +
      "`event: tool_call` `{name, arguments}` and `event: tool_result` `{name, result}`; then `event: done` " +
      "`{threadId, messageId}`. A failure after the stream began is `event: error` `{error, code}` (e.g. " +
      "`E_BUDGET_EXCEEDED` when the model budget refuses a call, or a tool's refusal such as `E_VALIDATION` naming " +
      "the argument the model left out), and the stream ends. Every `data:` line is JSON. " +
      "Comment lines (`: keep-alive`) come every 15 s while the agent works."
  })

/** The streamed chat with the marketing agent and its stored threads (admin role, docs/api-rules.md "Roles"). */
export class ChatApi extends HttpApiGroup.make("chat")
  .add(
    HttpApiEndpoint.post("send", "/api/chat/:customerId", {
      params: CustomerIdParam,
      payload: ChatRequest,
      success: ChatEventStream,
      error: [NotFoundError, ValidationError]
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Chat with the marketing agent (streamed)",
      description: "Answers `text/event-stream`, never compressed. The agent answers with the language model, the " +
        "customer's brand profile and the thread's history, and may call the MCP tools (the same registry as " +
        "`/mcp`, run with the caller's key, role and budget, always for this customer: the model is not shown a " +
        "customerId and any it sends is ignored) for up to LLM_MAX_TOOL_ROUNDS rounds. Without `threadId` a " +
        "new thread begins; with one, the message continues it (404 `E_NOT_FOUND`, before any stream, when it is " +
        "unknown or another customer's). Validation errors are 400 JSON before any stream. The user's message, " +
        "each tool call and the agent's answer are stored in the thread. Closing the connection stops the model " +
        "call: no more tokens are generated or charged. Model usage is charged to the `model` budget channel."
    })),
    HttpApiEndpoint.get("threads", "/api/chat/:customerId/threads", {
      params: CustomerIdParam,
      query: { limit: Schema.optional(intQuery(1, 100, 50)) },
      success: Schema.Struct({ threads: Schema.Array(ChatThreadSummary) })
    }).annotate(RequiredRole, "admin").annotateMerge(OpenApi.annotations({
      summary: "List chat threads",
      description: "Newest activity first, at most `limit` (1-100, default 50). Admin role, as chat is."
    })),
    HttpApiEndpoint.get("thread", "/api/chat/:customerId/threads/:threadId", {
      params: { ...CustomerIdParam, threadId: PathId },
      success: ChatThread,
      error: NotFoundError
    }).annotate(RequiredRole, "admin").annotateMerge(OpenApi.annotations({
      summary: "Get a chat thread with its messages",
      description: "Messages oldest first (the latest 1000 of a longer thread): `role` user, assistant or tool " +
        "(a tool message's `content` is JSON `{name, arguments, result}`). 404 when unknown or another customer's."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Chat", description: "The streamed chat with the marketing agent" }))
{}
