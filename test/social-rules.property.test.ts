import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { CustomerId } from "../src/domain/Ids.ts"
import {
  isBotUserAgent,
  mediaOf,
  pieceViolation,
  platformRules,
  publishViolation,
  rewriteLinks,
  signState,
  socialPlatforms,
  verifyState,
  withUtm
} from "../src/domain/Social.ts"
import { charLength } from "../src/domain/Text.ts"
import { retryDelaySeconds } from "../src/domain/Webhooks.ts"
import { stalePageWait } from "../src/features/social/providers/ayrshare.ts"
import { html } from "../src/platform/http/Html.ts"

const prefix = "https://herald.example/r/"
const platform = fc.constantFrom(...socialPlatforms)
const mediaList = fc.array(fc.webUrl(), { maxLength: 3 })

/** Deterministic codes, as the store gives (one per target). */
const coder = () => {
  const codes = new Map<string, string>()
  return (target: string) => {
    if (!codes.has(target)) codes.set(target, `c${codes.size}`)
    return codes.get(target)!
  }
}

const words = fc.array(
  fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.constantFrom(
      "mailto:a@b.co",
      "ftp://files.example/x",
      "tel:+123",
      "javascript:alert(1)",
      "(see",
      "it).",
      "!",
      "\n"
    ),
    fc.string({ maxLength: 12 }).filter((s) => !/https?:/i.test(s))
  ),
  { maxLength: 12 }
).map((parts) => parts.join(" "))

describe("per-platform publishing rules", () => {
  it("a body is refused exactly when it is longer than the platform allows, or media is missing where required", () =>
    fc.assert(
      fc.property(
        platform,
        fc.string({ unit: "grapheme", maxLength: 3200 }),
        fc.option(mediaList, { nil: undefined }),
        (p, body, media) => {
          const rule = platformRules[p]
          const violation = publishViolation(p, body, media)
          const tooLong = charLength(body) > rule.maxLength
          const noMedia = rule.mediaRequired && (media === undefined || media.length === 0)
          assert.strictEqual(violation !== undefined, tooLong || noMedia)
          if (tooLong) assert.strictEqual(violation?.path, "body")
          else if (noMedia) assert.strictEqual(violation?.path, "media")
        }
      )
    ))

  it("a stored piece is judged by the same rule as a request: its metadata's media addresses, nothing else in the list", () =>
    fc.assert(fc.property(
      platform,
      fc.string({ unit: "grapheme", maxLength: 600 }),
      fc.array(fc.oneof(fc.webUrl(), fc.integer(), fc.constant(null), fc.object()), { maxLength: 4 }),
      fc.boolean(),
      (p, body, listed, withMedia) => {
        const metadata = withMedia ? { media: listed } : {}
        const addresses = listed.filter((m): m is string => typeof m === "string")
        assert.deepStrictEqual(mediaOf(metadata), withMedia ? addresses : [])
        assert.deepStrictEqual(
          pieceViolation(p, { body, metadata }),
          publishViolation(p, body, withMedia ? addresses : undefined)
        )
        assert.deepStrictEqual(
          pieceViolation(p, { body: null, metadata }),
          publishViolation(p, "", withMedia ? addresses : [])
        )
      }
    )))

  it("the limits are the contract's, counted in characters (an emoji is one)", () => {
    const limits = Object.fromEntries(socialPlatforms.map((p) => [p, platformRules[p].maxLength]))
    assert.deepStrictEqual(limits, {
      x: 280,
      linkedin: 3000,
      instagram: 2200,
      facebook: 63206,
      tiktok: 2200,
      pinterest: 500
    })
    assert.isUndefined(publishViolation("x", "😀".repeat(280), undefined))
    assert.isDefined(publishViolation("x", "😀".repeat(281), undefined))
    assert.deepStrictEqual(
      socialPlatforms.filter((p) => platformRules[p].mediaRequired),
      ["instagram", "tiktok", "pinterest"]
    )
  })
})

