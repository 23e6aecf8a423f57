import { Context, Effect, Layer, Option, Redacted } from "effect"
import type { AppConfigShape } from "../../src/Config.ts"
import { testApp } from "./harness.ts"
import { type OpenAiServer, type Script, startOpenAiServer } from "./openai-server.ts"

/** The local OpenAI-compatible protocol server the app of `appWithModel` talks to. */
export class ModelServer extends Context.Service<ModelServer, OpenAiServer>()("test/ModelServer") {}

/**
 * The app with the priced OpenAI-compatible provider (10 per million tokens
 * each way, at most 1,000 output tokens a call) against the local protocol
 * server, which answers `script` until a test scripts it otherwise.
 */
export const appWithModel = (overrides: Partial<AppConfigShape> = {}, script?: Script) =>
  Layer.unwrap(Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(Effect.promise(startOpenAiServer), (s) => Effect.promise(s.close))
    if (script !== undefined) server.script(script)
    return Layer.merge(
      testApp({
        llmProvider: "openai",
        llmBaseUrl: server.url,
        llmApiKey: Option.some(Redacted.make("sk-local")),
        llmPriceInput: 10,
        llmPriceOutput: 10,
        llmMaxOutputTokens: 1000,
        ...overrides
      }),
      Layer.succeed(ModelServer, server)
    )
  }))
