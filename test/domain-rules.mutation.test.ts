import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { createHmac } from "node:crypto"
import { parseBearer } from "../src/domain/ApiKeys.ts"
import { resolveLevel } from "../src/domain/Autonomy.ts"
import {
  type BillingSignal,
  checkoutReference,
  customerReference,
  nextStatus,
  providerIds,
  providerSessionId,
  signalOf
} from "../src/domain/Billing.ts"
import { sseFrame, threadTitle } from "../src/domain/Chat.ts"
import { describeForbiddenMove, NewContent, transition } from "../src/domain/Content.ts"
import type { CustomerStatus } from "../src/domain/Identity.ts"
import { parseLlmsTxt } from "../src/domain/LlmsTxt.ts"
import { ConfirmedProfile } from "../src/domain/Onboarding.ts"
import { signOrchestratorRequest, verifyOrchestratorSignature } from "../src/domain/OrchestratorSignature.ts"
import { isAllowed, parseRobots, validateRobots } from "../src/domain/Robots.ts"
import {
  consentToken,
  linksToTrack,
  MediaUri,
  rewriteLinks,
  SocialPlatform,
  verifyState,
  withinPlatformRules
} from "../src/domain/Social.ts"
import { HttpUrl, PathId } from "../src/domain/Text.ts"
import { redactedUrl } from "../src/domain/Webhooks.ts"
import { RunRequest, WorkflowConfig, WorkflowUpdate } from "../src/domain/Workflows.ts"
import { describeIssues } from "../src/platform/http/ValidationMessages.ts"

/** What a 400 would list for `value`: `path: message`, every offending field (as the HTTP layer words them). */
const problems = (schema: Schema.Top, value: unknown): Array<string> => {
  const result = Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(value, {
    onExcessProperty: "error",
    errors: "all"
  })
  if (Result.isSuccess(result)) return []
  const failure = result.failure as { readonly issue?: unknown }
  return describeIssues((failure.issue ?? failure) as never).map((d) => `${d.path.map(String).join(".")}: ${d.message}`)
}

describe("customer status moves", () => {
  const statuses: ReadonlyArray<CustomerStatus> = ["onboarding", "active", "suspended", "cancelled"]
  const cases: ReadonlyArray<readonly [string, BillingSignal, Record<CustomerStatus, CustomerStatus | undefined>]> = [
    ["subscription deleted", { _tag: "SubscriptionDeleted" }, {
      onboarding: "cancelled",
      active: "cancelled",
      suspended: "cancelled",
      cancelled: undefined
    }],
    ["trial ended unpaid", { _tag: "TrialEndedUnpaid" }, {
      onboarding: "cancelled",
      active: "cancelled",
      suspended: "cancelled",
      cancelled: undefined
    }],
    ["payment failed", { _tag: "InvoicePaymentFailed" }, {
      onboarding: "suspended",
      active: "suspended",
      suspended: undefined,
      cancelled: undefined
    }],
    ["invoice paid", { _tag: "InvoicePaid", amountPaid: 4900 }, {
      onboarding: "active",
      active: undefined,
      suspended: "active",
      cancelled: undefined
    }],
    ["0-amount invoice", { _tag: "InvoicePaid", amountPaid: 0 }, {
      onboarding: undefined,
      active: undefined,
      suspended: "active",
      cancelled: undefined
    }],
    ["canceled", { _tag: "SubscriptionStatus", status: "canceled" }, {
      onboarding: "cancelled",
      active: "cancelled",
      suspended: "cancelled",
      cancelled: undefined
    }],
    ["incomplete_expired", { _tag: "SubscriptionStatus", status: "incomplete_expired" }, {
      onboarding: "cancelled",
      active: "cancelled",
      suspended: "cancelled",
      cancelled: undefined
    }],
    ["past_due", { _tag: "SubscriptionStatus", status: "past_due" }, {
      onboarding: "suspended",
      active: "suspended",
      suspended: undefined,
      cancelled: undefined
    }],
    ["unpaid", { _tag: "SubscriptionStatus", status: "unpaid" }, {
      onboarding: "suspended",
      active: "suspended",
      suspended: undefined,
      cancelled: undefined
    }],
    ["active", { _tag: "SubscriptionStatus", status: "active" }, {
      onboarding: undefined,
      active: undefined,
      suspended: "active",
      cancelled: undefined
    }],
    ["trialing", { _tag: "SubscriptionStatus", status: "trialing" }, {
      onboarding: undefined,
      active: undefined,
      suspended: "active",
      cancelled: undefined
    }],
    ["incomplete", { _tag: "SubscriptionStatus", status: "incomplete" }, {
      onboarding: undefined,
      active: undefined,
      suspended: undefined,
      cancelled: undefined
    }],
    ["paused", { _tag: "SubscriptionStatus", status: "paused" }, {
      onboarding: undefined,
      active: undefined,
      suspended: undefined,
      cancelled: undefined
    }]
  ]

  it("each signal moves each status exactly as the table says", () => {
    for (const [name, signal, expected] of cases) {
      for (const from of statuses) assert.strictEqual(nextStatus(from, signal), expected[from], `${from} on ${name}`)
    }
  })
})

