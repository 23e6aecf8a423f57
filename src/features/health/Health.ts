import { Array as Arr, Clock, Context, Duration, Effect, Fiber, Layer, Option, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import type { ComponentDetail, ComponentStatus, Incident, PublicStatus } from "../../domain/Health.ts"
import { WriteRefusal } from "../../platform/DiskGuard.ts"
import { RateLimitStore } from "../../platform/RateLimits.ts"

interface Probe {
  readonly id: string
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

interface StoredCounts {
  readonly day: { readonly total: number; readonly ok: number }
  readonly week: { readonly total: number; readonly ok: number }
  /** Which of the probes then in memory the counts already include. */
  readonly found: ReadonlySet<string>
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
}>()("herald/features/health/Health") {
  static readonly layer = Layer.effect(
    Health,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const limits = yield* RateLimitStore
      const refusal = yield* WriteRefusal
      const pending: Array<Probe> = []
      /** The stored history's last readable counts, for when the database is away. */
      let lastCounts: StoredCounts | undefined
      const incidents = new Map<string, OpenIncident>()
      let last: Option.Option<{ status: ComponentStatus; components: ReadonlyArray<ComponentDetail> }> = Option.none()

      const components = Effect.gen(function*() {
        // One round trip: the database answers, and says whether its transactions may write (a full disk in
        // the embedded mode makes it read-only; a standby or an operator's setting does too).
        const db = yield* timed(sql<{ ro: string }>`SELECT current_setting('transaction_read_only') AS ro`)
        const refused = db.exit._tag === "Success" && (db.exit.value[0]?.ro === "on" || refusal.current() !== undefined)
        const database: ComponentDetail = db.exit._tag !== "Success"
          ? { name: "database", status: "down", latencyMs: null, error: "unreachable" }
          : refused
          ? {
            name: "database",
            status: "degraded",
            latencyMs: db.latencyMs,
            error: refusal.current() ?? "writes refused (read-only)"
          }
          : { name: "database", status: "ok", latencyMs: db.latencyMs }
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

      /**
       * Probes stay in memory until their transaction commits, and are told apart
       * from stored ones by id, so a reader racing a flush neither loses nor
       * double-counts them. Every instance probes the same components, so an
       * outage is recorded by the first instance to write it; the others join
       * that row (serialised by a lock, so two cannot both find none), and an
       * outage first seen while the database was away joins the row another
       * instance wrote for the same time.
       */
      const flush = Effect.gen(function*() {
        const probes = [...pending]
        const dirty = [...incidents.values()]
        const joined = new Map<string, { readonly id: string; readonly startedAt: Date }>()
        yield* sql.withTransaction(Effect.gen(function*() {
          if (Arr.isArrayNonEmpty(probes)) {
            yield* sql`INSERT INTO status_probes ${sql.insert(Arr.map(probes, (p) => ({ ...p })))}
            ON CONFLICT (id) DO NOTHING`
          }
          if (dirty.length > 0) yield* sql`SELECT pg_advisory_xact_lock(hashtext('herald:incidents'))`
          for (const i of dirty) {
            const same = yield* sql<{ id: string }>`
            SELECT id FROM incidents WHERE component = ${i.component} AND id <> ${i.id}
              AND NOT EXISTS (SELECT 1 FROM incidents own WHERE own.id = ${i.id})
              AND started_at <= COALESCE(${i.resolvedAt}::timestamptz, 'infinity'::timestamptz)
              AND (resolved_at IS NULL OR resolved_at >= ${i.startedAt})
            ORDER BY started_at LIMIT 1`
            if (same.length > 0) {
              const [row] = yield* sql<{ startedAt: Date }>`
              UPDATE incidents SET started_at = LEAST(started_at, ${i.startedAt}),
                resolved_at = COALESCE(resolved_at, ${i.resolvedAt}::timestamptz)
              WHERE id = ${same[0].id} RETURNING started_at`
              joined.set(i.id, { id: same[0].id, startedAt: new Date(row.startedAt) })
              continue
            }
            // An outage ends once: a later "still down" from a slower instance does not reopen it.
            yield* sql`
            INSERT INTO incidents (id, component, started_at, resolved_at, summary)
            VALUES (${i.id}, ${i.component}, ${i.startedAt}, ${i.resolvedAt}, ${i.summary})
            ON CONFLICT (id) DO UPDATE SET resolved_at = COALESCE(incidents.resolved_at, EXCLUDED.resolved_at)`
          }
        }))
        const written = new Set(probes.map((p) => p.id))
        for (let index = pending.length - 1; index >= 0; index--) {
          if (written.has(pending[index].id)) pending.splice(index, 1)
        }
        for (const i of dirty) {
          const row = joined.get(i.id)
          if (row !== undefined) {
            incidents.delete(i.id)
            if (i.resolvedAt === null) incidents.set(row.id, { ...i, id: row.id, startedAt: row.startedAt })
          } else if (i.resolvedAt !== null) {
            incidents.delete(i.id)
          }
        }
      })

      const probe = Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        const list = yield* components
        const status = overall(list)
        const db = list.find((c) => c.name === "database")
        pending.push({
          id: randomUUID(),
          checkedAt: now,
          ok: status !== "down",
          status,
          latencyMs: db?.latencyMs ?? null
        })
        // A bounded backlog: a week of 30 s probes.
        if (pending.length > 20_160) pending.splice(0, pending.length - 20_160)
        trackIncidents(list, now)
        last = Option.some({ status, components: list })
        yield* flush.pipe(Effect.ignore)
        // Keeps the last readable history at hand for when the database goes away.
        yield* Effect.suspend(() => readCounts(now.getTime())).pipe(Effect.ignore)
      })

      const CountsRow = Schema.Struct({
        total24: Schema.NumberFromString,
        ok24: Schema.NumberFromString,
        total7: Schema.NumberFromString,
        ok7: Schema.NumberFromString,
        found: Schema.Array(Schema.String)
      })
      /**
       * One statement, so one snapshot: the counts and which in-memory probes
       * they already include cannot disagree.
       */
      const readCounts = (nowMs: number) =>
        Effect.gen(function*() {
          const memory = pending.map((p) => p.id)
          const found = Arr.isArrayNonEmpty(memory)
            ? sql`array_agg(id::text) FILTER (WHERE id::text IN ${sql.in(memory)})`
            : sql`NULL::text[]`
          const rows = yield* sql`
          SELECT count(*) FILTER (WHERE checked_at >= ${new Date(nowMs - 86_400_000)})::text AS total24,
                 count(*) FILTER (WHERE checked_at >= ${new Date(nowMs - 86_400_000)} AND ok)::text AS ok24,
                 count(*)::text AS total7,
                 count(*) FILTER (WHERE ok)::text AS ok7,
                 coalesce(${found}, '{}'::text[]) AS found
          FROM status_probes WHERE checked_at >= ${new Date(nowMs - 7 * 86_400_000)}`
          const row = yield* Schema.decodeUnknownEffect(CountsRow)(rows[0]).pipe(Effect.orDie)
          const counts: StoredCounts = {
            day: { total: row.total24, ok: row.ok24 },
            week: { total: row.total7, ok: row.ok7 },
            found: new Set(row.found)
          }
          lastCounts = counts
          return counts
        })

      const fraction = (stored: { total: number; ok: number }, memory: ReadonlyArray<Probe>, since: Date) => {
        const extra = memory.filter((p) => p.checkedAt >= since)
        const total = stored.total + extra.length
        const ok = stored.ok + extra.filter((p) => p.ok).length
        return total === 0 ? 1 : ok / total
      }

      const publicStatus = Effect.gen(function*() {
        const nowMs = yield* Clock.currentTimeMillis
        const now = new Date(nowMs)
        const day = new Date(nowMs - 86_400_000)
        const week = new Date(nowMs - 7 * 86_400_000)
        const empty = { total: 0, ok: 0 }
        // While the database is away the stored history is unreadable: use the
        // last counts read, plus the probes held in memory since.
        const counts = yield* readCounts(nowMs).pipe(
          Effect.orElseSucceed(() => lastCounts ?? { day: empty, week: empty, found: new Set<string>() })
        )
        const memory = pending.filter((p) => !counts.found.has(p.id))
        const stored = yield* sql<
          { id: string; component: string; startedAt: Date; resolvedAt: Date | null; summary: string }
        >`
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
          uptime24h: fraction(counts.day, memory, day),
          uptime7d: fraction(counts.week, memory, week),
          incidents: [...byId.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt)),
          components: current.components.map(({ name, status }) => ({ name, status }))
        } satisfies PublicStatus
      })

      return Health.of({ components, probe, publicStatus })
    })
  )

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
