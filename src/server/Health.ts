import { Array as Arr, Clock, Context, Duration, Effect, Fiber, Layer, Option, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../Config.ts"
import type { ComponentDetail, ComponentStatus, Incident, PublicStatus } from "../domain/Health.ts"
import { RateLimitStore } from "./RateLimits.ts"

interface Probe {
  readonly checkedAt: Date
  readonly ok: boolean
  readonly status: ComponentStatus
  readonly latencyMs: number | null
}

interface OpenIncident {
  readonly id: string
  readonly component: string
  readonly startedAt: Date
  readonly summary: string
  resolvedAt: Date | null
}

const timed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const start = performance.now()
    // Forked and abandoned at the deadline: interrupting a statement stuck on a
    // dead connection can take seconds, and a readiness answer must not wait for it.
    const fiber = yield* Effect.forkDetach(effect)
    const exit = yield* Effect.exit(Fiber.join(fiber).pipe(Effect.timeout(Duration.seconds(2))))
    if (exit._tag === "Failure") fiber.interruptUnsafe()
    const latencyMs = Math.round((performance.now() - start) * 100) / 100
    return { exit, latencyMs }
  })

const iso = (date: Date) => date.toISOString()

/**
 * Readiness checks and the public status history. The prober stores each
 * result in the database; results taken while the database is down are held
 * in memory and written once it answers again, so downtime counts in uptime.
 */
