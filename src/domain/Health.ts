import { Effect, Schema } from "effect"

export const ServiceName = Schema.Literal("herald")

export const ComponentStatus = Schema.Literals(["ok", "degraded", "down"])
export type ComponentStatus = typeof ComponentStatus.Type

/** An ISO 8601 instant as the service writes it (`Date.prototype.toISOString`). */
const Timestamp = Schema.String.annotate({ format: "date-time" })

export const ComponentDetail = Schema.Struct({
  name: Schema.String,
  status: ComponentStatus,
  latencyMs: Schema.NullOr(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
  error: Schema.optional(Schema.String)
})
export type ComponentDetail = typeof ComponentDetail.Type

export const Health = Schema.Struct({
  service: ServiceName,
  status: Schema.Literal("ok"),
  timestamp: Timestamp
}).annotate({ identifier: "Health", description: "The service is alive" })

export const HealthReady = Schema.Struct({
  service: ServiceName,
  status: Schema.Literals(["ok", "degraded"]),
  timestamp: Timestamp,
  components: Schema.optional(Schema.Array(ComponentDetail))
}).annotate({ identifier: "HealthReady", description: "Readiness: the service and its database answer" })

export class NotReady extends Schema.TaggedError<NotReady>()("NotReady", {
  service: ServiceName,
  status: Schema.Literal("degraded"),
  timestamp: Timestamp,
  components: Schema.optional(Schema.Array(ComponentDetail)),
  error: Schema.String.pipe(Schema.withConstructorDefault(Effect.succeed("Database unreachable"))),
  code: Schema.Literal("E_UNAVAILABLE").pipe(Schema.withConstructorDefault(Effect.succeed("E_UNAVAILABLE" as const)))
}, { httpApiStatus: 503 }) {}

const Fraction = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

export const Incident = Schema.Struct({
  id: Schema.String,
  component: Schema.String,
  startedAt: Timestamp,
  resolvedAt: Schema.NullOr(Timestamp),
  summary: Schema.String
}).annotate({ identifier: "Incident" })
export type Incident = typeof Incident.Type

export const PublicStatus = Schema.Struct({
  status: ComponentStatus,
  timestamp: Timestamp,
  uptime24h: Fraction,
  uptime7d: Schema.NullOr(Fraction),
  incidents: Schema.Array(Incident),
  components: Schema.Array(Schema.Struct({ name: Schema.String, status: ComponentStatus }))
}).annotate({
  identifier: "PublicStatus",
  description: "The public status page: overall status, uptime, components and incidents"
})
export type PublicStatus = typeof PublicStatus.Type