describe("payment events", () => {
  it("name the signal of the five handled types only", () => {
    assert.deepStrictEqual(signalOf("customer.subscription.updated", { status: "past_due" }), {
      _tag: "SubscriptionStatus",
      status: "past_due"
    })
    assert.isUndefined(signalOf("customer.subscription.updated", { status: 3 }))
    assert.isUndefined(signalOf("customer.subscription.updated", {}))
    assert.deepStrictEqual(signalOf("customer.subscription.deleted", {}), { _tag: "SubscriptionDeleted" })
    assert.deepStrictEqual(signalOf("invoice.paid", { amount_paid: 4900 }), { _tag: "InvoicePaid", amountPaid: 4900 })
    assert.deepStrictEqual(signalOf("invoice.paid", { amount_paid: "4900" }), { _tag: "InvoicePaid", amountPaid: 0 })
    assert.deepStrictEqual(signalOf("invoice.payment_failed", {}), { _tag: "InvoicePaymentFailed" })
    for (const type of ["checkout.session.completed", "invoice.created", "customer.subscription.created", ""]) {
      assert.isUndefined(signalOf(type, { status: "active", amount_paid: 1 }), type)
    }
  })

  it("name the customer: metadata first, then the provider's customer and subscription, expanded or not", () => {
    assert.deepStrictEqual(
      customerReference("invoice.paid", {
        customer: { id: "cus_1" },
        parent: { subscription_details: { metadata: { customerId: "c-1" }, subscription: "sub_1" } },
        metadata: { customerId: "c-2" }
      }),
      { customerId: "c-1", providerCustomerId: "cus_1", providerSubscriptionId: "sub_1" }
    )
    assert.deepStrictEqual(customerReference("invoice.paid", { customer: "cus_1", metadata: { customerId: "c-2" } }), {
      customerId: "c-2",
      providerCustomerId: "cus_1",
      providerSubscriptionId: undefined
    })
    assert.deepStrictEqual(
      customerReference("invoice.paid", { parent: { subscription_details: { subscription: { id: "sub_2" } } } }),
      { customerId: undefined, providerCustomerId: undefined, providerSubscriptionId: "sub_2" }
    )
    assert.deepStrictEqual(
      customerReference("customer.subscription.updated", {
        id: "sub_3",
        customer: "cus_3",
        metadata: { customerId: "c-3" },
        subscription: "sub_other"
      }),
      { customerId: "c-3", providerCustomerId: "cus_3", providerSubscriptionId: "sub_3" }
    )
    assert.deepStrictEqual(customerReference("customer.subscription.deleted", { id: "sub_4" }), {
      customerId: undefined,
      providerCustomerId: undefined,
      providerSubscriptionId: "sub_4"
    })
    assert.deepStrictEqual(
      customerReference("checkout.session.completed", {
        id: "cs_1",
        customer: "cus_5",
        subscription: { id: "sub_5" },
        metadata: { customerId: "c-5" }
      }),
      { customerId: "c-5", providerCustomerId: "cus_5", providerSubscriptionId: "sub_5" }
    )
    assert.deepStrictEqual(customerReference("checkout.session.completed", { metadata: null, customer: ["cus_6"] }), {
      customerId: undefined,
      providerCustomerId: undefined,
      providerSubscriptionId: undefined
    })
  })

  it("ids are non-empty storable text of at most 255 characters", () => {
    const id255 = "i".repeat(255)
    assert.strictEqual(checkoutReference({ client_reference_id: id255 }), id255)
    assert.isUndefined(checkoutReference({ client_reference_id: id255 + "i" }))
    assert.isUndefined(checkoutReference({ client_reference_id: "" }))
    assert.isUndefined(checkoutReference({ client_reference_id: 12 }))
    assert.strictEqual(checkoutReference({ client_reference_id: "x" }), "x")
    assert.strictEqual(providerSessionId({ id: "cs_1" }), "cs_1")
    assert.isUndefined(providerSessionId({ id: "cs\u0000" }))
    assert.deepStrictEqual(providerIds({ customer: { id: "cus_1" }, subscription: "sub_1" }), {
      customer: "cus_1",
      subscription: "sub_1"
    })
    assert.deepStrictEqual(providerIds({}), { customer: undefined, subscription: undefined })
  })
})

