import { Effect, Schema } from "effect"

export const ServiceName = Schema.Literal("herald")

export const ComponentStatus = Schema.Literals(["ok", "degraded", "down"])
export type ComponentStatus = typeof ComponentStatus.Type

export const ComponentDetail = Schema.Struct({
  name: Schema.String,
  status: ComponentStatus,
  latencyMs: Schema.NullOr(Schema.Number),
  error: Schema.optional(Schema.String)
})
export type ComponentDetail = typeof ComponentDetail.Type

export const Health = Schema.Struct({
  service: ServiceName,
  status: Schema.Literal("ok"),
  timestamp: Schema.String
}).annotate({ identifier: "Health" })

export const HealthReady = Schema.Struct({
  service: ServiceName,
  status: Schema.Literals(["ok", "degraded"]),
  timestamp: Schema.String,
  components: Schema.optional(Schema.Array(ComponentDetail))
}).annotate({ identifier: "HealthReady" })

export class NotReady extends Schema.TaggedError<NotReady>()("NotReady", {
  service: ServiceName,
  status: Schema.Literal("degraded"),
  timestamp: Schema.String,
  components: Schema.optional(Schema.Array(ComponentDetail)),
  error: Schema.String.pipe(Schema.withConstructorDefault(Effect.succeed("Database unreachable"))),
  code: Schema.Literal("E_UNAVAILABLE").pipe(Schema.withConstructorDefault(Effect.succeed("E_UNAVAILABLE" as const)))
}, { httpApiStatus: 503 }) {}

const Fraction = Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

export const Incident = Schema.Struct({
  id: Schema.String,
  component: Schema.String,
  startedAt: Schema.String,
  resolvedAt: Schema.NullOr(Schema.String),
  summary: Schema.String
}).annotate({ identifier: "Incident" })
export type Incident = typeof Incident.Type

export const PublicStatus = Schema.Struct({
  status: ComponentStatus,
  timestamp: Schema.String,
  uptime24h: Fraction,
  uptime7d: Schema.NullOr(Fraction),
  incidents: Schema.Array(Incident),
  components: Schema.Array(Schema.Struct({ name: Schema.String, status: ComponentStatus }))
}).annotate({ identifier: "PublicStatus" })
export type PublicStatus = typeof PublicStatus.Type