describe("tracked links", () => {
  it("rewriting is idempotent and touches only http(s) links", () =>
    fc.assert(fc.property(words, platform, (body, p) => {
      const code = coder()
      const once = rewriteLinks(body, p, prefix, code)
      assert.strictEqual(rewriteLinks(once, p, prefix, code), once)
      // Every non-http word survives unchanged.
      for (const keep of ["mailto:a@b.co", "ftp://files.example/x", "tel:+123", "javascript:alert(1)"]) {
        if (body.includes(keep)) assert.include(once, keep)
      }
      // No original http(s) link is left outside the tracked prefix.
      const left = [...once.matchAll(/https?:\/\/[^\s<>"'`]+/gi)].map((m) => m[0])
      for (const link of left) assert.isTrue(link.startsWith(prefix), `${link} in ${once}`)
    })))

  it("already tracked links are left alone", () =>
    fc.assert(fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/), platform, (c, p) => {
      const body = `go ${prefix}${c} now`
      assert.strictEqual(rewriteLinks(body, p, prefix, () => "new"), body)
    })))

  it("targets get the three UTM parameters; existing utm_ parameters and other parameters are kept", () =>
    fc.assert(fc.property(
      fc.webUrl({ withQueryParameters: true }),
      platform,
      fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: undefined }),
      (url, p, source) => {
        const given = new URL(url)
        if (source !== undefined) given.searchParams.set("utm_source", source)
        const tagged = new URL(withUtm(given.toString(), p))
        assert.strictEqual(tagged.searchParams.get("utm_source"), source ?? given.searchParams.get("utm_source") ?? p)
        assert.strictEqual(tagged.searchParams.get("utm_medium"), given.searchParams.get("utm_medium") ?? "social")
        assert.strictEqual(tagged.searchParams.get("utm_campaign"), given.searchParams.get("utm_campaign") ?? "herald")
        for (const [name, value] of given.searchParams) assert.include(tagged.searchParams.getAll(name), value)
        assert.strictEqual(tagged.origin + tagged.pathname, given.origin + given.pathname)
        assert.strictEqual(withUtm(tagged.toString(), p), tagged.toString())
      }
    )))

  it("sentence punctuation after a link stays outside it", () => {
    const out = rewriteLinks("Read https://example.com/a. And (https://example.org/b)!", "x", prefix, coder())
    assert.strictEqual(out, `Read ${prefix}c0. And (${prefix}c1)!`)
  })

  it("bots and link previews are told apart from people", () => {
    for (
      const bot of [
        "Twitterbot/1.0",
        "facebookexternalhit/1.1",
        "Slackbot-LinkExpanding 1.0",
        "curl/8.0",
        "Googlebot/2.1",
        "",
        undefined
      ]
    ) {
      assert.isTrue(isBotUserAgent(bot), String(bot))
    }
    for (
      const person of [
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15",
        "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
      ]
    ) {
      assert.isFalse(isBotUserAgent(person), person)
    }
  })
})

describe("connect state", () => {
  it("verifies what was signed until it expires; any change or another secret is refused", () =>
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.uuid().map(CustomerId.make),
        platform,
        fc.integer({ min: 1, max: 10_000 }),
        fc.nat({ max: 200 }),
        (n, c, p, ttl, at) => {
          const now = 1_700_000_000
          const state = signState("secret", { n, c, p, e: now + ttl })
          assert.deepStrictEqual(verifyState("secret", state, now), { n, c, p, e: now + ttl })
          assert.isUndefined(verifyState("secret", state, now + ttl))
          assert.isUndefined(verifyState("other", state, now))
          const i = at % state.length
          const flipped = state.slice(0, i) + (state[i] === "A" ? "B" : "A") + state.slice(i + 1)
          if (flipped !== state) assert.isUndefined(verifyState("secret", flipped, now))
        }
      )
    ))

  it("never throws on junk", () =>
    fc.assert(fc.property(fc.string(), (junk) => {
      assert.isUndefined(verifyState("secret", junk, 0))
    })))
})

describe("retries and pages", () => {
  it("the schedule's length is the number of retries", () =>
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 3600 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 12 }),
        (schedule, attempt) => {
          const delay = retryDelaySeconds(attempt, schedule)
          assert.strictEqual(delay, attempt <= schedule.length ? schedule[attempt - 1] : undefined)
        }
      )
    ))

  it("HTML is escaped by construction", () =>
    fc.assert(fc.property(fc.string(), (text) => {
      const out = html`<p title="${text}">${text}</p>`.value
      const inner = out.slice(out.indexOf(">") + 1, out.lastIndexOf("<"))
      assert.notMatch(inner, /[<>"']/)
      assert.strictEqual(
        inner.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(
          /&#96;/g,
          "`"
        ).replace(/&amp;/g, "&"),
        text
      )
    })))
})

describe("a cached history page is believed only when it can show the earlier try's post", () => {
  const instant = fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 })
  it("believed when taken after the try could have ended; otherwise the wait reaches past the cache's turnover", () =>
    fc.assert(
      fc.property(
        instant,
        fc.integer({ min: -200_000, max: 200_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 300 }),
        (tried, offset, elapsed, dated, cacheSeconds) => {
          const lastUpdated = dated ? new Date(tried + offset).toISOString() : undefined
          const now = tried + elapsed
          const wait = stalePageWait(lastUpdated, new Date(tried), now, cacheSeconds)
          const settled = tried + 20_000
          if (dated && tried + offset >= settled) return assert.isUndefined(wait)
          assert.isDefined(wait)
          assert.isAtLeast(wait!, 1)
          const turnover = dated
            ? Math.max(tried + offset + cacheSeconds * 1000, settled)
            : settled + cacheSeconds * 1000
          assert.isAtLeast(now + wait! * 1000, turnover)
          assert.isBelow(now + (wait! - 1) * 1000, Math.max(turnover, now + 1000))
        }
      )
    ))

  it("no earlier try: nothing to miss", () =>
    fc.assert(
      fc.property(
        fc.option(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), { nil: undefined }),
        instant,
        (lastUpdated, now) => assert.isUndefined(stalePageWait(lastUpdated, undefined, now, 60))
      )
    ))
})