describe("orchestrator signatures", () => {
  const key = "orchestrator-key"
  const body = "{\"run\":1}"
  const now = 1_800_000_000
  const hmac = (timestamp: number | string, text: string, k = key) =>
    createHmac("sha256", k).update(`${timestamp}.${text}`).digest("hex")

  it("t=<unix seconds>,v1=<hex HMAC-SHA256 of \"t.body\">", () => {
    assert.strictEqual(signOrchestratorRequest(key, body, now), `t=${now},v1=${hmac(now, body)}`)
    assert.isTrue(verifyOrchestratorSignature(signOrchestratorRequest(key, body, now), body, key, now))
  })

  it("accepts five minutes either way, not a second more", () => {
    for (const skew of [-300, 300, 0]) {
      assert.isTrue(
        verifyOrchestratorSignature(signOrchestratorRequest(key, body, now + skew), body, key, now),
        String(skew)
      )
    }
    for (const skew of [-301, 301]) {
      assert.isFalse(
        verifyOrchestratorSignature(signOrchestratorRequest(key, body, now + skew), body, key, now),
        String(skew)
      )
    }
  })

  it("reads the header leniently: spaces, upper-case hex, several v1 values, unknown parts", () => {
    const good = hmac(now, body)
    assert.isTrue(verifyOrchestratorSignature(` t = ${now} , v1 = ${good.toUpperCase()} `, body, key, now))
    assert.isTrue(verifyOrchestratorSignature(`v0=abc,junk,t=${now},v1=${"0".repeat(64)},v1=${good}`, body, key, now))
    assert.isTrue(verifyOrchestratorSignature(`t=${now},v2=${"0".repeat(64)},v1=${good}`, body, key, now))
  })

  it("refuses anything else", () => {
    const good = hmac(now, body)
    const refused = [
      undefined,
      "",
      `v1=${good}`,
      `t=${now}`,
      `t=${now},v2=${good}`,
      `t=${now},v1=${good.slice(1)}`,
      `t=${now},v1=${good}0`,
      `t=${now},v1=${hmac(now, body + " ")}`,
      `t=${now},v1=${hmac(now, body, "other")}`,
      `t=-${now},v1=${good}`,
      `t=${now}.0,v1=${good}`,
      `t=0${"0".repeat(12)},v1=${hmac("0".repeat(13), body)}`,
      `t=${now},v1=${good},x=${"y".repeat(2048)}`
    ]
    for (const header of refused) {
      assert.isFalse(verifyOrchestratorSignature(header, body, key, now), String(header).slice(0, 80))
    }
    assert.isFalse(
      verifyOrchestratorSignature(
        `t=${now},v1=${createHmac("sha256", "").update(`${now}.${body}`).digest("hex")}`,
        body,
        "",
        now
      )
    )
    // A long header within the limit is read.
    const padded = `t=${now},v1=${good},x=${"y".repeat(2048 - 2 - `t=${now},v1=${good},x=`.length + 2)}`
    assert.strictEqual(padded.length, 2048)
    assert.isTrue(verifyOrchestratorSignature(padded, body, key, now))
    // Twelve digits is the longest timestamp read.
    const far = 999_999_999_999
    assert.isTrue(verifyOrchestratorSignature(`t=${far},v1=${hmac(far, body)}`, body, key, far))
  })
})

