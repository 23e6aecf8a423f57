import { Effect, Option } from "effect"
import { LanguageModel } from "effect/ai"
import { CurrentPrincipal } from "../../../api/Security.ts"
import { AppConfig } from "../../../Config.ts"
import { type Brief, brandFrom } from "../../../domain/Copywriting.ts"
import { BudgetExceeded } from "../../../domain/Errors.ts"
import type { ChecklistItem, ScanResult } from "../../../domain/Scan.ts"
import { periodDays, type SocialPlatform } from "../../../domain/Social.ts"
import type { Settings as SettingsShape } from "../../../domain/Settings.ts"
import type { WorkflowRunDetail } from "../../../domain/Workflows.ts"
import { Content } from "../../content/Content.ts"
import { Customers } from "../../customers/Customers.ts"
import { Onboarding } from "../../onboarding/Onboarding.ts"
import { Scanner } from "../../scan/Scanner.ts"
import { Settings } from "../../settings/Settings.ts"
import { Links } from "../../social/Links.ts"
import { Social } from "../../social/Social.ts"
import { Workflows } from "../../workflows/Workflows.ts"
import { type AgentTurn, agentTurn } from "../Agent.ts"
import { briefMarker } from "../HouseModel.ts"
import { budgetReason, isBudgetRefusal } from "../OpenAiModel.ts"
import { toolkitOf } from "./ChatToolkit.ts"
import {
  aiSeoAudit,
  analyzeBrandUrl,
  askCmo,
  checkAiVisibility,
  croAudit,
  generateLeadMagnet,
  publishToSocial,
  queryGa4,
  runContentCreation,
  runResearch,
  scheduleContent,
  trackRevenue
} from "./definitions.ts"
import { draftPiece } from "./drafting.ts"
import { Ga4 } from "./Ga4.ts"
import { makeRunner } from "./Registry.ts"
import { ToolsRepo } from "./Repo.ts"
import { implement, type ToolCallContext, ToolFailure, type ToolOutput } from "./Tool.ts"

/**
 * run_content_creation: a piece written by rules from the request, stored
 * through Content.create as the agent, so the customer's autonomy (the
 * tool's skill override, else the content type's, else the global default)
 * decides whether it is a draft, pending approval or approved.
 */
export const runContentCreationTool = implement(runContentCreation, Effect.gen(function*() {
  const content = yield* Content
  return (input, context) =>
    Effect.gen(function*() {
      const draft = draftPiece(input)
      const piece = yield* content.create(input.customerId, {
        type: input.type,
        ...(input.platform === undefined ? {} : { platform: input.platform }),
        title: draft.title,
        body: draft.body,
        metadata: {
          tool: "run_content_creation",
          topic: input.topic,
          ...(input.keywords === undefined ? {} : { keywords: [...input.keywords] }),
          ...(input.url === undefined ? {} : { url: input.url })
        }
      }, { actor: "agent", skill: "run_content_creation", agentId: context.via })
      return {
        summary: `Created ${piece.type} piece ${piece.id} "${piece.title}" with status ${piece.status}.`,
        data: { ...piece }
      }
    })
}))

const defaultMetrics = ["sessions", "totalUsers", "screenPageViews", "conversions"]

/**
 * query_ga4: GA4's runReport over the period when GA4 is configured;
 * otherwise Herald's own counts for the period, saying that GA4 is not set up.
 */
export const queryGa4Tool = implement(queryGa4, Effect.gen(function*() {
  const ga4 = yield* Ga4
  const repo = yield* ToolsRepo
  return (input) =>
    Effect.gen(function*() {
      const period = input.period ?? "last_7_days"
      const days = periodDays[period]
      if (Option.isSome(ga4.propertyId)) {
        const metrics = input.metrics ?? defaultMetrics
        const dimensions = input.dimensions ?? []
        const report = yield* ga4.runReport({
          startDate: `${days}daysAgo`,
          endDate: "today",
          metrics,
          dimensions,
          limit: input.limit ?? 100
        }).pipe(Effect.mapError((e) => new ToolFailure({ code: "E_GA4", message: e.message })))
        const totals = Object.entries(report.totals).map(([name, value]) => `${name} ${value}`).join(", ")
        return {
          summary: `GA4 property ${report.propertyId}, ${period}: ${totals.length > 0 ? totals : "no numeric metrics"} (${report.rowCount} rows).`,
          data: { source: "ga4", period, metrics: [...metrics], dimensions: [...dimensions], ...report }
        }
      }
      const figures = yield* repo.ownFigures(input.customerId, new Date(Date.now() - days * 86_400_000))
      const created = Object.values(figures.contentCreated).reduce((a, b) => a + b, 0)
      return {
        summary:
          `GA4 is not configured for this Herald server (GA4_PROPERTY_ID, GA4_CREDENTIALS), so these are Herald's own figures for ${period}, not website analytics: ${created} pieces created, ${figures.published} published.`,
        data: { source: "herald", ga4Configured: false, period, ...figures }
      }
    })
}))

