import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../src/Config.ts"
import type { ContentId, CustomerId } from "../src/domain/Ids.ts"
import { Analytics } from "../src/features/analytics/Analytics.ts"
import { Content } from "../src/features/content/Content.ts"
import { Customers } from "../src/features/customers/Customers.ts"
import { Settings } from "../src/features/settings/Settings.ts"
import { Links } from "../src/features/social/Links.ts"
import { consentProof } from "../src/features/social/providers/sandbox.ts"
import { SocialPublisherLive } from "../src/features/social/Publisher.ts"
import { Social } from "../src/features/social/Social.ts"
import { testServices } from "./support/services.ts"

/** The domain services with the publisher running, as other capabilities (MCP tools, workflows) use them. */
const WithPublisher = SocialPublisherLive.pipe(Layer.provideMerge(testServices))

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const newCustomer = Effect.gen(function*() {
  const customers = yield* Customers
  const created = yield* customers.provision({ email: `svc-${crypto.randomUUID()}@example.com` })
  return created.customer.id
})

/** Connects a platform the way the callback does: a state from a connect link and its consent page's proof, spent once. */
const connect = (customerId: CustomerId, platform: "x" | "linkedin" | "instagram") =>
  Effect.gen(function*() {
    const social = yield* Social
    const { connectLinks } = yield* social.connect(customerId, [platform])
    const state = new URL(connectLinks[platform]).searchParams.get("state")!
    assert.strictEqual(
      yield* social.completeCallback({ state, consent: consentProof(social.stateSecret, state) }),
      `/dashboard?connected=${platform}#social`
    )
  })

const publishedSoon = (customerId: CustomerId, contentId: ContentId) =>
  Effect.gen(function*() {
    const content = yield* Content
    for (let i = 0; i < 200; i++) {
      const piece = yield* content.get(customerId, contentId)
      if (piece.status === "published") return piece
      yield* sleep(50)
    }
    return yield* Effect.die(new Error("not published in time"))
  })