describe("small rules", () => {
  it("a bearer header must start with Bearer", () => {
    assert.deepStrictEqual(parseBearer("xBearer abc"), { _tag: "Malformed" })
    assert.deepStrictEqual(parseBearer("Token Bearer abc"), { _tag: "Malformed" })
  })

  it("an action with no skill or category uses the default, whatever the overrides", () => {
    const autonomy = { globalDefault: 3, categories: { undefined: 5 }, skills: { undefined: 1 } } as never
    assert.strictEqual(resolveLevel(autonomy, {}), 3)
  })

  it("submitting is a draft's move only", () => {
    assert.deepStrictEqual(transition("draft", "submit"), Result.succeed("pending_approval"))
    const refused = transition("pending_approval", "submit")
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) {
      assert.strictEqual(
        describeForbiddenMove(refused.failure),
        "Only a draft can be submitted for approval; this piece is pending approval (the move from pending_approval to pending_approval is not allowed)"
      )
    }
    assert.isTrue(Result.isFailure(transition("rejected", "submit")))
  })

  it("a body too long for its platform is refused on `body`", () => {
    assert.deepStrictEqual(problems(NewContent, { type: "social", platform: "x", body: "a".repeat(281) }), [
      "body: must be at most 280 characters for x"
    ])
    assert.deepStrictEqual(problems(NewContent, { type: "social", platform: "X!", body: "a" }), [
      "platform: must be 1 to 40 lowercase letters, digits, '_', '.' or '-'"
    ])
    assert.deepStrictEqual(problems(NewContent, { type: "social", platform: "newsletter", body: "a".repeat(5000) }), [])
  })

  it("chat threads are titled by their first line, at most 80 characters", () => {
    assert.strictEqual(threadTitle("  Plan my week  \nand more"), "Plan my week")
    assert.strictEqual(threadTitle("\n\nhello"), "hello")
    assert.strictEqual(threadTitle("a".repeat(80)), "a".repeat(80))
    assert.strictEqual(threadTitle("a".repeat(81)), "a".repeat(79) + "…")
    assert.strictEqual(threadTitle("😀".repeat(81)), "😀".repeat(79) + "…")
    assert.strictEqual(
      sseFrame({ event: "delta", data: { text: "a\nb" } }),
      "event: delta\ndata: {\"text\":\"a\\nb\"}\n\n"
    )
  })

  it("webhook URLs in the event log lose credentials, query and fragment", () => {
    assert.strictEqual(
      redactedUrl("https://user:secret@hooks.example.com:8443/in/1?token=abc#frag"),
      "https://hooks.example.com:8443/in/1"
    )
    assert.strictEqual(redactedUrl("http://example.com"), "http://example.com/")
    assert.strictEqual(redactedUrl("not a url"), "")
  })

  it("path ids nothing could store become the empty string", () => {
    assert.strictEqual(Schema.decodeUnknownSync(PathId)("abc-1"), "abc-1")
    assert.strictEqual(Schema.decodeUnknownSync(PathId)("a\u0000b"), "")
    assert.strictEqual(Schema.decodeUnknownSync(PathId)("\ud800"), "")
  })
})

