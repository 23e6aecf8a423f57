import { Context, Deferred, Duration, Effect, Exit, Fiber, Option, Schedule, Schema, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { Activity, Workflow, WorkflowEngine } from "effect/workflow"
import { randomUUID } from "node:crypto"

/**
 * A durable WorkflowEngine for effect/workflow kept directly in PostgreSQL
 * (tables wf_*), without effect/cluster's stored messages: a run of three
 * activities is five statements (its row, each activity's result, its end).
 *
 * - An execution's row is inserted once (by its execution id); the process
 *   that inserts it runs it at once and owns it.
 * - Each activity's result is stored before the run goes on (the first stored
 *   wins); a replay answers completed activities from their stored results and
 *   never runs them again.
 * - A run is owned by one process incarnation under that process's lease;
 *   one heartbeat statement extends the lease of all its runs. A recovery loop
 *   claims, with FOR UPDATE SKIP LOCKED, runs whose owner's lease is gone and
 *   suspended runs that were woken, and replays them. An owner that finds a
 *   run taken over (its stored result refused) abandons it.
 * - A deferred's completion is stored and makes the run runnable; the
 *   process that completes it claims and runs a suspended run at once.
 *   Clocks are stored with their wake-up time and fired by the same loop (or a
 *   local timer when they are due soon).
 * - An interrupt marks the run: its owner learns it at once when local, else
 *   at its next heartbeat or when the run suspends; the run then applies it as
 *   effect/workflow's own engines do (when it would next suspend).
 */
export interface PgEngineOptions {
  /** This process's address among the engine's runners (stable across restarts, distinct per process). */
  readonly address: string
  /** How often woken and orphaned runs and due clocks are looked for. */
  readonly pollIntervalMs: number
  /** How long a process's runs stay its own without a heartbeat (heartbeats come five times as often). */
  readonly leaseMs?: number | undefined
  /** Most runs one look of the recovery loop claims. */
  readonly claimBatch?: number | undefined
}

const AnyOrVoid = Schema.Union([Schema.Undefined, Schema.Any])
// Activity exits carry encoded values; their defects are encoded here (as effect/cluster stores them).
const ActivityExit = Schema.toCodecJson(Schema.Exit(AnyOrVoid, AnyOrVoid, Schema.Defect()))
// Deferred exits arrive encoded by the deferred's own schema.
const DeferredExit = Schema.toCodecJson(Schema.Exit(AnyOrVoid, AnyOrVoid, Schema.Any))
const encodeActivityExit = Schema.encodeUnknownSync(ActivityExit)
const decodeActivityExit = Schema.decodeUnknownSync(ActivityExit)
const encodeDeferredExit = Schema.encodeUnknownSync(DeferredExit)
const decodeDeferredExit = Schema.decodeUnknownSync(DeferredExit)

/** An activity's exit as stored: a success (the common case) without the schema's walk. */
const activityText = (exit: Exit.Exit<unknown, unknown>) =>
  JSON.stringify(
    Exit.isSuccess(exit) ? { _tag: "Success", value: exit.value ?? null } : encodeActivityExit(exit)
  )
const activityFromText = (text: string): Exit.Exit<unknown, unknown> => {
  const parsed = JSON.parse(text) as { _tag: string; value?: unknown }
  return parsed._tag === "Success" ? Exit.succeed(parsed.value ?? undefined) : decodeActivityExit(parsed)
}

/**
 * A statement on a run's path, tried again while the database is away for a
 * short while (a restart, a lost connection): failing it would end the run.
 */
const persist = <A, E, R>(statement: Effect.Effect<A, E, R>) =>
  statement.pipe(Effect.retry({ schedule: Schedule.spaced(Duration.millis(500)), times: 20 }), Effect.orDie)

type Execute = (
  payload: object,
  executionId: string
) => Effect.Effect<unknown, unknown, WorkflowEngine.WorkflowInstance | WorkflowEngine.WorkflowEngine>

interface Registered {
  readonly workflow: Workflow.Any
  readonly execute: Execute
  readonly payload: Schema.Codec<any, any>
  readonly result: Schema.Codec<any, any>
}

/** A run owned and executed by this process. */
interface Local {
  readonly executionId: string
  readonly entry: Registered
  readonly payload: object
  readonly parent: { readonly name: string; readonly id: string } | undefined
  /** Stored activity results by `name/attempt`, read when the run was claimed (empty for a new run). */
  readonly activities: Map<string, string>
  readonly deferreds: Map<string, Exit.Exit<unknown, unknown>>
  interrupted: boolean
  /** Given up after the database stayed away: handed back (owner cleared) for any process to replay. */
  handOver: boolean
  instance: WorkflowEngine.WorkflowInstance["Service"] | undefined
  fiber: Fiber.Fiber<unknown, unknown> | undefined
  /** The outcome of this run (Complete, or Suspended when it suspended or was given up), for waiting callers. */
  readonly outcome: Deferred.Deferred<Workflow.Result<unknown, unknown>>
  readonly scope: Scope.Closeable
}

interface ClaimedRow {
  readonly executionId: string
  readonly workflowName: string
  readonly payload: string
  readonly interrupted: boolean
  readonly parentName: string | null
  readonly parentId: string | null
}

export const makePgEngine = (options: PgEngineOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const engineScope = yield* Effect.scope
    const me = `${options.address}/${randomUUID()}`
    const leaseMs = options.leaseMs ?? 15_000
    const leaseSeconds = leaseMs / 1000
    const claimBatch = options.claimBatch ?? 100

    const registered = new Map<string, Registered>()
    const running = new Map<string, Local>()
    const completions = new Map<string, Deferred.Deferred<void>>()
    const deferredState = WorkflowEngine.makeDeferredState()
    let stopping = false

    const register = (address: string) =>
      sql`INSERT INTO wf_runners (address, incarnation, lease_until, heartbeat_at)
        VALUES (${address}, ${me}, now() + make_interval(secs => ${leaseSeconds}), now())
        ON CONFLICT (address) DO UPDATE SET incarnation = EXCLUDED.incarnation, lease_until = EXCLUDED.lease_until,
          heartbeat_at = EXCLUDED.heartbeat_at`.pipe(Effect.orDie)
    yield* register(options.address)

    const decodeResult = (entry: Registered, text: string) =>
      Schema.decodeUnknownEffect(entry.result)(JSON.parse(text)).pipe(Effect.orDie) as Effect.Effect<
        Workflow.Result<unknown, unknown>
      >

    const resolveCompletion = (executionId: string) => {
      const waiter = completions.get(executionId)
      if (waiter === undefined) return Effect.void
      completions.delete(executionId)
      return Deferred.succeed(waiter, undefined)
    }

    /** Releases a run this process no longer runs: its instances skip their durable finalizers. */
    const release = (local: Local, abandoned: boolean) =>
      Effect.suspend(() => {
        if (running.get(local.executionId) === local) running.delete(local.executionId)
        if (abandoned && local.instance !== undefined) local.instance.abandoned = true
        return Scope.close(local.scope, Exit.void)
      })

    const newLocal = (
      entry: Registered,
      executionId: string,
      payload: object,
      parent: Local["parent"],
      interrupted: boolean
    ): Local => ({
      executionId,
      entry,
      payload,
      parent,
      activities: new Map(),
      deferreds: new Map(),
      interrupted,
      handOver: false,
      instance: undefined,
      fiber: undefined,
      outcome: Deferred.makeUnsafe(),
      scope: Scope.makeUnsafe()
    })

    /** Records how a run ended and hands the result to its callers; a woken suspended run starts again here. */
    const settle = (local: Local, exit: Exit.Exit<Workflow.Result<unknown, unknown>>): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (Exit.isFailure(exit)) {
          // No result: the run was given up (taken over, this process stops, or its database stayed away);
          // whoever owns it next replays it.
          if (local.handOver && !stopping) {
            yield* persist(sql`UPDATE wf_executions SET owner = NULL
              WHERE execution_id = ${local.executionId} AND owner = ${me} AND status = 'running'`)
          }
          yield* release(local, true)
          yield* Deferred.succeed(local.outcome, new Workflow.Suspended({}))
          return
        }
        const result = exit.value
        if (result._tag === "Complete") {
          const text = JSON.stringify(yield* Schema.encodeUnknownEffect(local.entry.result)(result).pipe(Effect.orDie))
          const ended = yield* persist(sql<{ parentName: string | null; parentId: string | null }>`UPDATE wf_executions
            SET status = 'complete', result = ${text}, owner = NULL, runnable = false, updated_at = now()
            WHERE execution_id = ${local.executionId} AND owner = ${me} RETURNING parent_name, parent_id`)
          if (ended.length === 0) {
            yield* release(local, true)
            yield* Deferred.succeed(local.outcome, new Workflow.Suspended({}))
            return
          }
          yield* release(local, false)
          yield* Deferred.succeed(local.outcome, result)
          yield* resolveCompletion(local.executionId)
          const [row] = ended
          if (row!.parentName !== null && row!.parentId !== null) yield* wake(row!.parentId, false)
          return
        }
        const failed = result.failed === true
        const suspended = yield* persist(sql<{ runnable: boolean }>`UPDATE wf_executions
          SET status = 'suspended', owner = NULL, failed = ${failed}, updated_at = now()
          WHERE execution_id = ${local.executionId} AND owner = ${me} RETURNING runnable`)
        // A suspended run's finalizers wait for the run's end, in whichever replay: this one's are skipped.
        yield* release(local, true)
        yield* Deferred.succeed(local.outcome, result)
        // Woken while it ran (a completion it may not have seen): run it again.
        if (suspended[0]?.runnable === true && !failed) yield* claimOne(local.executionId)
      })

    /** Runs `local` (owned by this process) from the start, completed activities answered from their results. */
    const start = (local: Local): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (stopping) return release(local, true)
        running.set(local.executionId, local)
        const workflow = local.entry.workflow
        const instance = WorkflowEngine.WorkflowInstance.initial(workflow, local.executionId, {
          scope: Scope.forkUnsafe(local.scope)
        })
        local.instance = instance
        const suspendOnFailure = Context.get(workflow.annotations, Workflow.SuspendOnFailure)
        return local.entry.execute(local.payload, local.executionId).pipe(
          Effect.onExit((exit) => {
            // A pending interrupt takes effect where the run would suspend (or fail, suspending on failure).
            if (
              !local.interrupted || instance.abandoned ||
              !(instance.suspended || (suspendOnFailure && Exit.isFailure(exit)))
            ) {
              return Effect.void
            }
            instance.suspended = false
            instance.interrupted = true
            return Effect.andThen(
              clearClocks(local.executionId),
              Effect.withFiber((fiber) => Effect.interruptible(Fiber.interrupt(fiber)))
            )
          }),
          Workflow.intoResult,
          Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
          (effect) => deferredState.trackRun(instance, effect),
          Effect.exit,
          Effect.flatMap((exit) => settle(local, exit)),
          Effect.catchCause((cause) => Effect.logWarning("workflow engine: settling a run failed", cause)),
          Effect.forkIn(engineScope),
          Effect.map((fiber) => {
            local.fiber = fiber
          })
        )
      })

    /** Starts the runs this process just claimed, with their stored results. */
    const startClaimed = (rows: ReadonlyArray<ClaimedRow>) =>
      Effect.gen(function*() {
        if (rows.length === 0) return
        const ids = rows.map((r) => r.executionId)
        const stored = yield* sql<
          { kind: "a" | "d"; executionId: string; name: string; attempt: number; value: string }
        >`SELECT 'a' AS kind, execution_id, name, attempt, result AS value FROM wf_activities WHERE ${
          sql.in("execution_id", ids)
        }
          UNION ALL SELECT 'd' AS kind, execution_id, name, 0 AS attempt, exit AS value FROM wf_deferreds WHERE ${
          sql.in("execution_id", ids)
        }`.pipe(
          Effect.retry({ schedule: Schedule.spaced(Duration.millis(500)), times: 20 }),
          // Claimed but not loadable: handed back for the next look (of any process).
          Effect.tapError(() =>
            sql`UPDATE wf_executions SET owner = NULL WHERE ${sql.in("execution_id", ids)} AND owner = ${me}
              AND status = 'running'`.pipe(Effect.ignore)
          ),
          Effect.orDie
        )
        const locals = new Map<string, Local>()
        for (const row of rows) {
          const entry = registered.get(row.workflowName)
          if (entry === undefined) continue
          const payload = yield* Schema.decodeUnknownEffect(entry.payload)(JSON.parse(row.payload)).pipe(Effect.orDie)
          const parent = row.parentName !== null && row.parentId !== null
            ? { name: row.parentName, id: row.parentId }
            : undefined
          locals.set(row.executionId, newLocal(entry, row.executionId, payload as object, parent, row.interrupted))
        }
        for (const row of stored) {
          const local = locals.get(row.executionId)
          if (local === undefined) continue
          if (row.kind === "a") local.activities.set(`${row.name}/${row.attempt}`, row.value)
          else local.deferreds.set(row.name, decodeDeferredExit(JSON.parse(row.value)))
        }
        for (const local of locals.values()) yield* start(local)
      })

    /** Claims one woken suspended run and runs it here (when its workflow is registered here). */
    const claimOne = (executionId: string) =>
      Effect.gen(function*() {
        if (stopping || running.has(executionId)) return
        const rows = yield* sql<ClaimedRow>`UPDATE wf_executions
          SET status = 'running', owner = ${me}, runnable = false, updated_at = now()
          WHERE execution_id = ${executionId} AND status = 'suspended' AND runnable
            AND workflow_name IN ${sql.in([...registered.keys()])}
          RETURNING execution_id, workflow_name, payload, interrupted, parent_name, parent_id`.pipe(Effect.orDie)
        yield* startClaimed(rows)
      })

    /**
     * Makes a run runnable (an automatic wake leaves a run suspended by a
     * failure alone); a suspended one is claimed and run here at once, a
     * running one replays once it suspends.
     */
    const wake = (executionId: string, explicit: boolean) =>
      Effect.gen(function*() {
        const rows = yield* (explicit
          ? sql<{ status: string }>`UPDATE wf_executions SET runnable = true, failed = false, updated_at = now()
            WHERE execution_id = ${executionId} AND status <> 'complete' RETURNING status`
          : sql<{ status: string }>`UPDATE wf_executions SET runnable = true, updated_at = now()
            WHERE execution_id = ${executionId} AND status <> 'complete' AND NOT (status = 'suspended' AND failed)
            RETURNING status`).pipe(Effect.orDie)
        if (rows[0]?.status === "suspended") yield* claimOne(executionId)
      })

    const clearClocks = (executionId: string) =>
      sql`DELETE FROM wf_clocks WHERE execution_id = ${executionId}`.pipe(Effect.ignore)

    /** Stores a deferred's completion (the first stored wins) and wakes its run. */
    const completeDeferred = (
      executionId: string,
      name: string,
      exit: Exit.Exit<unknown, unknown>,
      /** The run itself, running here, completes it: it reads it from memory when it awaits it, no replay needed. */
      ownRun: WorkflowEngine.WorkflowInstance["Service"] | undefined
    ) =>
      Effect.gen(function*() {
        const text = JSON.stringify(encodeDeferredExit(exit))
        const rows = yield* sql<{ status: string; owner: string | null }>`WITH stored AS (
            INSERT INTO wf_deferreds (execution_id, name, exit) VALUES (${executionId}, ${name}, ${text})
            ON CONFLICT DO NOTHING RETURNING execution_id)
          UPDATE wf_executions e SET runnable = (${ownRun === undefined} OR e.status = 'suspended'), updated_at = now()
          FROM stored
          WHERE e.execution_id = stored.execution_id AND e.status <> 'complete'
            AND NOT (e.status = 'suspended' AND e.failed)
          RETURNING e.status, e.owner`.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) return
        const local = running.get(executionId)
        if (local !== undefined && row.owner === me) {
          local.deferreds.set(name, exit)
          if (ownRun !== undefined) ownRun.completedDeferreds.add(name)
          else yield* deferredState.deferredDone(executionId, name)
        }
        if (row.status === "suspended") yield* claimOne(executionId)
      })

    /** Fires a due clock: its deferred completed, then its row gone (a crash between fires it again, harmlessly). */
    const fireClock = (clock: { executionId: string; name: string }) =>
      Effect.andThen(
        completeDeferred(clock.executionId, `DurableClock/${clock.name}`, Exit.void, undefined),
        sql`DELETE FROM wf_clocks WHERE execution_id = ${clock.executionId} AND name = ${clock.name}`.pipe(
          Effect.orDie
        )
      )

    /** Due clocks, each taken by one process for a while (pushed back) before it fires them. */
    const fireDueClocks = Effect.gen(function*() {
      const due = yield* sql<{ executionId: string; name: string }>`UPDATE wf_clocks c
        SET wake_at = now() + interval '30 seconds'
        FROM (SELECT execution_id, name FROM wf_clocks WHERE wake_at <= now() ORDER BY wake_at LIMIT 100
          FOR UPDATE SKIP LOCKED) AS picked
        WHERE c.execution_id = picked.execution_id AND c.name = picked.name
        RETURNING c.execution_id, c.name`.pipe(Effect.orDie)
      for (const clock of due) yield* fireClock(clock)
    })

    /** Runs whose owner's lease is gone (or stopped), and woken suspended runs, claimed here and replayed. */
    const claimOrphans = Effect.gen(function*() {
      if (stopping || registered.size === 0) return
      // This process's own runs come back only when its lease lapsed (the database was away): those it still
      // runs are left alone below, keeping a wake that arrived meanwhile; those it gave up are replayed.
      const rows = yield* sql<ClaimedRow>`UPDATE wf_executions e
        SET status = 'running', owner = ${me}, updated_at = now(),
          runnable = CASE WHEN e.owner = ${me} AND e.status = 'running' THEN e.runnable ELSE false END
        FROM (SELECT x.execution_id FROM wf_executions x
          WHERE x.workflow_name IN ${sql.in([...registered.keys()])} AND (
            (x.status = 'running' AND (x.owner IS NULL OR NOT EXISTS (
              SELECT 1 FROM wf_runners r WHERE r.incarnation = x.owner AND r.lease_until > now())))
            OR (x.status = 'suspended' AND x.runnable))
          LIMIT ${claimBatch} FOR UPDATE SKIP LOCKED) AS picked
        WHERE e.execution_id = picked.execution_id
        RETURNING e.execution_id, e.workflow_name, e.payload, e.interrupted, e.parent_name, e.parent_id`.pipe(
        Effect.orDie
      )
      yield* startClaimed(rows.filter((row) => !running.has(row.executionId)))
    })

    /** One statement for every run of this process: the lease, and the interrupts of its runs. */
    const heartbeat = Effect.gen(function*() {
      const rows = yield* sql<{ interrupted: ReadonlyArray<string> | null }>`UPDATE wf_runners
        SET lease_until = now() + make_interval(secs => ${leaseSeconds}), heartbeat_at = now()
        WHERE incarnation = ${me}
        RETURNING ARRAY(SELECT execution_id FROM wf_executions
          WHERE owner = ${me} AND status = 'running' AND interrupted) AS interrupted`.pipe(Effect.orDie)
      if (rows.length === 0) {
        // Another process took this address (two processes must not share one): say so, and take it back.
        yield* Effect.logWarning(`workflow engine: runner ${options.address} was replaced; registering again`)
        return yield* register(options.address)
      }
      for (const id of rows[0]!.interrupted ?? []) {
        const local = running.get(id)
        if (local !== undefined) local.interrupted = true
      }
    })

    const guarded = (name: string, effect: Effect.Effect<void>) =>
      effect.pipe(Effect.catchCause((cause) => Effect.logWarning(`workflow engine: ${name} failed`, cause)))

    yield* Effect.forkScoped(
      guarded("heartbeat", heartbeat).pipe(Effect.repeat(Schedule.spaced(Duration.millis(leaseMs / 5))))
    )
    yield* Effect.forkScoped(
      Effect.all([guarded("recovery", claimOrphans), guarded("clocks", fireDueClocks)], { discard: true }).pipe(
        Effect.repeat(Schedule.spaced(Duration.millis(options.pollIntervalMs)))
      )
    )

    // Stopping: this process's runs are given up (no result) and handed over at once, not after the lease.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        stopping = true
        const fibers: Array<Fiber.Fiber<unknown, unknown>> = []
        for (const local of running.values()) {
          if (local.instance !== undefined) local.instance.abandoned = true
          if (local.fiber !== undefined) fibers.push(local.fiber)
        }
        yield* Effect.forEach(fibers, Fiber.interrupt, { discard: true })
        yield* sql`UPDATE wf_executions SET owner = NULL WHERE owner = ${me} AND status = 'running'`.pipe(Effect.ignore)
        yield* sql`DELETE FROM wf_runners WHERE incarnation = ${me}`.pipe(Effect.ignore)
      })
    )

    const engine: WorkflowEngine.WorkflowEngine["Service"] = WorkflowEngine.makeUnsafe({
      register: (workflow, execute) =>
        Effect.sync(() => {
          registered.set(workflow._tag, {
            workflow,
            execute,
            // Herald's workflows need no services to encode or decode.
            payload: Schema.toCodecJson(workflow.payloadSchema) as unknown as Schema.Codec<any, any>,
            result: Schema.toCodecJson(
              Workflow.Result({ success: workflow.successSchema, error: workflow.errorSchema })
            ) as unknown as Schema.Codec<any, any>
          })
        }),

      execute: Effect.fnUntraced(function*(workflow, opts) {
        const entry = registered.get(workflow._tag)
        if (entry === undefined) return yield* Effect.die(`Workflow ${workflow._tag} is not registered`)
        let local = running.get(opts.executionId)
        if (local === undefined) {
          const payload = JSON.stringify(
            yield* Schema.encodeUnknownEffect(entry.payload)(opts.payload).pipe(Effect.orDie)
          )
          const parent = opts.parent !== undefined && !opts.detached
            ? { name: opts.parent.workflow._tag, id: opts.parent.executionId }
            : undefined
          // One statement: the new row, or the existing one.
          const rows = yield* sql<{ inserted: boolean; status: string; result: string | null }>`WITH inserted AS (
              INSERT INTO wf_executions (execution_id, workflow_name, payload, status, owner, parent_name, parent_id)
              VALUES (${opts.executionId}, ${workflow._tag}, ${payload}, 'running', ${me},
                ${parent?.name ?? null}, ${parent?.id ?? null})
              ON CONFLICT DO NOTHING RETURNING status)
            SELECT true AS inserted, status, NULL AS result FROM inserted
            UNION ALL SELECT false AS inserted, status, result FROM wf_executions
              WHERE execution_id = ${opts.executionId} AND NOT EXISTS (SELECT 1 FROM inserted)`.pipe(Effect.orDie)
          const row = rows[0]!
          if (!row.inserted) {
            if (opts.discard) return undefined as any
            return (row.status === "complete" && row.result !== null
              ? yield* decodeResult(entry, row.result)
              : new Workflow.Suspended({})) as any
          }
          local = newLocal(entry, opts.executionId, opts.payload, parent, false)
          yield* start(local)
        }
        if (opts.discard) return undefined as any
        return (yield* Deferred.await(local.outcome)) as any
      }),

      awaitComplete: (_workflow, executionId) =>
        Effect.suspend(() => {
          let waiter = completions.get(executionId)
          if (waiter === undefined) {
            waiter = Deferred.makeUnsafe<void>()
            completions.set(executionId, waiter)
          }
          // A run completed by another process is seen by polling its row.
          const completedElsewhere = sql<{ status: string }>`SELECT status FROM wf_executions
            WHERE execution_id = ${executionId}`.pipe(
            Effect.map((rows) => rows[0]?.status === "complete"),
            Effect.orElseSucceed(() => false),
            Effect.repeat({
              schedule: Schedule.spaced(Duration.millis(options.pollIntervalMs)),
              until: (done) => done
            }),
            Effect.asVoid
          )
          const mine = waiter
          return Effect.raceFirst(Deferred.await(mine), completedElsewhere).pipe(
            Effect.ensuring(Effect.sync(() => {
              if (completions.get(executionId) === mine) completions.delete(executionId)
            }))
          )
        }),

      poll: (workflow, executionId) =>
        Effect.gen(function*() {
          const entry = registered.get(workflow._tag)
          const [row] = yield* sql<{ status: string; result: string | null; failed: boolean }>`SELECT status, result,
            failed FROM wf_executions WHERE execution_id = ${executionId}`.pipe(Effect.orDie)
          if (row === undefined || row.status === "running") return Option.none()
          if (row.status === "suspended") return Option.some(new Workflow.Suspended(row.failed ? { failed: true } : {}))
          if (entry === undefined || row.result === null) return Option.none()
          return Option.some(yield* decodeResult(entry, row.result))
        }),

      interrupt: (_workflow, executionId) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ status: string; owner: string | null }>`UPDATE wf_executions
            SET interrupted = true, runnable = true, failed = false, updated_at = now()
            WHERE execution_id = ${executionId} AND status <> 'complete' RETURNING status, owner`.pipe(Effect.orDie)
          const row = rows[0]
          if (row === undefined) return
          const local = running.get(executionId)
          if (local !== undefined && row.owner === me) local.interrupted = true
          if (row.status === "suspended") yield* claimOne(executionId)
        }),

      // Cuts a local run off at once; its replay (here or elsewhere) records the interrupt.
      interruptUnsafe: (workflow, executionId) =>
        Effect.gen(function*() {
          yield* engine.interrupt(workflow, executionId)
          const local = running.get(executionId)
          if (local?.fiber === undefined) return
          if (local.instance !== undefined) local.instance.abandoned = true
          yield* Fiber.interrupt(local.fiber)
          yield* sql`UPDATE wf_executions SET status = 'suspended', owner = NULL, runnable = true
            WHERE execution_id = ${executionId} AND owner = ${me} AND status = 'running'`.pipe(Effect.orDie)
          yield* claimOne(executionId)
        }),

      resume: (_workflow, executionId) => wake(executionId, true),

      activityExecute: Effect.fnUntraced(function*(activity, attempt) {
        const instance = yield* WorkflowEngine.WorkflowInstance
        const local = running.get(instance.executionId)
        const key = `${activity.name}/${attempt}`
        const replayed = local?.activities.get(key)
        if (replayed !== undefined) return new Workflow.Complete({ exit: activityFromText(replayed) })
        // A pending interrupt replays only up to where the run suspends: no new activity runs.
        if (local?.interrupted && !instance.interrupted) return new Workflow.Suspended({})
        const activityInstance = WorkflowEngine.WorkflowInstance.initial(instance.workflow, instance.executionId)
        activityInstance.interrupted = instance.interrupted
        const result = yield* activity.executeEncoded.pipe(
          Workflow.intoResult,
          Effect.provideService(WorkflowEngine.WorkflowInstance, activityInstance),
          Effect.provideService(Activity.CurrentAttempt, attempt)
        )
        if (result._tag === "Suspended") return result
        const text = activityText(result.exit)
        const stored = yield* Effect.gen(function*() {
          const inserted = yield* sql`INSERT INTO wf_activities (execution_id, name, attempt, result)
            SELECT ${instance.executionId}, ${activity.name}, ${attempt}, ${text}
            WHERE EXISTS (SELECT 1 FROM wf_executions WHERE execution_id = ${instance.executionId} AND owner = ${me})
            ON CONFLICT DO NOTHING RETURNING attempt`
          if (inserted.length === 1) return Option.some(text)
          // Not stored: another result was stored first, or the run is no longer this process's.
          const [found] = yield* sql<{ result: string | null; owner: string | null }>`SELECT
            (SELECT result FROM wf_activities WHERE execution_id = ${instance.executionId} AND name = ${activity.name}
              AND attempt = ${attempt}) AS result,
            (SELECT owner FROM wf_executions WHERE execution_id = ${instance.executionId}) AS owner`
          return found?.owner === me && found.result !== null ? Option.some(found.result) : Option.none<string>()
        }).pipe(
          Effect.retry({ schedule: Schedule.spaced(Duration.millis(500)), times: 20 }),
          Effect.catch(() => {
            if (local !== undefined) local.handOver = true
            return Effect.succeed(Option.none<string>())
          })
        )
        if (Option.isNone(stored)) {
          // Taken over, or the database stayed away: this run stops here, unfinished, for its owner to replay.
          instance.abandoned = true
          return yield* Effect.interrupt
        }
        return stored.value === text ? result : new Workflow.Complete({ exit: activityFromText(stored.value) })
      }),

      deferredResult: (deferred) =>
        Effect.gen(function*() {
          const instance = yield* WorkflowEngine.WorkflowInstance
          const cached = running.get(instance.executionId)?.deferreds.get(deferred.name)
          if (cached !== undefined) return Option.some(cached)
          const [row] = yield* persist(sql<{ exit: string }>`SELECT exit FROM wf_deferreds
            WHERE execution_id = ${instance.executionId} AND name = ${deferred.name}`)
          return row === undefined ? Option.none() : Option.some(decodeDeferredExit(JSON.parse(row.exit)))
        }),

      deferredDone: ({ deferredName, executionId, exit }) =>
        Effect.flatMap(Effect.serviceOption(WorkflowEngine.WorkflowInstance), (instance) =>
          completeDeferred(
            executionId,
            deferredName,
            exit,
            Option.isSome(instance) && instance.value.executionId === executionId && running.has(executionId)
              ? instance.value
              : undefined
          )),

      scheduleClock: (workflow, { clock, executionId }) =>
        Effect.gen(function*() {
          const seconds = Duration.toMillis(clock.duration) / 1000
          // A clock whose deferred already completed (a replay passing its sleep) is not stored again.
          const stored = yield* sql`INSERT INTO wf_clocks (execution_id, name, workflow_name, wake_at)
            SELECT ${executionId}, ${clock.name}, ${workflow._tag}, now() + make_interval(secs => ${seconds})
            WHERE NOT EXISTS (SELECT 1 FROM wf_deferreds WHERE execution_id = ${executionId}
              AND name = ${clock.deferred.name})
            ON CONFLICT DO NOTHING RETURNING name`.pipe(Effect.orDie)
          // Due soon: a timer here fires it on time (the loop fires it otherwise, and after a restart).
          if (stored.length === 1 && Duration.toMillis(clock.duration) <= 60_000) {
            yield* fireClock({ executionId, name: clock.name }).pipe(
              Effect.delay(clock.duration),
              Effect.catchCause((cause) => Effect.logWarning("workflow engine: firing a clock failed", cause)),
              Effect.forkIn(engineScope)
            )
          }
        })
    })
    return engine
  })

/** The engine's runners as it records them. */
export const pgEngineRunners = (sql: SqlClient.SqlClient) =>
  sql<{ address: string; healthy: boolean; lastHeartbeat: Date | null }>`
    SELECT address, lease_until > now() AS healthy, heartbeat_at AS last_heartbeat FROM wf_runners ORDER BY address`

/** Deletes what the engine stored of these executions; joins the caller's transaction. */
export const deletePgEngineRows = (sql: SqlClient.SqlClient, executionIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (executionIds.length === 0) return
    yield* sql`DELETE FROM wf_activities WHERE ${sql.in("execution_id", executionIds)}`
    yield* sql`DELETE FROM wf_deferreds WHERE ${sql.in("execution_id", executionIds)}`
    yield* sql`DELETE FROM wf_clocks WHERE ${sql.in("execution_id", executionIds)}`
    yield* sql`DELETE FROM wf_executions WHERE ${sql.in("execution_id", executionIds)}`
  })