// ---- Workflows: run_research, generate_lead_magnet ---------------------------

/** How long a tool call waits for the run it started to end before answering with its run id alone. */
export const runWaitMillis = 5_000
const runPollMillis = 200

/**
 * Reads the run until it has ended (succeeded, failed) or stopped to wait for
 * people (suspended: its pieces await approval), or `runWaitMillis` passed;
 * answers the run as it was last read.
 */
const awaitRun = (workflows: Workflows["Service"], customerId: string, runId: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + runWaitMillis
    for (;;) {
      const run = yield* workflows.getRun(customerId, runId)
      if (run.status === "succeeded" || run.status === "failed" || run.status === "suspended" || Date.now() >= deadline) return run
      yield* Effect.sleep(runPollMillis)
    }
  })

/** The answer of a workflow tool: the run id always; its steps and output as far as they got. */
const runOutput = (customerId: string, run: WorkflowRunDetail): ToolOutput => {
  const follow = `Follow it with GET /api/runs/${customerId}/${run.runId}.`
  const summary = run.status === "succeeded"
    ? `The ${run.workflow} run ${run.runId} finished: succeeded.`
    : run.status === "failed"
    ? `The ${run.workflow} run ${run.runId} failed: ${run.error ?? "no reason recorded"}.`
    : run.status === "suspended"
    ? `The ${run.workflow} run ${run.runId} started and is suspended: ${run.error ?? "its pieces await approval in the content queue"}. ${follow}`
    : `The ${run.workflow} run ${run.runId} started and is ${run.status}. ${follow}`
  return {
    summary,
    data: { ...run, finished: run.status === "succeeded" || run.status === "failed" }
  }
}

/**
 * run_research: starts the competitor-research workflow with the topic (and
 * competitors, when given, over the workflow's configured ones) and waits a
 * few seconds for it to end.
 */
export const runResearchTool = implement(runResearch, Effect.gen(function*() {
  const workflows = yield* Workflows
  return (input) =>
    Effect.gen(function*() {
      const started = yield* workflows.start(input.customerId, "competitor-research", {
        topic: input.topic,
        topics: [input.topic],
        ...(input.competitors === undefined ? {} : { competitors: [...input.competitors] })
      }, "agent")
      return runOutput(input.customerId, yield* awaitRun(workflows, input.customerId, started.runId))
    })
}))

/** generate_lead_magnet: starts the lead-magnet workflow on the topic, format and audience, and waits a few seconds for it to end. */
export const generateLeadMagnetTool = implement(generateLeadMagnet, Effect.gen(function*() {
  const workflows = yield* Workflows
  return (input) =>
    Effect.gen(function*() {
      const started = yield* workflows.start(input.customerId, "lead-magnet", {
        topic: input.topic,
        topics: [input.topic],
        format: input.format ?? "checklist",
        ...(input.audience === undefined ? {} : { audience: input.audience })
      }, "agent")
      return runOutput(input.customerId, yield* awaitRun(workflows, input.customerId, started.runId))
    })
}))

// ---- ask_cmo -------------------------------------------------------------------

/** The tools ask_cmo's model may call: the read-only ones (never ask_cmo itself). */
export const readOnlyTools = [queryGa4Tool] as const

const settingsFacts = (settings: SettingsShape): Array<string> => {
  const { autonomy, budget } = settings
  const overrides = Object.entries({ ...autonomy.categories, ...autonomy.skills }).map(([name, level]) => `${name} ${level}`)
  const caps = [
    ...(["daily", "weekly", "monthly"] as const).flatMap((period) => budget[period] === null ? [] : [`${period} ${budget[period]}`]),
    ...Object.entries(budget.channels).map(([channel, cap]) => `${channel} ${cap} a month`)
  ]
  return [
    `Autonomy: level ${autonomy.globalDefault} by default${overrides.length > 0 ? `; overrides: ${overrides.join(", ")}` : ""} (1 drafts only, 2 asks approval, 3 and up acts more on its own).`,
    `Budget caps: ${caps.length > 0 ? caps.join(", ") : "none"}.`,
    `Tracked links: ${settings.tracking.links ? "on" : "off"}.`
  ]
}

/**
 * ask_cmo: one agent turn of the language model, charged to the customer's
 * model budget, with the brand profile and settings as context and only the
 * read-only tools offered (it reads figures, never changes anything).
 */
