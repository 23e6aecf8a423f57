import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { CheckoutRequest, PaymentEvent } from "../src/domain/Billing.ts"
import { ChatRequest } from "../src/domain/Chat.ts"
import { Body, Metadata, Platform, Review, Title } from "../src/domain/Content.ts"
import { cronProblem, isTimeZone } from "../src/domain/Cron.ts"
import { Email, ProvisionRequest, TeamInvite } from "../src/domain/Identity.ts"
import { AutoExtractRequest } from "../src/domain/Onboarding.ts"
import { type ChecklistItem, gradeOf, ScanRequest, scoreChecklist, weightedScore } from "../src/domain/Scan.ts"
import { AutonomyUpdate, BudgetUpdate, mergeAutonomy, mergeBudget, TrackingUpdate } from "../src/domain/Settings.ts"
import { ConnectRequest } from "../src/domain/Social.ts"
import { WebhookCreate } from "../src/domain/Webhooks.ts"
import { describeIssues } from "../src/platform/http/ValidationMessages.ts"

/** What a 400 would list for `value`: `path: message` for every offending field. */
const problems = (schema: Schema.Top, value: unknown): Array<string> => {
  const result = Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(value, {
    onExcessProperty: "error",
    errors: "all"
  })
  if (Result.isSuccess(result)) return []
  const failure = result.failure as { readonly issue?: unknown }
  return describeIssues((failure.issue ?? failure) as never).map((d) => `${d.path.map(String).join(".")}: ${d.message}`)
}

describe("e-mail addresses (the HTML standard's, with a dot in the domain)", () => {
  const label63 = "a".repeat(63)
  it("accepts", () => {
    for (
      const ok of [
        "a@b.co",
        "A.B@C.CO",
        "a.b!#$%&'*+/=?^_`{|}~-c@d.co",
        "first.last+tag@sub.example.com",
        "x@a-b.c-d.e",
        "x@1.2",
        `x@${label63}.co`,
        `x@b.${label63}`,
        "x@ab.cd.ef.gh"
      ]
    ) assert.deepStrictEqual(problems(Email, ok), [], ok)
  })

  it("refuses, saying so", () => {
    for (
      const bad of [
        "a@b",
        "@b.co",
        "a@.co",
        "a@b.",
        "a@b..co",
        "a@b.co.",
        "a b@c.co",
        "a@b c.co",
        "a@-b.co",
        "a@b-.co",
        "a@b.-co",
        "a@b.co-",
        "a@b_c.co",
        "a@@b.co",
        "ab.co",
        " a@b.co",
        "a@b.co ",
        "a@b.co\n",
        "\na@b.co",
        "a(b)@c.co",
        "a@b.c_o",
        `x@${label63}a.co`,
        `x@b.${label63}a`,
        "a@b.co@d.co"
      ]
    ) assert.deepStrictEqual(problems(Email, bad), [": must be an email address"], JSON.stringify(bad))
    assert.deepStrictEqual(problems(Email, `${"a".repeat(249)}@b.co`), [])
    assert.deepStrictEqual(problems(Email, `${"a".repeat(250)}@b.co`), [": must be at most 254 characters"])
  })

  it("in every request that takes one", () => {
    assert.deepStrictEqual(problems(CheckoutRequest, { email: "a@b" }), ["email: must be an email address"])
    assert.deepStrictEqual(problems(TeamInvite, { email: "a@b.co", role: "owner" }), [
      "role: must be one of: admin, editor, viewer"
    ])
    assert.deepStrictEqual(problems(ProvisionRequest, { email: "a@b.co", brandName: "", status: "gone" }), [
      "brandName: must not be empty",
      "status: must be one of: onboarding, active, suspended, cancelled"
    ])
  })
})

