import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { brandFrom, type CopyKind } from "../../domain/Copywriting.ts"
import type { ContentType } from "../../domain/Content.ts"
import { platformBodyLimits } from "../../domain/Content.ts"
import type { CatalogId } from "../../domain/Workflows.ts"
import { type BrandVoice, Writer } from "../agent/Agent.ts"
import { Content } from "../content/Content.ts"
import { Customers } from "../customers/Customers.ts"
import { Analytics } from "../analytics/Analytics.ts"
import { Onboarding } from "../onboarding/Onboarding.ts"
import { Scanner } from "../scan/Scanner.ts"
import { Social } from "../social/Social.ts"
import { type AnalyticsPeriod, type ChannelMetrics, metricNames } from "../../domain/Social.ts"

/** What a finished step reports: succeeded with what it did, or skipped with why. */
export interface StepOutcome {
  readonly status: "succeeded" | "skipped"
  readonly detail: Record<string, unknown>
}

/** A step that could not finish: a budget cap (the run suspends and retries) or any other failure (the run fails). */
export class StepProblem extends Schema.TaggedError<StepProblem>()("StepProblem", {
  message: Schema.String,
  budget: Schema.Boolean
}) {}

export const StepOutcomeSchema = Schema.Struct({
  status: Schema.Literals(["succeeded", "skipped"]),
  detail: Schema.Record(Schema.String, Schema.Unknown)
})

export interface RunContext {
  readonly runId: string
  readonly customerId: string
  readonly workflowId: CatalogId
  /** The workflow's config with the run's input laid over it. */
  readonly options: Record<string, unknown>
}

export interface StepDefinition {
  readonly name: string
  readonly run: (ctx: RunContext) => Effect.Effect<StepOutcome, StepProblem>
}

/** A step whose service does not exist in this build: skipped, with the reason recorded. */
const skipped = (reason: string, detail: Record<string, unknown> = {}): Effect.Effect<StepOutcome> =>
  Effect.succeed({ status: "skipped", detail: { reason, ...detail } })

const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v.trim().length > 0).map((v) => v.trim()) : []

const text = (value: unknown): string | undefined => typeof value === "string" && value.trim().length > 0 ? value.trim() : undefined

