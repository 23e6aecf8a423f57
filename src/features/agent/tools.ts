import { Effect } from "effect"
import { LanguageModel } from "effect/ai"
import { CurrentPrincipal } from "../../api/Security.ts"
import { askCmo } from "../../api/tools/definitions.ts"
import { AppConfig } from "../../Config.ts"
import { brandFrom } from "../../domain/Copywriting.ts"
import type { BudgetExceeded } from "../../domain/Errors.ts"
import type { Settings as SettingsShape } from "../../domain/Settings.ts"
import { toolkitOf } from "../../platform/tools/ChatToolkit.ts"
import {
  type AnyToolImplementation,
  implement,
  type ToolCallContext,
  ToolFailure
} from "../../platform/tools/Handler.ts"
import { makeRunner } from "../../platform/tools/ToolRunner.ts"
import { Customers } from "../customers/Customers.ts"
import { Onboarding } from "../onboarding/Onboarding.ts"
import { reportLink, Reports } from "../reports/Reports.ts"
import { Settings } from "../settings/Settings.ts"
import { type AgentTurn, agentTurn, ModelFailed, modelRefusal, profileMarker } from "./Agent.ts"
import { reportsContext } from "./reports.ts"

const settingsFacts = (settings: SettingsShape): Array<string> => {
  const { autonomy, budget } = settings
  const overrides = Object.entries({ ...autonomy.categories, ...autonomy.skills }).map(([name, level]) =>
    `${name} ${level}`
  )
  const caps = [
    ...(["daily", "weekly", "monthly"] as const).flatMap((period) =>
      budget[period] === null ? [] : [`${period} ${budget[period]}`]
    ),
    ...Object.entries(budget.channels).map(([channel, cap]) => `${channel} ${cap} a month`)
  ]
  return [
    `Autonomy: level ${autonomy.globalDefault} by default${
      overrides.length > 0 ? `; overrides: ${overrides.join(", ")}` : ""
    } (1 drafts only, 2 asks approval, 3 and up acts more on its own).`,
    `Budget caps: ${caps.length > 0 ? caps.join(", ") : "none"}.`,
    `Tracked links: ${settings.tracking.links ? "on" : "off"}.`
  ]
}

/**
 * ask_cmo: one agent turn of the language model, charged to the customer's
 * model budget, with the brand profile and settings as context and only the
 * read-only tools among `readOnlyTools` offered (it reads figures, never
 * changes anything). A question about stored reports is answered from them,
 * which come back in the result's data (`reports`, and `report` when one was read). The wiring names those tools, so the agent depends on
 * no feature's handlers.
 */
export const askCmoTool = <const Readers extends ReadonlyArray<AnyToolImplementation>>(readOnlyTools: Readers) =>
  implement(
    askCmo,
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      const config = yield* AppConfig
      const customers = yield* Customers
      const onboarding = yield* Onboarding
      const settings = yield* Settings
      const reports = yield* Reports
      const readers = yield* makeRunner(readOnlyTools)
      // The toolkit depends only on the surface calling: built once for each, not per question.
      const offered = (via: ToolCallContext["via"]) => {
        const { toolkit, layer } = toolkitOf(
          readers,
          via,
          (definition) => definition.annotations.readOnlyHint && definition.name !== "ask_cmo"
        )
        return Effect.map(
          Effect.provide(toolkit, layer),
          (withHandler) => ({ tools: Object.keys(toolkit.tools), withHandler })
        )
      }
      const byVia = { mcp: yield* offered("mcp"), chat: yield* offered("chat") }
      return (input, context) =>
        Effect.gen(function*() {
          const customer = yield* customers.get(input.customerId)
          const profile = (yield* onboarding.profile(input.customerId)) ?? {}
          const current = yield* settings.get(input.customerId)
          const asked = yield* reportsContext(reports, input.customerId, input.question)
          const facts = settingsFacts(current)
          const brandName =
            brandFrom([profile, { brandName: customer.brandName }], customer.email.split("@")[1] ?? "the company")
              .brandName
          const { tools, withHandler } = byVia[context.via]
          const system = [
            `You are the chief marketing officer of ${brandName}, advising its own team. Answer the question with concrete, prioritised advice in plain language.`,
            tools.length > 0
              ? `You may call these read-only tools for figures: ${
                tools.join(", ")
              }; they read this customer's account. You cannot create, publish or change anything.`
              : "You cannot create, publish or change anything.",
            // The brand is the asker's own: advice is for its team, never a pitch of the brand to itself.
            `${profileMarker}${JSON.stringify({ ...profile, brandName })}`,
            Object.keys(profile).length > 0
              ? ""
              : "No brand profile has been confirmed yet (onboarding and analyze_brand_url provide one).",
            `Settings: ${facts.join(" ")}`,
            ...(asked?.lines ?? [])
          ].filter((line) => line.length > 0).join("\n")
          // The toolkit's general types leave its handlers' requirement open: it is CurrentPrincipal alone, provided here.
          const turn: AgentTurn = yield* (agentTurn({
            customerId: input.customerId,
            prompt: [{ role: "system", content: system }, { role: "user", content: input.question }],
            toolkit: withHandler,
            maxRounds: config.llmMaxToolRounds
          }).pipe(
            Effect.provideService(LanguageModel.LanguageModel, model),
            Effect.provideService(CurrentPrincipal, context.principal),
            Effect.mapError((error) => {
              const refusal = modelRefusal(error)
              return refusal instanceof ModelFailed
                ? new ToolFailure({ code: "E_MODEL_FAILED", message: `The language model failed: ${refusal.message}` })
                : refusal
            })
          ) as unknown as Effect.Effect<AgentTurn, BudgetExceeded | ToolFailure>)
          return {
            summary: turn.text,
            data: { answer: turn.text, rounds: turn.rounds, toolCalls: turn.toolCalls, ...asked?.data },
            links: asked?.data.reports.map((report) => reportLink(config.baseUrl, report))
          }
        })
    })
  )