describe("content inputs", () => {
  it("platform names: 1 to 40 lowercase letters, digits, '_', '.' or '-', starting with a letter or digit", () => {
    const message = ": must be 1 to 40 lowercase letters, digits, '_', '.' or '-'"
    for (const ok of ["x", "7", "a.b_c-d", "a" + "b".repeat(39), "0-"]) {
      assert.deepStrictEqual(problems(Platform, ok), [], ok)
    }
    for (const bad of ["", "_a", ".a", "-a", "A", "aB", "a b", "a" + "b".repeat(40), "a\n", "ä", "a/b"]) {
      assert.deepStrictEqual(problems(Platform, bad), [message], JSON.stringify(bad))
    }
  })

  it("title, body, review note and metadata bounds", () => {
    assert.deepStrictEqual(problems(Title, "t".repeat(301)), [": must be at most 300 characters"])
    assert.deepStrictEqual(problems(Title, ""), [": must not be empty"])
    assert.deepStrictEqual(problems(Body, "b".repeat(100_000)), [])
    assert.deepStrictEqual(problems(Body, "b".repeat(100_001)), [": must be at most 100000 characters"])
    assert.deepStrictEqual(problems(Review, { action: "approve", note: "n".repeat(1001) }), [
      "note: must be at most 1000 characters"
    ])
    assert.deepStrictEqual(problems(Review, { action: "publish" }), ["action: must be one of: approve, reject"])
    assert.deepStrictEqual(problems(Review, { action: "reject", note: "" }), [])
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
    assert.deepStrictEqual(problems(Metadata, keys(51)), [": must have at most 50 keys"])
    assert.deepStrictEqual(problems(Metadata, { ["k".repeat(41)]: 1 }), [": keys must be at most 40 characters"])
    assert.deepStrictEqual(problems(Metadata, { ["😀".repeat(40)]: 1 }), [])
  })

  it("chat requests: message 1 to 10000 characters, thread id at most 200", () => {
    assert.deepStrictEqual(problems(ChatRequest, { message: "m".repeat(10_000), threadId: "t".repeat(200) }), [])
    assert.deepStrictEqual(problems(ChatRequest, { message: "", threadId: "t".repeat(201) }), [
      "message: must not be empty",
      "threadId: must be at most 200 characters"
    ])
    assert.deepStrictEqual(problems(ChatRequest, { message: "m".repeat(10_001) }), [
      "message: must be at most 10000 characters"
    ])
    assert.deepStrictEqual(problems(ChatRequest, { message: "a\u0000" }), [
      "message: must not contain NUL characters or unpaired surrogates"
    ])
  })

  it("URLs to scan or read: absolute http(s), at most 2048 characters", () => {
    for (const schema of [ScanRequest, AutoExtractRequest]) {
      assert.deepStrictEqual(problems(schema, { url: "https://example.com/" }), [])
      assert.deepStrictEqual(problems(schema, { url: "mailto:a@b.co" }), ["url: must be an absolute http or https URL"])
      assert.deepStrictEqual(problems(schema, { url: "https://example.com/", extra: 1 }), [
        "extra: is not an allowed property"
      ])
    }
  })

  it("webhook subscriptions: 1 to 20 kinds", () => {
    assert.deepStrictEqual(
      problems(WebhookCreate, { url: "https://h.example/in", events: Array(20).fill("content.created") }),
      []
    )
    assert.deepStrictEqual(problems(WebhookCreate, { url: "https://h.example/in", events: [] }), [
      "events: must have at least 1 item"
    ])
    assert.deepStrictEqual(
      problems(WebhookCreate, { url: "https://h.example/in", events: Array(21).fill("team.invited") }),
      ["events: must have at most 20 items"]
    )
  })

  it("connect requests name at most the six platforms", () => {
    assert.deepStrictEqual(
      problems(ConnectRequest, { platforms: ["x", "linkedin", "instagram", "facebook", "tiktok", "pinterest"] }),
      []
    )
    assert.deepStrictEqual(problems(ConnectRequest, { platforms: Array(7).fill("x") }), [
      "platforms: must have at most 6 items"
    ])
    assert.deepStrictEqual(problems(ConnectRequest, { platforms: ["myspace"] }), [
      "platforms.0: must be one of: x, linkedin, instagram, facebook, tiktok, pinterest"
    ])
  })

  it("payment events: ids of 1 to 255 characters, a sane `created`", () => {
    const event = { id: "evt_1", type: "invoice.paid", created: 1_700_000_000, data: { object: {} } }
    assert.deepStrictEqual(problems(PaymentEvent, event), [])
    assert.deepStrictEqual(problems(PaymentEvent, { ...event, id: "e".repeat(255), created: 100_000_000_000 }), [])
    assert.deepStrictEqual(
      problems(PaymentEvent, { ...event, id: "", type: "t".repeat(256), created: 100_000_000_001 }),
      [
        "id: must not be empty",
        "type: must be at most 255 characters",
        "created: must be between 0 and 100000000000"
      ]
    )
    assert.deepStrictEqual(problems(PaymentEvent, { ...event, created: -1 }), [
      "created: must be between 0 and 100000000000"
    ])
    assert.deepStrictEqual(problems(PaymentEvent, { ...event, data: { object: { a: "\u0000" } } }), [
      "data.object: must not contain NUL characters or unpaired surrogates"
    ])
  })
})

