import { Effect, Option, Schema } from "effect"
import { type ContentType, platformBodyLimits } from "../../../domain/Content.ts"
import { brandFrom, type CopyKind } from "../../../domain/Copywriting.ts"
import { isSocialPlatform, platformRules } from "../../../domain/Social.ts"
import { type BrandVoice, Writer, type WriteRequest } from "../../agent/Agent.ts"
import { Content } from "../../content/Content.ts"
import { Customers } from "../../customers/Customers.ts"
import { Onboarding } from "../../onboarding/Onboarding.ts"
import { StepHooks } from "../StepHooks.ts"
import { once, recorded } from "./Once.ts"
import {
  OverBudget,
  type RunContext,
  skipped,
  type StepDefinition,
  StepFailed,
  type StepOutcome,
  succeeded,
  texts
} from "./Step.ts"

/** What a written piece's record says: the piece as it was created. */
export const PieceRecord = Schema.Struct({
  contentId: Schema.String,
  status: Schema.String,
  type: Schema.String,
  platform: Schema.NullOr(Schema.String)
})
export type PieceRecord = typeof PieceRecord.Type

/** A model's answer for a piece, kept until the piece is stored. */
const Answer = Schema.Struct({ title: Schema.String, body: Schema.String })

/** One piece a step writes, under its exactly-once key (also the piece's `metadata.step`). */
export interface PieceSpec {
  readonly key: string
  readonly type: ContentType
  readonly kind: CopyKind
  readonly platform?: string | undefined
  readonly topic: string
  readonly angle: number
  readonly facts?: ReadonlyArray<string> | undefined
  /** Images the post carries (Instagram, TikTok and Pinterest need one). */
  readonly media?: ReadonlyArray<string> | undefined
}

/** The run's own options first, then the account's name, then the confirmed brand profile. */
export const brandOf = (ctx: RunContext) =>
  Effect.gen(function*() {
    const customer = yield* (yield* Customers).get(ctx.customerId).pipe(Effect.orDie)
    const profile = yield* (yield* Onboarding).profile(ctx.customerId)
    return brandFrom(
      [ctx.options, { brandName: customer.brandName }, profile],
      customer.email.split("@")[1] ?? "our company"
    ) satisfies BrandVoice
  })

/**
 * The model's answer under `key`, asked once: it is recorded the moment it
 * arrives, before what is written from it is stored, so a step resumed after
 * a crash in between reuses it rather than paying for the call again.
 */
export const answerOnce = (ctx: RunContext, brand: BrandVoice, key: string, request: WriteRequest) =>
  Effect.gen(function*() {
    const answerKey = `answer:${key}`
    const answered = yield* recorded(ctx.runId, answerKey, Answer)
    if (Option.isSome(answered)) return answered.value
    const writer = yield* Writer
    return yield* once(
      ctx.runId,
      answerKey,
      Answer,
      writer.write(ctx.customerId, brand, { ...request, keywords: texts(ctx.options.keywords) }).pipe(
        Effect.mapError((error) =>
          error._tag === "BudgetExceeded"
            ? new OverBudget({ message: error.error })
            : new StepFailed({ message: error.message })
        )
      )
    ).pipe(Effect.tap(() => Effect.flatMap(StepHooks, (hooks) => hooks.reached(answerKey))))
  })

/**
 * Writes one piece through the model and stores it through the Content
 * service, once per key: the piece and its record commit together, so a step
 * re-run after a crash finds the record and writes nothing.
 */
const writePiece = (ctx: RunContext, brand: BrandVoice, piece: PieceSpec) =>
  Effect.gen(function*() {
    const done = yield* recorded(ctx.runId, piece.key, PieceRecord)
    if (Option.isSome(done)) return done.value
    const content = yield* Content
    const written = yield* answerOnce(ctx, brand, piece.key, {
      kind: piece.kind,
      platform: piece.platform,
      topic: piece.topic,
      angle: piece.angle,
      facts: piece.facts
    })
    return yield* once(
      ctx.runId,
      piece.key,
      PieceRecord,
      Effect.map(
        content.create(ctx.customerId, {
          type: piece.type,
          ...(piece.platform === undefined ? {} : { platform: piece.platform }),
          title: written.title,
          body: written.body,
          metadata: {
            workflow: ctx.workflowId,
            step: piece.key,
            topic: piece.topic,
            ...(piece.media === undefined ? {} : { media: [...piece.media] })
          }
        }, { actor: "agent", skill: ctx.workflowId, agentId: "herald", runId: ctx.runId }),
        (created): PieceRecord => ({
          contentId: created.id,
          status: created.status,
          type: created.type,
          platform: created.platform
        })
      ).pipe(Effect.mapError((error) => new OverBudget({ message: error.error }))),
      { atomic: true }
    )
  })