describe("wire rules and their messages", () => {
  it("URLs", () => {
    assert.deepStrictEqual(problems(HttpUrl, "https://example.com/a"), [])
    assert.deepStrictEqual(problems(HttpUrl, "ftp://example.com/a"), [": must be an absolute http or https URL"])
    assert.deepStrictEqual(problems(HttpUrl, "http://"), [": must be an absolute http or https URL"])
    assert.deepStrictEqual(problems(MediaUri, "HTTPS://cdn.example.com/a.png"), [])
    assert.deepStrictEqual(problems(MediaUri, "http://cdn.example.com/a.png"), [])
    for (const bad of ["ftp://cdn.example.com/a.png", "xhttps://cdn.example.com/a.png", "https://", "/a.png"]) {
      assert.deepStrictEqual(problems(MediaUri, bad), [": must be an http(s) URI"], bad)
    }
    assert.deepStrictEqual(problems(MediaUri, "https://a.example/" + "p".repeat(2031)), [
      ": must be at most 2048 characters"
    ])
    assert.deepStrictEqual(problems(MediaUri, "https://a.example/" + "p".repeat(2030)), [])
  })

  it("social posts: length per platform on `body`, media where required on `media`", () => {
    const Post = Schema.Struct({
      platform: SocialPlatform,
      body: Schema.String,
      media: Schema.optionalKey(Schema.Array(Schema.String))
    }).check(withinPlatformRules)
    assert.deepStrictEqual(problems(Post, { platform: "x", body: "a".repeat(281) }), [
      "body: must be at most 280 characters for x"
    ])
    assert.deepStrictEqual(problems(Post, { platform: "instagram", body: "a" }), [
      "media: instagram posts need at least one media item"
    ])
    assert.deepStrictEqual(problems(Post, { platform: "pinterest", body: "a", media: [] }), [
      "media: pinterest posts need at least one media item"
    ])
    assert.deepStrictEqual(problems(Post, { platform: "instagram", body: "a", media: ["https://a.example/1.png"] }), [])
    assert.deepStrictEqual(problems(Post, { platform: "x", body: "a" }), [])
  })

  it("a confirmed profile: brandName required (1 to 200 characters), every other field typed and bounded, no other field", () => {
    for (
      const ok of [
        { brandName: "Acme" },
        { brandName: "b".repeat(200) },
        { brandName: "😀".repeat(200) },
        { brandName: "Acme", description: null, logoUrl: null, sourceUrl: null },
        { brandName: "Acme", colors: ["#000000", "#aBcDeF"], voice: [], socials: { x: "https://x.com/acme" } },
        {
          brandName: "Acme",
          products: Array.from({ length: 50 }, () => "p".repeat(200)),
          colors: Array.from({ length: 20 }, () => "#ffffff")
        }
      ]
    ) {
      assert.deepStrictEqual(problems(ConfirmedProfile, ok), [], JSON.stringify(ok))
    }
    const refused: ReadonlyArray<readonly [unknown, string]> = [
      [{}, "brandName: is required"],
      [{ brandName: null }, "brandName: must be a string"],
      [{ brandName: "" }, "brandName: must not be empty"],
      [{ brandName: "   " }, "brandName: must not be empty"],
      [{ brandName: "b".repeat(201) }, "brandName: must be at most 200 characters"],
      [{ brandName: "A\u0000" }, "brandName: must not contain NUL characters or unpaired surrogates"],
      [{ brandName: "A", colors: ["#fff"] }, "colors.0: must be a colour as #rrggbb"],
      [{ brandName: "A", colors: ["#0000000"] }, "colors.0: must be a colour as #rrggbb"],
      [{ brandName: "A", colors: Array.from({ length: 21 }, () => "#ffffff") }, "colors: must have at most 20 items"],
      [{ brandName: "A", voice: Array.from({ length: 51 }, () => "w") }, "voice: must have at most 50 items"],
      [{ brandName: "A", audience: [""] }, "audience.0: must not be empty"],
      [{ brandName: "A", logoUrl: "javascript:alert(1)" }, "logoUrl: must be an absolute http or https URL"],
      [{ brandName: "A", sourceUrl: "/relative" }, "sourceUrl: must be an absolute http or https URL"],
      [{ brandName: "A", socials: { x: "mailto:a@b.c" } }, "socials.x: must be an absolute http or https URL"],
      [{ brandName: "A", description: "d".repeat(2001) }, "description: must be at most 2000 characters"],
      [{ brandName: "A", other: 1 }, "other: is not an allowed property"]
    ]
    for (const [bad, message] of refused) {
      assert.deepStrictEqual(problems(ConfirmedProfile, bad), [message], JSON.stringify(bad))
    }
    const socials = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, "https://a.example/"]))
    assert.deepStrictEqual(problems(ConfirmedProfile, { brandName: "A", socials }), [
      "socials: must have at most 20 keys"
    ])
  })

  it("workflow updates: cron, zone, name, description, config", () => {
    assert.deepStrictEqual(
      problems(WorkflowUpdate, {
        schedule: "0 9 * * 1",
        timezone: "Europe/Berlin",
        name: "n".repeat(100),
        description: "d".repeat(1000),
        config: {}
      }),
      []
    )
    assert.deepStrictEqual(problems(WorkflowUpdate, { schedule: null }), [])
    assert.deepStrictEqual(
      problems(WorkflowUpdate, {
        schedule: "* * *",
        timezone: "Mars/Base",
        name: "",
        description: "d".repeat(1001),
        config: { a: "\u0000" },
        extra: 1
      }),
      [
        "extra: is not an allowed property",
        "schedule: must be a 5-field cron expression (minute hour day month weekday)",
        "timezone: must be an IANA time zone name such as Europe/Berlin",
        "name: must not be empty",
        "description: must be at most 1000 characters",
        "config: must not contain NUL characters or unpaired surrogates"
      ]
    )
    assert.deepStrictEqual(problems(WorkflowUpdate, { name: "n".repeat(101) }), [
      "name: must be at most 100 characters"
    ])
    assert.deepStrictEqual(problems(WorkflowUpdate, { schedule: "0 0 31 2 *" }), ["schedule: never fires"])
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
    assert.deepStrictEqual(problems(WorkflowConfig, keys(50)), [])
    assert.deepStrictEqual(problems(WorkflowConfig, keys(51)), [": must have at most 50 keys"])
    assert.deepStrictEqual(problems(RunRequest, { input: keys(51) }), ["input: must have at most 50 keys"])
  })
})

