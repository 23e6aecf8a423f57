import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Webhooks } from "./Webhooks.ts"

export const WebhooksHandlers = leanGroup(Effect.gen(function*() {
  const webhooks = yield* Webhooks
  return HttpApiBuilder.group(Api, "webhooks", (handlers) =>
    handlers.handleAll({
      list: ({ params }) => Effect.map(webhooks.list(params.customerId), (hooks) => ({ hooks })),
      create: ({ params, payload }) => webhooks.create(params.customerId, payload),
      remove: ({ params }) => Effect.as(webhooks.remove(params.customerId, params.webhookId), { deleted: true }),
      rotateSecret: ({ params }) =>
        Effect.map(webhooks.rotateSecret(params.customerId, params.webhookId), (secret) => ({ secret })),
      deliveries: ({ params, query }) =>
        webhooks.deliveries(params.customerId, params.webhookId, query.limit ?? 50, query.cursor),
      enable: ({ params }) => webhooks.enable(params.customerId, params.webhookId),
      test: ({ params }) => webhooks.sendTest(params.customerId, params.webhookId),
      recover: ({ params, payload }) =>
        Effect.map(webhooks.recover(params.customerId, params.webhookId, payload.since), (queued) => ({ queued })),
      redeliver: ({ params }) => webhooks.redeliver(params.customerId, params.webhookId, params.deliveryId)
    }))
}))
