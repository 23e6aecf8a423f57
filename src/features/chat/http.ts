import { Effect, Layer, Schedule, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../api/Security.ts"
import { AppConfig } from "../../Config.ts"
import { sseFrame } from "../../domain/Chat.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { openingComment } from "../../platform/http/Sse.ts"
import { ChatAgent } from "./Chat.ts"

const keepAliveFrame = ": keep-alive\n\n"

export const ChatHandlers = leanGroup(Effect.gen(function*() {
  const agent = yield* ChatAgent
  const config = yield* AppConfig
  return HttpApiBuilder.group(Api, "chat", (handlers) =>
    handlers.handleAll({
      send: ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const started = yield* agent.send(principal, payload)
          const frames = Stream.make(
            openingComment,
            sseFrame({ event: "thread", data: { threadId: started.threadId } })
          ).pipe(
            Stream.concat(Stream.map(started.events, sseFrame))
          )
          // Keep-alive comments while the agent works; the stream ends with the events.
          const keepAlives = Stream.fromSchedule(Schedule.spaced(config.chatKeepAliveMs)).pipe(
            Stream.map(() => keepAliveFrame)
          )
          // The events are pulled in the request's fiber: a client that goes away interrupts it, and the model call with it.
          return HttpServerResponse.stream(
            Stream.merge(frames, keepAlives, { haltStrategy: "left" }).pipe(Stream.encodeText),
            {
              contentType: "text/event-stream",
              headers: { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" }
            }
          )
        }),
      threads: ({ params, query }) =>
        Effect.map(agent.threads(params.customerId, query.limit ?? 50), (threads) => ({ threads })),
      thread: ({ params }) => agent.thread(params.customerId, params.threadId)
    }))
})).pipe(Layer.provide(ChatAgent.layer))