describe("settings inputs and merges", () => {
  it("levels are integers from 1 to 5; amounts finite and at least 0; unknown keys refused", () => {
    assert.deepStrictEqual(problems(AutonomyUpdate, { globalDefault: 2.5 }), ["globalDefault: must be an integer"])
    assert.deepStrictEqual(problems(AutonomyUpdate, { globalDefault: 0 }), ["globalDefault: must be between 1 and 5"])
    assert.deepStrictEqual(problems(AutonomyUpdate, { globalDefault: 6 }), ["globalDefault: must be between 1 and 5"])
    assert.deepStrictEqual(
      problems(AutonomyUpdate, {
        globalDefault: 5,
        categories: { blog: 1, ad: null },
        skills: { ask_cmo: 5, "lead-magnet": null }
      }),
      []
    )
    assert.deepStrictEqual(problems(AutonomyUpdate, { skills: { poems: 1 } }), [
      "skills.poems: is not an allowed property"
    ])
    assert.deepStrictEqual(problems(BudgetUpdate, { daily: -1 }), ["daily: must be at least 0"])
    assert.deepStrictEqual(problems(BudgetUpdate, { weekly: Number.POSITIVE_INFINITY }), [
      "weekly: must be a finite number"
    ])
    assert.deepStrictEqual(problems(BudgetUpdate, { monthly: 0, channels: { model: 0.5, ads: null } }), [])
    assert.deepStrictEqual(problems(TrackingUpdate, { links: false }), [])
    assert.deepStrictEqual(problems(TrackingUpdate, { links: "no" }), ["links: must be a boolean"])
  })

  it("a missing key keeps the current value; null removes it", () => {
    const autonomy = { globalDefault: 3, categories: { blog: 4 }, skills: { ask_cmo: 1 } }
    assert.deepStrictEqual(mergeAutonomy(autonomy, {}), autonomy)
    assert.deepStrictEqual(mergeAutonomy(autonomy, { categories: { blog: undefined, ad: 2 } } as never), {
      globalDefault: 3,
      categories: { blog: 4, ad: 2 },
      skills: { ask_cmo: 1 }
    })
    const budget = { daily: 1, weekly: 2, monthly: 3, channels: { x: 4 } }
    assert.deepStrictEqual(mergeBudget(budget, {}), budget)
    assert.deepStrictEqual(mergeBudget(budget, { weekly: null, monthly: 9 }), {
      daily: 1,
      weekly: null,
      monthly: 9,
      channels: { x: 4 }
    })
    assert.deepStrictEqual(mergeBudget(budget, { channels: { x: undefined, ads: 1 } } as never), {
      daily: 1,
      weekly: 2,
      monthly: 3,
      channels: { x: 4, ads: 1 }
    })
  })
})

