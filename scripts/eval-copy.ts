/**
 * Copy evaluation: writes 200 pieces (six kinds, six platforms, eight brand
 * profiles) through the configured language model, the Writer every workflow
 * uses, and scores each with the copy lint rules, printing the pass rate per
 * rule. LLM_PROVIDER (house by default, or openai with LLM_BASE_URL, LLM_MODEL,
 * LLM_API_KEY) picks the model, so the same command scores an external one.
 * Budget caps are not consulted: the evaluation is charged to no customer.
 *
 *   npm run eval:copy            # every piece, rates per rule, the first failures
 *   EVAL_OUT=pieces.jsonl npm run eval:copy   # also writes every piece and its findings
 */
import { Effect, Layer } from "effect"
import { writeFileSync } from "node:fs"
import { AppConfig } from "../src/Config.ts"
import { lintCopy, type LintFinding, type LintRule, lintRules } from "../src/domain/CopyLint.ts"
import type { CopyKind } from "../src/domain/Copywriting.ts"
import { CustomerId } from "../src/domain/Ids.ts"
import { type BrandVoice, LanguageModelLive, Writer } from "../src/features/agent/Agent.ts"
import { Budget } from "../src/features/settings/Budget.ts"

const kinds: ReadonlyArray<CopyKind> = ["blog", "social", "email", "ad", "outreach", "report"]
const platforms = ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"]

interface Profile extends BrandVoice {
  readonly topicsToWrite: ReadonlyArray<string>
}

const profiles: ReadonlyArray<Profile> = [
  {
    brandName: "Brewline Coffee Roasters",
    audience: "home coffee brewers, specialty coffee enthusiasts",
    products: ["coffee subscriptions", "single-origin beans"],
    topics: ["cold brew", "pour over"],
    voice: "warm, expert",
    url: "https://brewline.example",
    topicsToWrite: [
      "Cold brew season",
      "The complete guide to dialing in espresso at home",
      "Coffee subscriptions: what's in the box?"
    ]
  },
  {
    brandName: "Crumb Bakery",
    audience: "home baker",
    products: ["Sourdough Starter Kit"],
    topics: ["sourdough", "rye"],
    voice: "playful",
    topicsToWrite: ["Sourdough Starters", "Why rye flour behaves differently!", "Baking with kids"]
  },
  {
    brandName: "Northwind Studio",
    description: "We design onboarding for SaaS products",
    audience: "SaaS founders and product teams",
    products: ["Onboarding Audit"],
    topics: ["onboarding", "activation"],
    topicsToWrite: ["SEO for SaaS landing pages", "Activation metrics that matter.", "Onboarding emails"]
  },
  {
    brandName: "Fjord Outdoor Co.",
    audience: "weekend hikers; trail runners",
    products: ["rain shells", "trail shoes"],
    topics: ["hiking", "trail running"],
    url: "https://fjord.example/shop",
    topicsToWrite: ["Layering for Autumn Hikes", "Trail shoes vs. boots", "Q3 2026 trail report"]
  },
  {
    brandName: "The Kettle House",
    audience: "tea drinkers",
    topics: ["loose leaf tea"],
    topicsToWrite: ["The perfect cup of oolong", "Tea & cake pairings", "Cold-brew tea"]
  },
  {
    brandName: "Élan Skincare",
    audience: "people with sensitive skin",
    products: ["Calm Serum"],
    topics: ["skincare routine", "SPF"],
    voice: "formal",
    topicsToWrite: ["SPF in winter", "A simple evening routine", "What does 'fragrance-free' mean?"]
  },
  {
    brandName: "Orbit Labs",
    description: "AI search visibility for local businesses.",
    audience: "local business owner",
    topics: ["AI search", "GEO"],
    topicsToWrite: ["AI answers and your Google profile", "llms.txt explained", "GEO vs SEO"]
  },
  {
    brandName: "Maple & Rye",
    audience: "couples planning a wedding",
    products: ["tasting menus"],
    topics: ["wedding catering"],
    topicsToWrite: ["Seasonal Wedding Menus", "How many courses?", "Late-night snacks guests love"]
  }
]

/** The model is charged to no customer here: the budget lets every call through. */
const OpenBudget = Layer.succeed(
  Budget,
  Budget.of({ check: () => Effect.void, charge: () => Effect.void } as unknown as Budget["Service"])
)

interface Scored {
  readonly i: number
  readonly brand: string
  readonly kind: CopyKind
  readonly platform: string | undefined
  readonly topic: string
  readonly title: string
  readonly body: string
  readonly findings: ReadonlyArray<LintFinding>
}

const program = Effect.gen(function*() {
  const config = yield* AppConfig
  const writer = yield* Writer
  const scored: Array<Scored> = []
  for (let i = 0; i < 200; i++) {
    const kind = kinds[i % kinds.length]!
    const profile = profiles[i % profiles.length]!
    const platform = kind === "social" || kind === "ad"
      ? platforms[Math.floor(i / kinds.length) % platforms.length]
      : undefined
    const topic = profile.topicsToWrite[Math.floor(i / profiles.length) % profile.topicsToWrite.length]!
    const { topicsToWrite: _, ...brand } = profile
    const written = yield* writer.write(CustomerId.make("eval"), brand, { kind, topic, platform, angle: i })
    const findings = lintCopy({ kind, platform, title: written.title, body: written.body }, { ...brand, topic })
    scored.push({
      i,
      brand: brand.brandName,
      kind,
      platform,
      topic,
      title: written.title,
      body: written.body,
      findings
    })
  }
  const model = config.llmProvider === "openai"
    ? `openai-compatible ${config.llmModel} at ${config.llmBaseUrl}`
    : "house"
  console.log(`Copy evaluation: ${scored.length} pieces, model ${model}`)
  const width = Math.max(...lintRules.map((r) => r.length))
  for (const rule of lintRules) {
    const passed = scored.filter((s) => !s.findings.some((f) => f.rule === rule)).length
    console.log(
      `  ${rule.padEnd(width)}  ${(100 * passed / scored.length).toFixed(1).padStart(5)}%  (${passed}/${scored.length})`
    )
  }
  const clean = scored.filter((s) => s.findings.length === 0).length
  console.log(
    `  ${"all rules".padEnd(width)}  ${
      (100 * clean / scored.length).toFixed(1).padStart(5)
    }%  (${clean}/${scored.length})`
  )
  const failing = scored.filter((s) => s.findings.length > 0).slice(0, 5)
  for (const s of failing) {
    console.log(
      `\n#${s.i} ${s.kind}${s.platform === undefined ? "" : `/${s.platform}`} for ${s.brand} on "${s.topic}":`
    )
    for (const f of s.findings.slice(0, 4)) console.log(`  ${f.rule as LintRule}: ${f.detail}`)
  }
  const out = process.env["EVAL_OUT"]
  if (out !== undefined && out.length > 0) {
    writeFileSync(out, scored.map((s) => JSON.stringify(s)).join("\n") + "\n")
    console.log(`\nPieces written to ${out}`)
  }
  if (clean < scored.length) process.exitCode = 1
})

const WriterLive = Writer.layer.pipe(
  Layer.provide(LanguageModelLive),
  Layer.provide(OpenBudget),
  Layer.provideMerge(AppConfig.layer)
)

Effect.runPromise(program.pipe(Effect.provide(WriterLive))).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