export const askCmoTool = implement(askCmo, Effect.gen(function*() {
  const model = yield* LanguageModel.LanguageModel
  const config = yield* AppConfig
  const customers = yield* Customers
  const onboarding = yield* Onboarding
  const settings = yield* Settings
  const readers = yield* makeRunner(readOnlyTools)
  const offered = (via: ToolCallContext["via"]) =>
    toolkitOf(readers, via, (definition) => definition.annotations.readOnlyHint && definition.name !== "ask_cmo")
  return (input, context) =>
    Effect.gen(function*() {
      const customer = yield* customers.get(input.customerId)
      const profile = (yield* onboarding.profile(input.customerId)) ?? {}
      const current = yield* settings.get(input.customerId)
      const facts = settingsFacts(current)
      const brief: Brief = {
        ...brandFrom([profile, { brandName: customer.brandName }], customer.email.split("@")[1] ?? "the company"),
        kind: "report",
        topic: Array.from(input.question.trim()).slice(0, 200).join(""),
        facts
      }
      const { toolkit, layer } = offered(context.via)
      const tools = Object.keys(toolkit.tools)
      const system = [
        `You are the chief marketing officer of ${brief.brandName}. Answer the question with concrete, prioritised advice in plain language.`,
        tools.length > 0
          ? `You may call these read-only tools for figures: ${tools.join(", ")} (pass customerId ${input.customerId}). You cannot create, publish or change anything.`
          : "You cannot create, publish or change anything.",
        Object.keys(profile).length > 0
          ? `Brand profile (JSON): ${JSON.stringify(profile)}`
          : "No brand profile has been confirmed yet (onboarding and analyze_brand_url provide one).",
        `Settings: ${facts.join(" ")}`,
        `${briefMarker}${JSON.stringify(brief)}`
      ].join("\n")
      const withHandler = yield* Effect.provide(toolkit, layer)
      // The toolkit's general types leave its handlers' requirement open: it is CurrentPrincipal alone, provided here.
      const turn: AgentTurn = yield* (agentTurn({
        customerId: input.customerId,
        prompt: [{ role: "system", content: system }, { role: "user", content: input.question }],
        toolkit: withHandler,
        maxRounds: config.llmMaxToolRounds
      }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model),
        Effect.provideService(CurrentPrincipal, context.principal),
        Effect.mapError((error) =>
          isBudgetRefusal(error)
            ? new BudgetExceeded({ error: `The model call would pass the budget: ${budgetReason(error)}` })
            : new ToolFailure({ code: "E_MODEL_FAILED", message: `The language model failed: ${error.message}` }))
      ) as unknown as Effect.Effect<AgentTurn, BudgetExceeded | ToolFailure>)
      return {
        summary: turn.text,
        data: { answer: turn.text, rounds: turn.rounds, toolCalls: turn.toolCalls }
      }
    })
}))

// ---- Social: schedule_content, publish_to_social ----------------------------

const postInput = (input: {
  readonly platform: SocialPlatform
  readonly body: string
  readonly media?: ReadonlyArray<string> | undefined
  readonly spend?: number | undefined
  readonly scheduledAt?: string | undefined
}) => ({
  platform: input.platform,
  body: input.body,
  ...(input.media === undefined ? {} : { media: input.media }),
  ...(input.spend === undefined ? {} : { spend: input.spend }),
  ...(input.scheduledAt === undefined ? {} : { scheduledAt: input.scheduledAt })
})

/** schedule_content: the publisher's queue at `scheduledAt` (Social.publish); not connected, too long, past: tool errors with their codes. */
export const scheduleContentTool = implement(scheduleContent, Effect.gen(function*() {
  const social = yield* Social
  return (input, context) =>
    Effect.gen(function*() {
      const piece = yield* social.publish(input.customerId, postInput(input), { agentId: context.via })
      return {
        summary: `Scheduled ${input.platform} post ${piece.id} for ${piece.scheduledAt ?? input.scheduledAt} (status ${piece.status}).`,
        data: { ...piece }
      }
    })
}))

/** publish_to_social: the publisher's queue now (or at `scheduledAt`), through Social.publish. */
export const publishToSocialTool = implement(publishToSocial, Effect.gen(function*() {
  const social = yield* Social
  return (input, context) =>
    Effect.gen(function*() {
      const piece = yield* social.publish(input.customerId, postInput(input), { agentId: context.via })
      const when = piece.scheduledAt === null ? "now" : `at ${piece.scheduledAt}`
      return {
        summary: `Queued ${input.platform} post ${piece.id} to publish ${when} (status ${piece.status}); it becomes published when the network accepts it.`,
        data: { ...piece }
      }
    })
}))

// ---- Scanner: ai_seo_audit, cro_audit, check_ai_visibility ------------------

const failedChecks = (items: ReadonlyArray<ChecklistItem>) => items.filter((item) => item.status !== "pass")