describe("connect state, consent and tracked links", () => {
  const secret = "state-secret"
  const mac = (text: string) => createHmac("sha256", secret).update(`connect-state.${text}`).digest("base64url")

  it("a state with an authentic MAC but no JSON payload is refused", () => {
    const text = Buffer.from("not json").toString("base64url")
    assert.isUndefined(verifyState(secret, `${text}.${mac(text)}`, 0))
    const payload = Buffer.from(JSON.stringify({ n: "n", c: "c", p: "x", e: 100 })).toString("base64url")
    assert.deepStrictEqual(verifyState(secret, `${payload}.${mac(payload)}`, 99), { n: "n", c: "c", p: "x", e: 100 })
    assert.isUndefined(verifyState(secret, `${payload}.${mac(payload)}`, 100))
  })

  it("the consent token binds the state to the browser's cookie", () => {
    assert.strictEqual(
      consentToken(secret, "st", "ck"),
      createHmac("sha256", secret).update("consent.ck.st").digest("base64url")
    )
    assert.notStrictEqual(consentToken(secret, "st", "ck2"), consentToken(secret, "st", "ck"))
  })

  it("links that are not URLs are left as written; linksToTrack lists each target once", () => {
    assert.strictEqual(
      rewriteLinks("see http://[oops and https://a.example/x", "x", "https://h.example/r/", () => "C"),
      "see http://[oops and https://h.example/r/C"
    )
    assert.deepStrictEqual(
      linksToTrack(
        "https://a.example/x and https://a.example/x, https://b.example",
        "linkedin",
        "https://h.example/r/"
      ),
      [
        "https://a.example/x?utm_source=linkedin&utm_medium=social&utm_campaign=herald",
        "https://b.example/?utm_source=linkedin&utm_medium=social&utm_campaign=herald"
      ]
    )
    assert.deepStrictEqual(linksToTrack("no links", "x", "https://h.example/r/"), [])
  })
})

describe("robots.txt and llms.txt edges", () => {
  it("a sitemap of another protocol, a URL that cannot be read, a pattern that cannot be encoded", () => {
    assert.deepStrictEqual(validateRobots("Sitemap: mailto:a@b.example"), [{
      line: 1,
      text: "Sitemap: mailto:a@b.example",
      message: "Invalid sitemap URL protocol"
    }])
    assert.deepStrictEqual(validateRobots("Sitemap: ftp://a.example/s.xml"), [])
    const robots = parseRobots("https://a.example/robots.txt", "User-agent: *\nDisallow: /\ud800x\nDisallow: /private")
    assert.isFalse(isAllowed(robots, "http://[oops"))
    assert.isFalse(isAllowed(robots, "https://a.example/private/1"))
    assert.isTrue(isAllowed(robots, "https://a.example/public"))
  })

  it("a second `#` heading is named by its line", () => {
    assert.deepStrictEqual(parseLlmsTxt("# Site\n\n> Summary\n\nText\n# Again\n## Docs\n- [a](https://a.example)"), {
      ok: false,
      errors: ["line 6: a second `#` heading"]
    })
  })
})