describe("cron and zones", () => {
  it("say why an expression is refused", () => {
    const fields = "must be a 5-field cron expression (minute hour day month weekday)"
    for (const bad of ["", "   ", "* * * *", "* * * * * *"]) {
      assert.strictEqual(cronProblem(bad), fields, JSON.stringify(bad))
    }
    assert.isUndefined(cronProblem(" 0 9 * * 1-5 "))
    assert.strictEqual(cronProblem("0 0 30 2 *"), "never fires")
    const invalid = cronProblem("61 * * * *")
    assert.match(invalid ?? "", /^is not a valid cron expression \(.+\)$/)
    assert.notMatch(invalid ?? "", /CronPattern:/)
  })

  it("time zones are IANA names of at most 64 characters", () => {
    for (const zone of ["UTC", "Europe/Berlin", "America/Argentina/ComodRivadavia"]) {
      assert.isTrue(isTimeZone(zone), zone)
    }
    for (const zone of ["", "Mars/Base", "Europe/Berlin".padEnd(65, "x")]) assert.isFalse(isTimeZone(zone), zone)
  })
})

describe("scan scores", () => {
  const item = (
    id: string,
    category: ChecklistItem["category"],
    status: ChecklistItem["status"],
    weight = 1
  ): ChecklistItem => ({ id, category, title: id, status, weight, detail: "", recommendation: "" })

  it("grades: A from 90, B from 75, C from 60, D from 40, else F", () => {
    assert.deepStrictEqual([100, 90, 89, 75, 74, 60, 59, 40, 39, 0].map(gradeOf), [
      "A",
      "A",
      "B",
      "B",
      "C",
      "C",
      "D",
      "D",
      "F",
      "F"
    ])
  })

  it("weighted: pass 1, warn half, fail 0; weightless and absent items do not count", () => {
    assert.isNull(weightedScore([]))
    assert.isNull(weightedScore([undefined, item("a", "seo", "pass", 0), item("b", "seo", "fail", -1)]))
    assert.strictEqual(weightedScore([item("a", "seo", "pass", 3), item("b", "seo", "fail", 1)]), 75)
    assert.strictEqual(weightedScore([item("a", "seo", "warn", 1), item("b", "seo", "pass", 2)]), 83)
    assert.strictEqual(
      weightedScore([item("a", "seo", "warn", 1), item("b", "seo", "fail", 0), item("c", "seo", "fail", 1)]),
      25
    )
  })

  it("categories are scored apart; blocked bots cap GEO at 40; Lighthouse's SEO score counts its ten audits, warn as pass", () => {
    const items = [
      item("document-title", "seo", "warn"),
      item("is-crawlable", "seo", "pass"),
      item("seo.extra", "seo", "fail"),
      item("geo.schema", "geo", "pass"),
      item("geo.ai-crawlers", "geo", "pass"),
      item("cro.cta", "cro", "fail")
    ]
    assert.deepStrictEqual(scoreChecklist(items), {
      seoScore: 50,
      geoScore: 100,
      croScore: 0,
      lighthouseSeoScore: 100,
      citabilityGrade: "A"
    })
    const blocked = items.map((i) => i.id === "geo.ai-crawlers" ? { ...i, status: "fail" as const } : i)
    assert.deepStrictEqual(scoreChecklist(blocked), {
      seoScore: 50,
      geoScore: 40,
      croScore: 0,
      lighthouseSeoScore: 100,
      citabilityGrade: "D"
    })
    const uncrawlable = items.map((i) => i.id === "is-crawlable" ? { ...i, status: "fail" as const } : i)
    assert.deepStrictEqual(scoreChecklist(uncrawlable), {
      seoScore: 17,
      geoScore: 40,
      croScore: 0,
      lighthouseSeoScore: 20,
      citabilityGrade: "D"
    })
    const lowGeo = [
      item("geo.a", "geo", "fail"),
      item("geo.b", "geo", "fail"),
      item("geo.ai-crawlers", "geo", "fail"),
      item("geo.c", "geo", "pass")
    ]
    assert.strictEqual(scoreChecklist(lowGeo).geoScore, 25)
    assert.deepStrictEqual(scoreChecklist([]), {
      seoScore: null,
      geoScore: null,
      croScore: null,
      lighthouseSeoScore: null,
      citabilityGrade: null
    })
  })
})