const scanFailed = (scan: ScanResult): ToolOutput | undefined =>
  scan.status === "failed"
    ? { summary: `The scan ${scan.scanId} of ${scan.url} failed: ${scan.error ?? "no reason recorded"}.`, data: { ...scan } }
    : undefined

/** ai_seo_audit: a stored scan of the page, all of it. */
export const aiSeoAuditTool = implement(aiSeoAudit, Effect.gen(function*() {
  const scanner = yield* Scanner
  return (input) =>
    Effect.gen(function*() {
      const scan = yield* scanner.scan(input.customerId, input.url)
      const open = failedChecks(scan.checklist)
      return scanFailed(scan) ?? {
        summary: `Scan ${scan.scanId} of ${scan.url}: SEO ${scan.seoScore}, GEO ${scan.geoScore}, CRO ${scan.croScore}, citability ${scan.citabilityGrade}; ${open.length} of ${scan.checklist.length} checks to fix${open.length > 0 ? ` (${open.slice(0, 5).map((i) => i.title).join("; ")}${open.length > 5 ? "; ..." : ""})` : ""}.`,
        data: { ...scan }
      }
    })
}))

/** cro_audit: a stored scan of the page, answered as its CRO score and CRO checklist. */
export const croAuditTool = implement(croAudit, Effect.gen(function*() {
  const scanner = yield* Scanner
  return (input) =>
    Effect.gen(function*() {
      const scan = yield* scanner.scan(input.customerId, input.url)
      const cro = scan.checklist.filter((item) => item.category === "cro")
      const open = failedChecks(cro)
      return scanFailed(scan) ?? {
        summary: `Conversion audit of ${scan.url} (scan ${scan.scanId}): CRO score ${scan.croScore}; ${open.length} of ${cro.length} checks to fix${open.length > 0 ? `: ${open.map((i) => i.title).join("; ")}` : ""}.`,
        data: { scanId: scan.scanId, url: scan.url, status: scan.status, croScore: scan.croScore, checklist: cro, screenshotUrl: scan.screenshotUrl, createdAt: scan.createdAt }
      }
    })
}))

/** check_ai_visibility: a stored scan of the site, answered as its GEO score, citability, GEO checklist and proposed llms.txt. */
export const checkAiVisibilityTool = implement(checkAiVisibility, Effect.gen(function*() {
  const scanner = yield* Scanner
  return (input) =>
    Effect.gen(function*() {
      const scan = yield* scanner.scan(input.customerId, input.url)
      const geo = scan.checklist.filter((item) => item.category === "geo")
      const open = failedChecks(geo)
      return scanFailed(scan) ?? {
        summary: `AI visibility of ${scan.url} (scan ${scan.scanId}): GEO score ${scan.geoScore}, citability grade ${scan.citabilityGrade}; ${open.length} of ${geo.length} checks to fix${open.length > 0 ? `: ${open.map((i) => i.title).join("; ")}` : ""}.`,
        data: { scanId: scan.scanId, url: scan.url, status: scan.status, geoScore: scan.geoScore, citabilityGrade: scan.citabilityGrade, checklist: geo, llmsTxt: scan.llmsTxt, createdAt: scan.createdAt }
      }
    })
}))

// ---- analyze_brand_url, track_revenue ----------------------------------------

/** analyze_brand_url: Onboarding.extract (a page it cannot fetch is E_FETCH_FAILED). */
export const analyzeBrandUrlTool = implement(analyzeBrandUrl, Effect.gen(function*() {
  const onboarding = yield* Onboarding
  return (input) =>
    Effect.gen(function*() {
      const profile = yield* onboarding.extract(input.url)
      return {
        summary: `Read ${profile.sourceUrl}: brand ${profile.brandName ?? "(not named on the page)"}${profile.products.length > 0 ? `, products ${profile.products.join(", ")}` : ""}${profile.voice.length > 0 ? `, voice ${profile.voice.join(", ")}` : ""}. Confirm it with POST /api/onboard/${input.customerId}/confirm-profile to make it the brand profile.`,
        data: { ...profile }
      }
    })
}))

/** track_revenue: Links.trackRevenue (an unknown piece or link is E_NOT_FOUND). */
export const trackRevenueTool = implement(trackRevenue, Effect.gen(function*() {
  const links = yield* Links
  return (input) =>
    Effect.gen(function*() {
      const { customerId, ...revenue } = input
      const record = yield* links.trackRevenue(customerId, revenue)
      return {
        summary: `Recorded ${record.amount} ${record.currency}${record.channel === null ? "" : ` under ${record.channel}`}${record.contentId === null ? "" : ` for piece ${record.contentId}`} (${record.id}); it shows in the analytics report's revenue.`,
        data: { ...record }
      }
    })
}))
