import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { RateLimited } from "../domain/Errors.ts"
import { Health, HealthReady, NotReady, PublicStatus } from "../domain/Health.ts"

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/api/health", { success: Health }).annotateMerge(
      OpenApi.annotations({ summary: "Liveness", description: "Answers while the process serves requests." })
    ),
    HttpApiEndpoint.get("ready", "/api/health/ready", {
      headers: { "x-admin-secret": Schema.optional(Schema.String) },
      success: HealthReady,
      error: [NotReady, RateLimited]
    }).annotateMerge(OpenApi.annotations({
      summary: "Readiness",
      description:
        "200 while the database answers, 503 when it does not. A database that answers but refuses writes (read-only, or the embedded database out of disk space) makes the status `degraded` (still 200). Per-component status and latency are included only with a correct X-Admin-Secret header. A request carrying X-Admin-Secret (right or wrong) counts against the admin limit, 10 per minute per IP (429 beyond); probes without it are never limited."
    })),
    HttpApiEndpoint.get("status", "/api/public/status", { success: PublicStatus }).annotateMerge(
      OpenApi.annotations({
        summary: "Public status",
        description:
          "Overall status, uptime over 24 hours and 7 days (fractions of successful readiness probes, taken every 30 s), components and incidents."
      })
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Health", description: "Liveness, readiness and public status" }))
{}