/** Writes a step's pieces for one brand (read once per step unless the step already has it). */
export const writePieces = (ctx: RunContext, pieces: ReadonlyArray<PieceSpec>, known?: BrandVoice) =>
  Effect.gen(function*() {
    const brand = known ?? (yield* brandOf(ctx))
    const results: Array<PieceRecord> = []
    for (const piece of pieces) results.push(yield* writePiece(ctx, brand, piece))
    return succeeded({ pieces: results }) satisfies StepOutcome
  })

const defaultTopics = (brand: string) => [
  `what ${brand} does for its customers`,
  "lessons from our customers",
  "common mistakes and how to avoid them",
  "a behind-the-scenes look at how we work",
  "quick wins for this week"
]

export const topicsFor = (ctx: RunContext, brand: string) => {
  const configured = texts(ctx.options.topics)
  return configured.length > 0 ? configured : defaultTopics(brand)
}

/** The configured platforms the writer knows, else LinkedIn and X. */
export const socialPlatforms = (ctx: RunContext): ReadonlyArray<string> => {
  const configured = texts(ctx.options.platforms).filter((p) => platformBodyLimits[p] !== undefined)
  return configured.length > 0 ? configured : ["linkedin", "x"]
}

/** A whole number within bounds; anything else is `fallback`. */
export const bounded = (value: number | undefined, min: number, max: number, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : fallback

/** The brand's image a post can carry: the confirmed profile's first image, else its logo, else the site's og:image (http(s) only). */
const brandImage = (ctx: RunContext) =>
  Effect.gen(function*() {
    const profile = yield* (yield* Onboarding).profile(ctx.customerId)
    const candidates = [
      ...(Array.isArray(profile?.["images"]) ? profile["images"] : []),
      profile?.["logoUrl"],
      profile?.["ogImage"]
    ]
    return candidates.find((value): value is string => {
      if (typeof value !== "string") return false
      const url = URL.parse(value)
      return url !== null && (url.protocol === "http:" || url.protocol === "https:")
    })
  })

/**
 * Social posts, `count` of them, over the configured platforms and topics in
 * turn. Platforms whose posts need media (Instagram, TikTok, Pinterest) get
 * the brand's image; without one they are left out, and the step says so.
 */
export const writeSocialPosts = (count: (ctx: RunContext) => number): StepDefinition => ({
  name: "write-social-posts",
  run: (ctx) =>
    Effect.gen(function*() {
      const brand = yield* brandOf(ctx)
      const topics = topicsFor(ctx, brand.brandName)
      const image = yield* brandImage(ctx)
      const configured = socialPlatforms(ctx)
      const needsMedia = (p: string) => isSocialPlatform(p) && platformRules[p].mediaRequired
      const platforms = image === undefined ? configured.filter((p) => !needsMedia(p)) : configured
      const leftOut = configured.filter((p) => !platforms.includes(p))
      const why = leftOut.length === 0 ? {} : {
        leftOut,
        leftOutReason: `${
          leftOut.join(", ")
        } left out: their posts need media and the brand profile has no image, logo or og:image to attach`
      }
      if (platforms.length === 0) return yield* skipped(why.leftOutReason ?? "no platform to write for", why)
      const written = yield* writePieces(
        ctx,
        Array.from({ length: count(ctx) }, (_, i) => {
          const platform = platforms[i % platforms.length]!
          return {
            key: `social-${i}`,
            type: "social",
            kind: "social",
            platform,
            topic: topics[i % topics.length]!,
            angle: i,
            ...(needsMedia(platform) && image !== undefined ? { media: [image] } : {})
          } satisfies PieceSpec
        }),
        brand
      )
      return succeeded({ ...written.detail, ...why })
    })
})

export const writeBlogPost: StepDefinition = {
  name: "write-blog-post",
  run: (ctx) =>
    Effect.gen(function*() {
      const brand = yield* brandOf(ctx)
      const topic = topicsFor(ctx, brand.brandName)[0]!
      return yield* writePieces(ctx, [{ key: "blog-0", type: "blog", kind: "blog", topic, angle: 0 }], brand)
    })
}

export const writeLeadMagnet: StepDefinition = {
  name: "write-lead-magnet",
  run: (ctx) =>
    Effect.gen(function*() {
      const brand = yield* brandOf(ctx)
      const topic = topicsFor(ctx, brand.brandName)[0]!
      return yield* writePieces(ctx, [
        { key: "guide-0", type: "blog", kind: "blog", topic: `the complete guide to ${topic}`, angle: 0 },
        { key: "email-0", type: "email", kind: "email", topic: `our free guide to ${topic}`, angle: 1 }
      ], brand)
    })
}
