import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { AppConfig } from "../../Config.ts"
import { discoveryHeaders } from "../../platform/http/JsonDocument.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { addResponseHeaders } from "../../platform/http/RequestContext.ts"
import { ToolRunner } from "../../platform/tools/ToolRunner.ts"
import { agentCard } from "./Documents.ts"

export const DiscoveryHandlers = leanGroup(Effect.gen(function*() {
  const { baseUrl } = yield* AppConfig
  const runner = yield* ToolRunner
  const card = agentCard(baseUrl, new Set(runner.tools.map((tool) => tool.name)))
  return HttpApiBuilder.group(
    Api,
    "discovery",
    (handlers) => handlers.handle("agentCard", () => Effect.as(addResponseHeaders(discoveryHeaders), card))
  )
}))