export class Health extends Context.Service<Health, {
  readonly components: Effect.Effect<ReadonlyArray<ComponentDetail>>
  readonly probe: Effect.Effect<void>
  readonly publicStatus: Effect.Effect<PublicStatus>
}>()("herald/server/Health") {
  static readonly layer = Layer.effect(Health, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const limits = yield* RateLimitStore
    const pending: Array<Probe> = []
    /** The stored history's last readable counts (24 h, 7 d), kept current as probes are written. */
    let lastCounts: readonly [{ total: number; ok: number }, { total: number; ok: number }] | undefined
    const incidents = new Map<string, OpenIncident>()
    let last: Option.Option<{ status: ComponentStatus; components: ReadonlyArray<ComponentDetail> }> = Option.none()

    const components = Effect.gen(function*() {
      const db = yield* timed(sql`SELECT 1`)
      const database: ComponentDetail = db.exit._tag === "Success"
        ? { name: "database", status: "ok", latencyMs: db.latencyMs }
        : { name: "database", status: "down", latencyMs: null, error: "unreachable" }
      const store = yield* timed(limits.ping)
      const rateLimits: ComponentDetail = store.exit._tag === "Success"
        ? { name: "rate-limits", status: "ok", latencyMs: store.latencyMs }
        : { name: "rate-limits", status: "degraded", latencyMs: null, error: "unreachable" }
      return [database, rateLimits] as const
    })

    const overall = (list: ReadonlyArray<ComponentDetail>): ComponentStatus =>
      list.some((c) => c.name === "database" && c.status === "down")
        ? "down"
        : list.some((c) => c.status !== "ok")
        ? "degraded"
        : "ok"

    const trackIncidents = (list: ReadonlyArray<ComponentDetail>, now: Date) => {
      for (const component of list) {
        const open = [...incidents.values()].find((i) => i.component === component.name && i.resolvedAt === null)
        if (component.status !== "ok" && open === undefined) {
          const id = `inc_${randomUUID().replaceAll("-", "").slice(0, 20)}`
          incidents.set(id, {
            id,
            component: component.name,
            startedAt: now,
            resolvedAt: null,
            summary: `${component.name} ${component.status}`
          })
        } else if (component.status === "ok" && open !== undefined) {
          open.resolvedAt = now
        }
      }
    }

    const flush = Effect.gen(function*() {
      const probes = pending.splice(0)
      const dirty = [...incidents.values()]
      yield* sql.withTransaction(Effect.gen(function*() {
        if (Arr.isArrayNonEmpty(probes)) {
          yield* sql`INSERT INTO status_probes ${sql.insert(Arr.map(probes, (p) => ({ ...p })))}`
        }
        for (const i of dirty) {
          yield* sql`
            INSERT INTO incidents (id, component, started_at, resolved_at, summary)
            VALUES (${i.id}, ${i.component}, ${i.startedAt}, ${i.resolvedAt}, ${i.summary})
            ON CONFLICT (id) DO UPDATE SET resolved_at = EXCLUDED.resolved_at`
        }
      })).pipe(Effect.onError(() => Effect.sync(() => pending.unshift(...probes))))
      if (lastCounts !== undefined) {
        const ok = probes.filter((p) => p.ok).length
        lastCounts = [
          { total: lastCounts[0].total + probes.length, ok: lastCounts[0].ok + ok },
          { total: lastCounts[1].total + probes.length, ok: lastCounts[1].ok + ok }
        ]
      }
      for (const i of dirty) if (i.resolvedAt !== null) incidents.delete(i.id)
    })

    const probe = Effect.gen(function*() {
      const now = new Date(yield* Clock.currentTimeMillis)
      const list = yield* components
      const status = overall(list)
      const db = list.find((c) => c.name === "database")
      pending.push({ checkedAt: now, ok: status !== "down", status, latencyMs: db?.latencyMs ?? null })
      // A bounded backlog: a week of 30 s probes.
      if (pending.length > 20_160) pending.splice(0, pending.length - 20_160)
      trackIncidents(list, now)
      last = Option.some({ status, components: list })
      yield* flush.pipe(Effect.ignore)
      // Keeps the last readable history at hand for when the database goes away.
      yield* Effect.suspend(() => readCounts(now.getTime())).pipe(Effect.ignore)
    })

    const Row = Schema.Struct({ total: Schema.Number, ok: Schema.Number })
    const uptimeSince = (since: Date) =>
      sql<{ total: string; ok: string }>`
        SELECT count(*) AS total, count(*) FILTER (WHERE ok) AS ok
        FROM status_probes WHERE checked_at >= ${since}`.pipe(
        Effect.map((rows) => Schema.decodeUnknownSync(Row)({ total: Number(rows[0].total), ok: Number(rows[0].ok) }))
      )

    const fraction = (db: { total: number; ok: number }, memory: ReadonlyArray<Probe>, since: Date) => {
      const extra = memory.filter((p) => p.checkedAt >= since)
      const total = db.total + extra.length
      const ok = db.ok + extra.filter((p) => p.ok).length
      return total === 0 ? 1 : ok / total
    }

    const readCounts = (nowMs: number) =>
      Effect.all([uptimeSince(new Date(nowMs - 86_400_000)), uptimeSince(new Date(nowMs - 7 * 86_400_000))]).pipe(
        Effect.tap((counts) => Effect.sync(() => (lastCounts = counts)))
      )
    const publicStatus = Effect.gen(function*() {
      const nowMs = yield* Clock.currentTimeMillis
      const now = new Date(nowMs)
      const day = new Date(nowMs - 86_400_000)
      const week = new Date(nowMs - 7 * 86_400_000)
      const empty = { total: 0, ok: 0 }
      // While the database is away the stored history is unreadable: use the
      // last counts read, plus the probes held in memory since.
      const [d, w] = yield* readCounts(nowMs).pipe(Effect.orElseSucceed(() => lastCounts ?? [empty, empty] as const))
      const stored = yield* sql<{ id: string; component: string; startedAt: Date; resolvedAt: Date | null; summary: string }>`
        SELECT id, component, started_at, resolved_at, summary FROM incidents
        WHERE started_at >= ${week} OR resolved_at IS NULL ORDER BY started_at DESC LIMIT 50`.pipe(
        Effect.orElseSucceed(() => [])
      )
      const byId = new Map<string, Incident>()
      for (const i of stored) {
        byId.set(i.id, {
          id: i.id,
          component: i.component,
          startedAt: iso(new Date(i.startedAt)),
          resolvedAt: i.resolvedAt === null ? null : iso(new Date(i.resolvedAt)),
          summary: i.summary
        })
      }
      for (const i of incidents.values()) {
        byId.set(i.id, {
          id: i.id,
          component: i.component,
          startedAt: iso(i.startedAt),
          resolvedAt: i.resolvedAt === null ? null : iso(i.resolvedAt),
          summary: i.summary
        })
      }
      const current = Option.getOrElse(last, () => ({ status: "ok" as const, components: [] }))
      return {
        status: current.status,
        timestamp: iso(now),
        uptime24h: fraction(d, pending, day),
        uptime7d: fraction(w, pending, week),
        incidents: [...byId.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt)),
        components: current.components.map(({ name, status }) => ({ name, status }))
      } satisfies PublicStatus
    })

    return Health.of({ components, probe, publicStatus })
  }))

  /** Probes once before traffic is accepted, then every interval, forever. */
  static readonly prober = Layer.effectDiscard(Effect.gen(function*() {
    const health = yield* Health
    const config = yield* AppConfig
    yield* health.probe
    yield* health.probe.pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(config.statusProbeIntervalMs))),
      Effect.forkScoped
    )
  }))
}