const int = (value: unknown, min: number, max: number, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : fallback

const socialPlatforms = (options: Record<string, unknown>) => {
  const configured = strings(options["platforms"]).filter((p) => platformBodyLimits[p] !== undefined)
  return configured.length > 0 ? configured : ["linkedin", "x"]
}

const defaultTopics = (brand: string) => [
  `what ${brand} does for its customers`,
  "lessons from our customers",
  "common mistakes and how to avoid them",
  "a behind-the-scenes look at how we work",
  "quick wins for this week"
]

const topicsFor = (options: Record<string, unknown>, brand: string) => {
  const configured = strings(options["topics"])
  return configured.length > 0 ? configured : defaultTopics(brand)
}

/**
 * The steps of the catalog's workflows over the domain services. Content
 * creation is exactly-once per key: the piece and its key are committed in one
 * transaction, and a step re-run after a crash finds the key and skips the write.
 */
export class WorkflowSteps extends Context.Service<WorkflowSteps, {
  readonly plan: (workflowId: CatalogId) => ReadonlyArray<StepDefinition>
}>()("herald/features/workflows/WorkflowSteps") {
  static readonly layer = Layer.effect(WorkflowSteps, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const content = yield* Content
    const writer = yield* Writer
    const customers = yield* Customers
    const social = yield* Social
    const scanner = yield* Scanner
    const analytics = yield* Analytics
    const onboarding = yield* Onboarding

    const brandOf = (ctx: RunContext) =>
      Effect.gen(function*() {
        const customer = yield* customers.get(ctx.customerId).pipe(Effect.orDie)
        const profile = yield* onboarding.profile(ctx.customerId)
        // The run's own options first, then the account's name, then the confirmed brand profile.
        return brandFrom(
          [ctx.options, { brandName: customer.brandName }, profile],
          customer.email.split("@")[1] ?? "our company"
        ) satisfies BrandVoice
      })

    const effectDone = (runId: string, key: string) =>
      sql<{ result: unknown }>`SELECT result FROM workflow_effects WHERE run_id = ${runId} AND key = ${key}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => (typeof row.result === "string" ? JSON.parse(row.result) : row.result) as Record<string, unknown>)),
        Effect.orDie
      )

    /** Writes one piece through the model and stores it through the Content service, once per key. */
    const writePiece = (ctx: RunContext, brand: BrandVoice, key: string, piece: {
      readonly type: ContentType
      readonly kind: CopyKind
      readonly platform?: string | undefined
      readonly topic: string
      readonly angle: number
      readonly facts?: ReadonlyArray<string> | undefined
    }) =>
      Effect.gen(function*() {
        const done = yield* effectDone(ctx.runId, key)
        if (Option.isSome(done)) return done.value
        const written = yield* writer.write(ctx.customerId, brand, {
          kind: piece.kind,
          platform: piece.platform,
          topic: piece.topic,
          angle: piece.angle,
          facts: piece.facts,
          keywords: strings(ctx.options["keywords"])
        }).pipe(Effect.mapError((error) =>
          new StepProblem({ message: error._tag === "BudgetExceeded" ? error.error : error.message, budget: error._tag === "BudgetExceeded" })
        ))
        return yield* Effect.gen(function*() {
          // A concurrent attempt of the same step may have won: its piece stands.
          const again = yield* effectDone(ctx.runId, key)
          if (Option.isSome(again)) return again.value
          const created = yield* content.create(ctx.customerId, {
            type: piece.type,
            ...(piece.platform === undefined ? {} : { platform: piece.platform }),
            title: written.title,
            body: written.body,
            metadata: { workflow: ctx.workflowId, step: key, topic: piece.topic }
          }, { actor: "agent", skill: ctx.workflowId, agentId: "herald", runId: ctx.runId })
          const result = { contentId: created.id, status: created.status, type: created.type, platform: created.platform }
          yield* sql`INSERT INTO workflow_effects (run_id, key, result) VALUES (${ctx.runId}, ${key}, ${JSON.stringify(result)}::jsonb)`
          return result as Record<string, unknown>
        }).pipe(sql.withTransaction, Effect.orDie)
      })

    /** Writes a step's pieces for one brand (read once per step unless the step already has it). */
    const writeMany = (
      ctx: RunContext,
      pieces: ReadonlyArray<Parameters<typeof writePiece>[3] & { readonly key: string }>,
      known?: BrandVoice
    ) =>
      Effect.gen(function*() {
        const brand = known ?? (yield* brandOf(ctx))
        const results: Array<Record<string, unknown>> = []
        for (const p of pieces) results.push(yield* writePiece(ctx, brand, p.key, p))
        return { status: "succeeded", detail: { pieces: results } } satisfies StepOutcome
      })

    // ---- Steps over services that exist -------------------------------------

    const writeSocialPosts = (count: (ctx: RunContext) => number): StepDefinition => ({
      name: "write-social-posts",
      run: (ctx) =>
        Effect.gen(function*() {
          const brand = yield* brandOf(ctx)
          const topics = topicsFor(ctx.options, brand.brandName)
          const platforms = socialPlatforms(ctx.options)
          const n = count(ctx)
          return yield* writeMany(ctx, Array.from({ length: n }, (_, i) => {
            const platform = platforms[i % platforms.length]!
            return { key: `social-${i}`, type: "social", kind: "social", platform, topic: topics[i % topics.length]!, angle: i }
          }), brand)
        })
    })

    const writeBlog: StepDefinition = {
      name: "write-blog-post",
      run: (ctx) =>
        Effect.gen(function*() {
          const brand = yield* brandOf(ctx)
          const topic = topicsFor(ctx.options, brand.brandName)[0]!
          return yield* writeMany(ctx, [{ key: "blog-0", type: "blog", kind: "blog", topic, angle: 0 }], brand)
        })
    }

    const writePositioningBrief: StepDefinition = {
      name: "write-positioning-brief",
      run: (ctx) =>
        Effect.gen(function*() {
          const competitors = strings(ctx.options["competitors"])
          if (competitors.length === 0) return yield* skipped("no competitors configured (set config.competitors)")
          return yield* writeMany(ctx, [{
            key: "brief-0",
            type: "blog",
            kind: "report",
            topic: "how we compare with the competitors we watch",
            angle: 0,
            facts: [...competitors.map((c) => `Competitor watched: ${c}`), ...(yield* competitorFacts(ctx))]
          }])
        })
    }

    const writeLeadMagnet: StepDefinition = {
      name: "write-lead-magnet",
      run: (ctx) =>
        Effect.gen(function*() {
          const brand = yield* brandOf(ctx)
          const topic = topicsFor(ctx.options, brand.brandName)[0]!
          return yield* writeMany(ctx, [
            { key: "guide-0", type: "blog", kind: "blog", topic: `the complete guide to ${topic}`, angle: 0 },
            { key: "email-0", type: "email", kind: "email", topic: `our free guide to ${topic}`, angle: 1 }
          ], brand)
        })
    }

    // ---- Steps over the publisher, the scanner and analytics ------------------

    /** A step's own recorded result (a read it must not repeat after a crash), once per key. */
    const recordEffect = (ctx: RunContext, key: string, result: Record<string, unknown>) =>
      sql`INSERT INTO workflow_effects (run_id, key, result) VALUES (${ctx.runId}, ${key}, ${JSON.stringify(result)}::jsonb)
        ON CONFLICT (run_id, key) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie)

    /** The pieces this run wrote (from its own effect keys), as they are now. */
    const runPieces = (ctx: RunContext) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ result: unknown }>`SELECT result FROM workflow_effects WHERE run_id = ${ctx.runId} ORDER BY created_at, key`
          .pipe(Effect.orDie)
        const ids = new Set(rows.flatMap((row) => {
          const result = (typeof row.result === "string" ? JSON.parse(row.result) : row.result) as { contentId?: unknown; written?: unknown }
          return typeof result.contentId === "string" && result.written !== false ? [result.contentId] : []
        }))
        return yield* Effect.forEach([...ids], (id) => Effect.option(content.get(ctx.customerId, id)))
          .pipe(Effect.map((found) => found.flatMap((piece) => Option.isSome(piece) ? [piece.value] : [])))
      })

    /** `scheduledAt` of the run's input or config when it is a future instant; else the pieces go out now. */
    const publishAt = (options: Record<string, unknown>) => {
      const at = text(options["scheduledAt"])
      return at !== undefined && Date.parse(at) > Date.now() ? at : undefined
    }

    /**
     * Hands one approved piece to the publisher, exactly once per run: the key
     * `publish-<contentId>` is inserted first, in the same transaction as
     * Social.schedule's queue row (its own transaction nests as a savepoint), so
     * both commit or neither. A piece already in the publishing queue (level 5
     * queues at creation, or a person scheduled it) is left as it is: asking
     * again would reset a job that may be in flight.
     */
    const handOff = (ctx: RunContext, contentId: string, scheduledAt: string | undefined) =>
      Effect.gen(function*() {
        const key = `publish-${contentId}`
        const claimed = yield* sql<{ key: string }>`INSERT INTO workflow_effects (run_id, key, result)
          VALUES (${ctx.runId}, ${key}, ${JSON.stringify({ contentId, written: false })}::jsonb)
          ON CONFLICT (run_id, key) DO NOTHING RETURNING key`
        if (claimed.length === 0) {
          return Option.getOrElse(yield* effectDone(ctx.runId, key), () => ({ contentId }))
        }
        const queued = yield* sql<{ status: string }>`SELECT status FROM publish_jobs WHERE content_id = ${contentId} FOR UPDATE`
        const result: Record<string, unknown> = queued.length > 0
          ? { contentId, written: false, queue: "already", jobStatus: queued[0]!.status }
          : yield* Effect.map(social.schedule(ctx.customerId, contentId, scheduledAt), (piece) => ({
            contentId,
            written: false,
            queue: "queued",
            platform: piece.platform,
            scheduledAt: piece.scheduledAt
          }))
        yield* sql`UPDATE workflow_effects SET result = ${JSON.stringify(result)}::jsonb WHERE run_id = ${ctx.runId} AND key = ${key}`
        return result
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die),
        // Not connected is a missing setting, like a missing url: the piece stays approved, nothing is claimed.
        Effect.catchTag("PlatformNotConnected", (error): Effect.Effect<Record<string, unknown>> =>
          Effect.succeed({ contentId, written: false, queue: "not_connected", reason: error.error })),
        // Over a budget cap (an ad's spend) the run suspends and hands the piece off again later.
        Effect.mapError((error) =>
          new StepProblem({ message: `could not hand ${contentId} to the publisher: ${error.error}`, budget: error._tag === "BudgetExceeded" })
        )
      )

    /** Hands the run's approved social pieces to the publisher. */
    const handToPublisher: StepDefinition = {
      name: "hand-to-publisher",
      run: (ctx) =>
        Effect.gen(function*() {
          const approved = (yield* runPieces(ctx)).filter((p) => (p.type === "social" || p.type === "ad") && p.status === "approved")
          if (approved.length === 0) return yield* skipped("no approved social pieces to publish")
          const at = publishAt(ctx.options)
          const handed: Array<Record<string, unknown>> = []
          for (const piece of approved) handed.push(yield* handOff(ctx, piece.id, at))
          if (handed.every((h) => h["queue"] === "not_connected")) {
            const platforms = [...new Set(approved.map((p) => p.platform ?? "none"))].join(", ")
            return yield* skipped(`no connected platform for the approved pieces: connect ${platforms} first`, { handed })
          }
          return { status: "succeeded", detail: { handed } } satisfies StepOutcome
        })
    }

    const isWebUrl = (value: string) => {
      const url = URL.parse(value)
      return url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0 && value.length <= 2048
    }

    /** Scans a page once per key: a scan recorded before a crash is read back, not repeated. */
    const scanOnce = (ctx: RunContext, key: string, url: string) =>
      Effect.gen(function*() {
        const done = yield* effectDone(ctx.runId, key)
        if (Option.isSome(done)) return done.value
        const result = yield* scanner.scan(ctx.customerId, url)
        const recorded: Record<string, unknown> = {
          scanId: result.scanId,
          url: result.url,
          status: result.status,
          error: result.error,
          scores: {
            seo: result.seoScore,
            geo: result.geoScore,
            cro: result.croScore,
            lighthouseSeo: result.lighthouseSeoScore,
            citabilityGrade: result.citabilityGrade
          }
        }
        yield* recordEffect(ctx, key, recorded)
        return Option.getOrElse(yield* effectDone(ctx.runId, key), () => recorded)
      })

    /** The site to audit: the workflow's config or run input `url`, else the confirmed brand profile's `sourceUrl`. */
    const siteUrl = (ctx: RunContext) =>
      Effect.gen(function*() {
        const configured = text(ctx.options["url"])
        if (configured !== undefined) return { url: configured, from: "config" }
        const profile = yield* onboarding.profile(ctx.customerId)
        const source = text(profile?.["sourceUrl"]) ?? text(profile?.["url"])
        return source === undefined ? undefined : { url: source, from: "brand profile" }
      })

    /** Scans the customer's site for SEO, GEO and CRO issues. */
    const scanSite: StepDefinition = {
      name: "scan-site",
      run: (ctx) =>
        Effect.gen(function*() {
          const site = yield* siteUrl(ctx)
          if (site === undefined) {
            return yield* skipped("no site to scan: set config.url or confirm a brand profile with a sourceUrl")
          }
          if (!isWebUrl(site.url)) {
            return yield* new StepProblem({ message: `the site url from the ${site.from} is not an absolute http(s) URL`, budget: false })
          }
          const scan = yield* scanOnce(ctx, "scan-site", site.url)
          if (scan["status"] !== "done") {
            return yield* new StepProblem({
              message: `the scan of ${site.url} failed: ${typeof scan["error"] === "string" ? scan["error"] : "unknown error"} (scan ${String(scan["scanId"])})`,
              budget: false
            })
          }
          return { status: "succeeded", detail: { scanId: scan["scanId"], url: scan["url"], scores: scan["scores"] } } satisfies StepOutcome
        })
    }

    /** How many checklist findings a report is written from (failures first, heaviest first). */
    const maxFindings = 12

    const scoreLine = (label: string, value: unknown) => typeof value === "number" ? `${label} score: ${value}/100` : undefined

    /** Writes the audit report from the scan's findings. */
    const writeAuditReport: StepDefinition = {
      name: "write-audit-report",
      run: (ctx) =>
        Effect.gen(function*() {
          const recorded = yield* effectDone(ctx.runId, "scan-site")
          if (Option.isNone(recorded) || typeof recorded.value["scanId"] !== "string") {
            return yield* skipped("no scan results to report on (the scan step was skipped)")
          }
          const scan = yield* scanner.get(ctx.customerId, recorded.value["scanId"]).pipe(
            Effect.mapError((error) => new StepProblem({ message: `the scan to report on is gone: ${error.error}`, budget: false }))
          )
          const rank = { fail: 0, warn: 1, pass: 2 } as const
          const findings = scan.checklist
            .filter((item) => item.status !== "pass")
            .sort((a, b) => rank[a.status] - rank[b.status] || b.weight - a.weight || a.id.localeCompare(b.id))
            .slice(0, maxFindings)
          const facts = [
            `Site audited: ${scan.url}`,
            scoreLine("SEO", scan.seoScore),
            scoreLine("GEO (AI search visibility)", scan.geoScore),
            scoreLine("Conversion (CRO)", scan.croScore),
            scan.citabilityGrade === null ? undefined : `Citability grade: ${scan.citabilityGrade}`,
            `Checks passed: ${scan.checklist.filter((i) => i.status === "pass").length} of ${scan.checklist.length}`,
            ...findings.map((item) =>
              `${item.status === "fail" ? "Fix" : "Improve"} (${item.category.toUpperCase()}): ${item.title}. ${item.detail}${
                item.recommendation.length > 0 ? ` ${item.recommendation}` : ""
              }`)
          ].filter((f): f is string => f !== undefined)
          const written = yield* writeMany(ctx, [{
            key: "audit-report-0",
            type: "blog",
            kind: "report",
            topic: `SEO and AI visibility audit of ${new URL(scan.url).hostname}`,
            angle: 0,
            facts
          }])
          return { status: "succeeded", detail: { ...written.detail, scanId: scan.scanId, findings: findings.length } } satisfies StepOutcome
        })
    }

    /** How many competitor sites one run scans. */
    const maxCompetitorScans = 5

    const competitorUrls = (options: Record<string, unknown>) => strings(options["competitors"]).filter(isWebUrl).slice(0, maxCompetitorScans)

    /** Scans the competitors' sites (the config's competitors that are http(s) URLs). */
    const scanCompetitors: StepDefinition = {
      name: "scan-competitors",
      run: (ctx) =>
        Effect.gen(function*() {
          const urls = competitorUrls(ctx.options)
          if (urls.length === 0) return yield* skipped("no competitor URLs configured (config.competitors with http(s) URLs)")
          const scans: Array<Record<string, unknown>> = []
          for (const [i, url] of urls.entries()) {
            const scan = yield* scanOnce(ctx, `scan-competitor-${i}`, url)
            scans.push({ scanId: scan["scanId"], url, status: scan["status"], scores: scan["scores"], error: scan["error"] ?? null })
          }
          return { status: "succeeded", detail: { scans } } satisfies StepOutcome
        })
    }

    /** What the competitor scans found, as facts for the brief. */
    const competitorFacts = (ctx: RunContext) =>
      Effect.gen(function*() {
        const facts: Array<string> = []
        for (const [i, url] of competitorUrls(ctx.options).entries()) {
          const scan = yield* effectDone(ctx.runId, `scan-competitor-${i}`)
          if (Option.isNone(scan)) continue
          const scores = (scan.value["scores"] ?? {}) as Record<string, unknown>
          facts.push(scan.value["status"] === "done"
            ? `Competitor ${url}: SEO ${String(scores["seo"] ?? "n/a")}/100, GEO ${String(scores["geo"] ?? "n/a")}/100, CRO ${String(scores["cro"] ?? "n/a")}/100`
            : `Competitor ${url} could not be scanned`)
        }
        return facts
      })

    const periods: Record<string, AnalyticsPeriod> = {
      "7d": "last_7_days",
      "30d": "last_30_days",
      "90d": "last_90_days",
      last_7_days: "last_7_days",
      last_30_days: "last_30_days",
      last_90_days: "last_90_days"
    }

    const periodLabel: Record<AnalyticsPeriod, string> = { last_7_days: "the last 7 days", last_30_days: "the last 30 days", last_90_days: "the last 90 days" }

    /** Reads the period's analytics (config or input `period`: 7d, 30d, 90d or last_N_days; default 7 days). */
    const readAnalytics: StepDefinition = {
      name: "read-analytics",
      run: (ctx) =>
        Effect.gen(function*() {
          const asked = text(ctx.options["period"])
          const period = asked === undefined ? "last_7_days" : periods[asked]
          if (period === undefined) {
            return yield* new StepProblem({ message: `config.period must be 7d, 30d or 90d (got ${JSON.stringify(asked!.slice(0, 40))})`, budget: false })
          }
          const done = yield* effectDone(ctx.runId, "analytics")
          if (Option.isSome(done)) return { status: "succeeded", detail: done.value } satisfies StepOutcome
          const report = yield* analytics.report(ctx.customerId, period)
          const figures: Record<string, unknown> = {
            period: report.period,
            totals: report.totals,
            channels: Object.fromEntries(Object.entries(report.channels).filter(([, m]) => metricNames.some((n) => m[n] !== 0)))
          }
          yield* recordEffect(ctx, "analytics", figures)
          return { status: "succeeded", detail: figures } satisfies StepOutcome
        })
    }

    const metricLine = (label: string, m: ChannelMetrics) =>
      `${label}: ${m.posts} posts published, ${m.impressions} impressions, ${m.engagements} engagements, ${m.clicks} clicks, ${m.revenue} revenue`

    /** Writes the performance report from the analytics read. */
    const writePerformanceReport: StepDefinition = {
      name: "write-performance-report",
      run: (ctx) =>
        Effect.gen(function*() {
          const recorded = yield* effectDone(ctx.runId, "analytics")
          if (Option.isNone(recorded)) return yield* skipped("no analytics to report on (the analytics step was skipped)")
          const figures = recorded.value as { period: AnalyticsPeriod; totals: ChannelMetrics; channels: Record<string, ChannelMetrics> }
          const facts = [
            metricLine(`Total over ${periodLabel[figures.period] ?? figures.period}`, figures.totals),
            ...Object.entries(figures.channels).map(([channel, m]) => metricLine(channel === "x" ? "X" : channel.charAt(0).toUpperCase() + channel.slice(1), m))
          ]
          return yield* writeMany(ctx, [{
            key: "performance-report-0",
            type: "blog",
            kind: "report",
            topic: `marketing performance over ${periodLabel[figures.period] ?? figures.period}`,
            angle: 0,
            facts
          }])
        })
    }

    /** The approval wait is handled by the run itself (it suspends); this marker keeps its place in the order. */
    const awaitApproval: StepDefinition = { name: "await-approval", run: () => Effect.succeed({ status: "succeeded", detail: {} }) }

    const plans: Record<CatalogId, ReadonlyArray<StepDefinition>> = {
      "weekly-content-plan": [
        writeBlog,
        writeSocialPosts((ctx) => int(ctx.options["postsPerWeek"], 1, 21, 3)),
        awaitApproval,
        handToPublisher
      ],
      "daily-social-posts": [
        writeSocialPosts((ctx) => int(ctx.options["postsPerDay"], 1, 12, socialPlatforms(ctx.options).length)),
        awaitApproval,
        handToPublisher
      ],
      "monthly-seo-audit": [scanSite, writeAuditReport],
      "competitor-research": [scanCompetitors, writePositioningBrief, awaitApproval],
      "lead-magnet": [writeLeadMagnet, awaitApproval],
      "performance-report": [readAnalytics, writePerformanceReport]
    }

    return WorkflowSteps.of({ plan: (workflowId) => plans[workflowId] })
  }))
}