layer(WithPublisher, { timeout: 60_000, excludeTestServices: true })("social services for other capabilities", (it) => {
  it.effect("autonomy level 5: an agent's social piece is approved and published at once when its platform is connected", () =>
    Effect.gen(function*() {
      const config = yield* AppConfig
      const content = yield* Content
      const settings = yield* Settings
      const sql = yield* SqlClient.SqlClient
      const customerId = yield* newCustomer
      yield* settings.updateAutonomy(customerId, { globalDefault: 5 })
      yield* connect(customerId, "x")
      const piece = yield* content.create(customerId, { type: "social", platform: "x", body: "Agent post" }, {
        actor: "agent",
        skill: "publish_to_social"
      })
      assert.strictEqual(piece.status, "approved")
      const published = yield* publishedSoon(customerId, piece.id)
      assert.strictEqual(published.publishedUrl, `${config.baseUrl}/p/${piece.id}`)
      // Not connected: approved, nothing queued (published later through Social.schedule once connected).
      const other = yield* content.create(customerId, { type: "social", platform: "linkedin", body: "Waits" }, {
        actor: "agent"
      })
      assert.strictEqual(other.status, "approved")
      const queued = yield* sql`SELECT 1 FROM publish_jobs WHERE content_id = ${other.id}`.pipe(Effect.orDie)
      assert.strictEqual(queued.length, 0)
      // The platform's rules hold at level 5 too: an Instagram piece without media stays approved, unqueued.
      yield* connect(customerId, "instagram")
      const bare = yield* content.create(customerId, { type: "social", platform: "instagram", body: "No picture" }, {
        actor: "agent"
      })
      assert.strictEqual(bare.status, "approved")
      assert.strictEqual(
        (yield* sql`SELECT 1 FROM publish_jobs WHERE content_id = ${bare.id}`.pipe(Effect.orDie)).length,
        0
      )
      // Level 4 approves without publishing.
      yield* settings.updateAutonomy(customerId, { globalDefault: 4 })
      const four = yield* content.create(customerId, { type: "social", platform: "x", body: "Queued by schedule" }, {
        actor: "agent"
      })
      yield* sleep(300)
      assert.strictEqual((yield* content.get(customerId, four.id)).status, "approved")
      // A workflow hands it to the publisher.
      const social = yield* Social
      const scheduled = yield* social.schedule(customerId, four.id)
      assert.strictEqual(scheduled.status, "approved")
      yield* publishedSoon(customerId, four.id)
      // Scheduling a piece on a platform not connected is refused.
      const refused = yield* Effect.exit(social.schedule(customerId, other.id))
      assert.isTrue(Exit.isFailure(refused))
    }))

  it.effect("autonomy level 5 queues an agent's ad through the same budget: refused past a cap with nothing stored, charged once when it fits", () =>
    Effect.gen(function*() {
      const content = yield* Content
      const settings = yield* Settings
      const sql = yield* SqlClient.SqlClient
      const customerId = yield* newCustomer
      yield* settings.updateAutonomy(customerId, { globalDefault: 5 })
      yield* settings.updateBudget(customerId, { channels: { ads: 20 } })
      yield* connect(customerId, "x")
      const ad = { type: "ad" as const, platform: "x", body: "Agent ad", metadata: { spend: 30 } }
      const refused = yield* Effect.flip(content.create(customerId, ad, { actor: "agent" }))
      assert.strictEqual(refused._tag, "BudgetExceeded")
      assert.strictEqual(refused.error, "Spending 30 would pass the ads channel budget cap of 20 (already spent 0)")
      const stored = yield* sql<{ n: number }>`SELECT
          (SELECT count(*) FROM content WHERE customer_id = ${customerId})
          + (SELECT count(*) FROM publish_jobs WHERE customer_id = ${customerId})
          + (SELECT count(*) FROM spend_ledger WHERE customer_id = ${customerId}) AS n`.pipe(Effect.orDie)
      assert.strictEqual(Number(stored[0]!.n), 0)

      yield* settings.updateBudget(customerId, { channels: { ads: 50 } })
      const piece = yield* content.create(customerId, ad, { actor: "agent" })
      assert.strictEqual(piece.status, "approved")
      yield* publishedSoon(customerId, piece.id)
      const charged = yield* sql<{ contentId: string; amount: string }>`
        SELECT content_id, amount::text AS amount FROM spend_ledger WHERE customer_id = ${customerId}`.pipe(
        Effect.orDie
      )
      assert.deepStrictEqual(charged.map((r) => [r.contentId, Number(r.amount)]), [[piece.id, 30]])
    }))

  it.effect("trackRevenue records revenue.tracked against a piece, a link or a campaign; analytics sums it", () =>
    Effect.gen(function*() {
      const content = yield* Content
      const links = yield* Links
      const analytics = yield* Analytics
      const sql = yield* SqlClient.SqlClient
      const customerId = yield* newCustomer
      yield* connect(customerId, "linkedin")
      const social = yield* Social
      const piece = yield* social.publish(customerId, {
        platform: "linkedin",
        body: "Buy at https://shop.example/item"
      })
      const published = yield* publishedSoon(customerId, piece.id)
      const [link] = yield* sql<{ code: string }>`SELECT code FROM tracked_links WHERE content_id = ${published.id}`
        .pipe(Effect.orDie)

      const byPiece = yield* links.trackRevenue(customerId, { amount: 19.99, currency: "usd", contentId: piece.id })
      assert.strictEqual(byPiece.channel, "linkedin")
      assert.strictEqual(byPiece.currency, "USD")
      const byLink = yield* links.trackRevenue(customerId, { amount: 5, currency: "USD", link: link.code })
      assert.strictEqual(byLink.channel, "linkedin")
      const byCampaign = yield* links.trackRevenue(customerId, { amount: 100, currency: "USD", campaign: "spring" })
      assert.strictEqual(byCampaign.channel, null)
      const missing = yield* Effect.exit(links.trackRevenue(customerId, { amount: 1, currency: "USD", link: "nosuch" }))
      assert.isTrue(Exit.isFailure(missing))
      const email = yield* content.create(customerId, { type: "email", body: "Newsletter" }, { actor: "person" })
      assert.strictEqual(
        (yield* links.trackRevenue(customerId, { amount: 2.5, currency: "EUR", contentId: email.id })).channel,
        "email"
      )

      const report = yield* analytics.report(customerId, "last_7_days")
      assert.strictEqual(report.channels.linkedin.revenue, 24.99)
      assert.strictEqual(report.channels.linkedin.posts, 1)
      assert.strictEqual(report.channels.web.revenue, 100)
      assert.strictEqual(report.channels.email.revenue, 2.5)
      assert.strictEqual(report.totals.revenue, 127.49)
      assert.strictEqual(report.totals.posts, 1)
      const events = yield* sql<
        { type: string }
      >`SELECT type FROM events WHERE customer_id = ${customerId} AND type = 'revenue.tracked'`.pipe(Effect.orDie)
      assert.strictEqual(events.length, 4)
    }))
})
