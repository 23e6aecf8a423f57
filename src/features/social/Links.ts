import { Array as Arr, Cause, Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes, randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import { NotFound } from "../../domain/Errors.ts"
import type { ContentId, CustomerId } from "../../domain/Ids.ts"
import { isBotUserAgent, linksToTrack, rewriteLinks } from "../../domain/Social.ts"
import { Events } from "../../platform/Events.ts"
import { Content } from "../content/Content.ts"
import { Settings } from "../settings/Settings.ts"

export interface RevenueInput {
  readonly amount: number
  /** ISO 4217 code, e.g. `USD`. */
  readonly currency: string
  readonly contentId?: ContentId | undefined
  /** A tracked link: its code or its full `{base_url}/r/{code}` address. */
  readonly link?: string | undefined
  readonly campaign?: string | undefined
}

export interface RevenueRecord {
  readonly id: string
  readonly amount: number
  readonly currency: string
  readonly contentId: ContentId | null
  readonly link: string | null
  readonly campaign: string | null
  /** The analytics channel it counts under (the piece's or link's platform, `web`, `email`), or null. */
  readonly channel: string | null
  readonly createdAt: string
}

/** A fresh link code: 9 random bytes, 12 url-safe characters. */
const newCode = () => randomBytes(9).toString("base64url")

/**
 * Tracked links and revenue. `trackBody` rewrites a post's links at publish
 * (idempotent: one code per piece and target); `follow` answers `/r/{code}`
 * and counts the click; `trackRevenue` records an amount against a piece,
 * link or campaign (the MCP `track_revenue` tool calls it).
 */
/** A link_clicks row: the clicks on one link, by people or by bots, since the last flush. */
/** A post whose links `trackBodies` rewrites. */
export interface TrackedPost {
  readonly customerId: CustomerId
  readonly contentId: ContentId
  readonly platform: string
  readonly body: string
}

type ClickRow = { code: string; customer_id: string; bot: boolean; clicks: number; clicked_at: Date }

export class Links extends Context.Service<Links, {
  readonly trackBody: (
    customerId: CustomerId,
    contentId: ContentId,
    platform: string,
    body: string
  ) => Effect.Effect<string>
  /** `trackBody` for a batch of posts, in a fixed number of statements. */
  readonly trackBodies: (posts: ReadonlyArray<TrackedPost>) => Effect.Effect<ReadonlyArray<string>>
  readonly follow: (code: string, userAgent: string | undefined) => Effect.Effect<Option.Option<string>>
  /** `follow` answered from memory alone: the target of a code seen before (its click counted), else undefined. */
  readonly followKnown: (code: string, userAgent: string | undefined) => string | undefined
  /** Writes the buffered clicks now (analytics reads them after at most `CLICK_FLUSH_MS`). */
  readonly flushClicks: Effect.Effect<void>
  readonly trackRevenue: (customerId: CustomerId, input: RevenueInput) => Effect.Effect<RevenueRecord, NotFound>
}>()("herald/features/social/Links") {
  static readonly layer = Layer.effect(
    Links,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const config = yield* AppConfig
      const settings = yield* Settings
      const events = yield* Events
      const content = yield* Content
      const prefix = `${config.baseUrl}/r/`

      /**
       * Rewrites the links of several posts with one settings read per customer
       * and one statement for all their codes (one code per piece and target,
       * kept across tries). Answers the bodies in the order given.
       */
      const trackBodies = Effect.fnUntraced(function*(posts: ReadonlyArray<TrackedPost>) {
        const tracking = new Map<string, boolean>()
        const wanted = new Map<string, { readonly post: TrackedPost; readonly target: string }>()
        /** Whether each post has links to rewrite. */
        const rewritten: Array<boolean> = []
        for (const post of posts) {
          if (!/https?:\/\//i.test(post.body)) {
            rewritten.push(false)
            continue
          }
          if (!tracking.has(post.customerId)) {
            tracking.set(post.customerId, (yield* settings.get(post.customerId)).tracking.links)
          }
          const targets = tracking.get(post.customerId) === true ? linksToTrack(post.body, post.platform, prefix) : []
          for (const target of targets) {
            wanted.set(`${post.contentId} ${target}`, { post, target })
          }
          rewritten.push(targets.length > 0)
        }
        if (wanted.size === 0) return posts.map((post) => post.body)
        const rows = [...wanted.values()]
        const codes = yield* sql<{ contentId: ContentId; target: string; code: string }>`
        INSERT INTO tracked_links (code, customer_id, content_id, platform, target)
        SELECT * FROM unnest(${rows.map(() => newCode())}::text[], ${rows.map((r) => r.post.customerId)}::uuid[],
          ${rows.map((r) => r.post.contentId)}::text[], ${rows.map((r) => r.post.platform)}::text[],
          ${rows.map((r) => r.target)}::text[])
        ON CONFLICT (content_id, target) DO UPDATE SET target = EXCLUDED.target
        RETURNING content_id, target, code`.pipe(Effect.orDie)
        const codeOf = new Map(codes.map((row) => [`${row.contentId} ${row.target}`, row.code]))
        return posts.map((post, i) =>
          !rewritten[i]
            ? post.body
            : rewriteLinks(post.body, post.platform, prefix, (target) => codeOf.get(`${post.contentId} ${target}`)!)
        )
      })

      const trackBody = (customerId: CustomerId, contentId: ContentId, platform: string, body: string) =>
        Effect.map(trackBodies([{ customerId, contentId, platform, body }]), (bodies) => bodies[0]!).pipe(
          Effect.withSpan("Links.trackBody")
        )

      /**
       * The redirect path. A code's target never changes, so known codes are
       * answered from memory (bounded); clicks are buffered and written in one
       * insert every `clickFlushMs` as one row per link and bot flag with its
       * count, so a click costs no statement (nor row) of its own. A crash
       * loses at most the clicks of the last interval.
       */
      const known = new Map<string, { readonly target: string; readonly customerId: CustomerId }>()
      const knownLimit = 50_000
      /** Clicks since the last flush, one entry per link and bot flag, dated by its first click. */
      let pending = new Map<string, ClickRow>()
      const clickKey = (code: string, bot: boolean) => `${bot ? "bot" : "human"} ${code}`

      // 5 parameters a row: 5,000 rows stay well under PostgreSQL's 32,767 bind parameters.
      const flush: Effect.Effect<void> = Effect.suspend(() => {
        if (pending.size === 0) return Effect.void
        const all = [...pending.values()]
        const batch: ReadonlyArray<ClickRow> = all.slice(0, 5_000)
        pending = new Map(all.slice(batch.length).map((row) => [clickKey(row.code, row.bot), row]))
        if (!Arr.isReadonlyArrayNonEmpty(batch)) return Effect.void
        return sql`INSERT INTO link_clicks ${sql.insert(batch)}`.pipe(
          Effect.andThen(pending.size > 0 ? flush : Effect.void),
          Effect.asVoid,
          Effect.catchCause((cause) =>
            Effect.logWarning("click flush failed; clicks kept for the next flush", { cause: Cause.pretty(cause) })
              .pipe(
                Effect.andThen(Effect.sync(() => {
                  // Counts merge back; at most 100,000 distinct links are kept through a long outage.
                  for (const row of batch) {
                    const key = clickKey(row.code, row.bot)
                    const newer = pending.get(key)
                    if (newer !== undefined) {
                      newer.clicks += row.clicks
                      newer.clicked_at = row.clicked_at
                    } else if (pending.size < 100_000) pending.set(key, row)
                  }
                }))
              )
          )
        )
      })
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(`${config.clickFlushMs} millis`), flush)))
      yield* Effect.addFinalizer(() => flush)

      // Few distinct user agents: their verdicts are kept (bounded) rather than matched on every click.
      const verdicts = new Map<string, boolean>()
      const isBot = (userAgent: string | undefined) => {
        if (userAgent === undefined) return true
        let verdict = verdicts.get(userAgent)
        if (verdict === undefined) {
          verdict = isBotUserAgent(userAgent)
          if (verdicts.size >= 1_000) verdicts.clear()
          verdicts.set(userAgent, verdict)
        }
        return verdict
      }

      const count = (code: string, customerId: CustomerId, userAgent: string | undefined) => {
        const bot = isBot(userAgent)
        const key = clickKey(code, bot)
        const row = pending.get(key)
        if (row !== undefined) row.clicks += 1
        else pending.set(key, { code, customer_id: customerId, bot, clicks: 1, clicked_at: new Date() })
      }

      const followKnown = (code: string, userAgent: string | undefined): string | undefined => {
        const hit = known.get(code)
        if (hit === undefined) return undefined
        count(code, hit.customerId, userAgent)
        return hit.target
      }

      const follow = (code: string, userAgent: string | undefined): Effect.Effect<Option.Option<string>> => {
        const target = followKnown(code, userAgent)
        if (target !== undefined) return Effect.succeed(Option.some(target))
        if (code.length > 64) return Effect.succeed(Option.none())
        return sql<{ target: string; customerId: CustomerId }>`
        SELECT target, customer_id FROM tracked_links WHERE code = ${code}`.pipe(
          Effect.map((rows) => {
            const row = rows[0]
            if (row === undefined) return Option.none<string>()
            if (known.size >= knownLimit) known.clear()
            known.set(code, { target: row.target, customerId: row.customerId })
            count(code, row.customerId, userAgent)
            return Option.some(row.target)
          }),
          Effect.orDie
        )
      }

      const trackRevenue = Effect.fn("Links.trackRevenue")(function*(customerId: CustomerId, input: RevenueInput) {
        let channel: string | null = null
        let linkCode: string | null = null
        if (input.link !== undefined) {
          linkCode = input.link.startsWith(prefix) ? input.link.slice(prefix.length).split(/[?#]/)[0] : input.link
          const rows = yield* sql<{ platform: string | null; contentId: ContentId | null }>`
          SELECT platform, content_id FROM tracked_links WHERE customer_id = ${customerId} AND code = ${linkCode}`.pipe(
            Effect.orDie
          )
          if (rows.length === 0) return yield* new NotFound({ error: "Tracked link not found" })
          channel = rows[0].platform ?? "web"
        }
        if (input.contentId !== undefined) {
          const piece = yield* content.get(customerId, input.contentId)
          channel ??= piece.type === "email" ? "email" : piece.platform ?? "web"
        }
        const id = `rev_${randomUUID().replaceAll("-", "")}`
        const currency = input.currency.toUpperCase()
        return yield* Effect.gen(function*() {
          const [row] = yield* sql<{ createdAt: Date }>`
          INSERT INTO revenue (id, customer_id, amount, currency, content_id, link_code, campaign, channel)
          VALUES (${id}, ${customerId}, ${input.amount}, ${currency}, ${input.contentId ?? null}, ${linkCode},
            ${input.campaign ?? null}, ${channel})
          RETURNING created_at`
          const record: RevenueRecord = {
            id,
            amount: input.amount,
            currency,
            contentId: input.contentId ?? null,
            link: linkCode,
            campaign: input.campaign ?? null,
            channel,
            createdAt: new Date(row.createdAt).toISOString()
          }
          yield* events.record(customerId, "revenue.tracked", { ...record })
          return record
        }).pipe(sql.withTransaction, Effect.orDie)
      })

      return Links.of({ trackBody, trackBodies, follow, followKnown, trackRevenue, flushClicks: flush })
    })
  )
}
