import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { createHmac } from "node:crypto"
import { writeDraft } from "../src/domain/Copywriting.ts"
import { ValidationDetail } from "../src/domain/Errors.ts"
import { verifyOrchestratorSignature } from "../src/domain/OrchestratorSignature.ts"
import { isAllowed, parseRobots, patternMatches, validateRobots } from "../src/domain/Robots.ts"
import { type ChecklistItem, scoreChecklist } from "../src/domain/Scan.ts"
import { verifyState } from "../src/domain/Social.ts"
import { parseRetryAfter } from "../src/domain/Webhooks.ts"
import { signedHeaders, verifyStandardSignature } from "../src/domain/WebhookSignature.ts"

describe("orchestrator signature header, part by part", () => {
  const key = "orchestrator-key"
  const body = "{}"
  const now = 1_800_000_000
  const hmac = (timestamp: string) => createHmac("sha256", key).update(`${timestamp}.${body}`).digest("hex")

  it("a part without `=` is ignored, even one starting with t", () => {
    assert.isTrue(verifyOrchestratorSignature(`t=${now},v1=${hmac(String(now))},tX`, body, key, now))
  })

  it("the timestamp is 1 to 12 digits and nothing else, even when signed as sent", () => {
    for (const timestamp of ["abc", `+${now}`, `${now}.5`, `000${now}`, ` ${now}x`]) {
      assert.isFalse(
        verifyOrchestratorSignature(`t=${timestamp},v1=${hmac(timestamp.trim())}`, body, key, now),
        timestamp
      )
    }
    assert.isFalse(verifyOrchestratorSignature(`v1=${hmac("undefined")}`, body, key, now))
    assert.isTrue(verifyOrchestratorSignature(`t=00${now},v1=${hmac(`00${now}`)}`, body, key, now), "twelve digits")
  })
})

describe("robots.txt grouping and precedence", () => {
  const rules = (content: string) => {
    const robots = parseRobots("https://a.example/robots.txt", content)
    return Object.fromEntries(
      [...robots.groups].map(([agent, list]) => [
        agent,
        list.map((r) => `${r.allow ? "allow" : "disallow"} ${r.pattern}`)
      ])
    )
  }

  it("consecutive user-agent lines form one group; lines without a name or colon do not break it", () => {
    assert.deepStrictEqual(rules("User-agent: a\nno colon here\n: no name\nUser-agent: b\nDisallow: /x"), {
      a: ["disallow /x"],
      b: ["disallow /x"]
    })
    assert.deepStrictEqual(rules("User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y"), {
      a: ["disallow /x"],
      b: ["disallow /y"]
    })
  })

  it("rules before any user-agent, or under an empty one, belong to no group", () => {
    assert.deepStrictEqual(rules("Disallow: /x\nUser-agent:\nDisallow: /y"), {})
  })

  it("names are trimmed and case-insensitive; escapes are upper-cased", () => {
    assert.deepStrictEqual(rules("USER-AGENT : Bot\n Disallow : /%7euser\nALLOW:/a b"), {
      bot: ["disallow /%7Euser", "allow /a%20b"]
    })
    assert.deepStrictEqual(validateRobots("User-agent: *\nDisallow : /x\n  Allow\t: /y"), [])
  })

  it("a crawl-delay group is the agent's own, even with no rules", () => {
    const robots = parseRobots(
      "https://a.example/robots.txt",
      "User-agent: *\nDisallow: /\n\nUser-agent: Lazy\nCrawl-delay: 5"
    )
    assert.deepStrictEqual(robots.groups.get("lazy"), [])
    assert.isTrue(isAllowed(robots, "https://a.example/page", "Lazy"))
    assert.isFalse(isAllowed(robots, "https://a.example/page", "Other"))
  })

  it("the longest matching rule wins, whatever the order; at equal length allow wins", () => {
    const robots = (content: string) => parseRobots("https://a.example/robots.txt", `User-agent: *\n${content}`)
    assert.isFalse(isAllowed(robots("Disallow: /private\nAllow: /p"), "https://a.example/private/x"))
    assert.isFalse(isAllowed(robots("Allow: /p\nDisallow: /private"), "https://a.example/private/x"))
    assert.isTrue(isAllowed(robots("Allow: /a\nDisallow: /a"), "https://a.example/a"))
    assert.isTrue(isAllowed(robots("Disallow: /a\nAllow: /a"), "https://a.example/a"))
    assert.isFalse(isAllowed(robots("Disallow: /ab\nAllow: /a"), "https://a.example/ab"))
    assert.isTrue(isAllowed(robots("Disallow: /a\nAllow: /ab"), "https://a.example/ab"))
  })

  it("a `*` before a final `$` matches up to the end", () => {
    assert.isTrue(patternMatches("/a*$", "/abc"))
    assert.isTrue(patternMatches("/a*c$", "/abc"))
    assert.isFalse(patternMatches("/a*b$", "/abc"))
  })

  it("scheme, host and port must all be the file's", () => {
    const https = parseRobots("https://a.example/robots.txt", "User-agent: *\nAllow: /")
    const http = parseRobots("http://a.example/robots.txt", "User-agent: *\nAllow: /")
    assert.isTrue(isAllowed(https, "https://a.example:443/x"))
    assert.isFalse(isAllowed(https, "https://a.example:80/x"))
    assert.isFalse(isAllowed(https, "http://a.example:443/x"))
    assert.isTrue(isAllowed(http, "http://a.example:80/x"))
    assert.isFalse(isAllowed(http, "http://a.example:443/x"))
    assert.isFalse(isAllowed(http, "https://a.example:80/x"))
  })
})

describe("scores with nothing to score", () => {
  it("an uncrawlable page with no GEO checks has no GEO score and no grade", () => {
    const item: ChecklistItem = {
      id: "is-crawlable",
      category: "seo",
      title: "",
      status: "fail",
      weight: 1,
      detail: "",
      recommendation: ""
    }
    assert.deepStrictEqual(scoreChecklist([item]), {
      seoScore: 0,
      geoScore: null,
      croScore: null,
      lighthouseSeoScore: 0,
      citabilityGrade: null
    })
  })
})

describe("connect state length limit", () => {
  it("a state of exactly 2000 characters is read; one more is not", () => {
    const secret = "state-secret"
    const forge = (pad: string) => {
      const text = Buffer.from(JSON.stringify({ n: "n", c: "c", p: "x", e: 10, pad })).toString("base64url")
      return `${text}.${createHmac("sha256", secret).update(`connect-state.${text}`).digest("base64url")}`
    }
    let exact: string | undefined
    let over: string | undefined
    for (let n = 1300; n < 1600; n++) {
      const state = forge("p".repeat(n))
      if (state.length === 2000) exact = state
      if (state.length === 2001 || state.length === 2002) over ??= state
    }
    assert.isDefined(exact)
    assert.isDefined(over)
    assert.isDefined(verifyState(secret, exact!, 0))
    assert.isUndefined(verifyState(secret, over!, 0))
  })
})

describe("webhook headers and retries", () => {
  it("signed headers: JSON content type, the named header in lower case, Standard Webhooks' three", () => {
    const secret = "whsec_" + Buffer.from("k".repeat(32)).toString("base64")
    const headers = signedHeaders({
      headerName: "X-Herald-Signature",
      secrets: [secret],
      id: "msg_1",
      timestamp: 1000,
      body: "{}"
    })
    assert.deepStrictEqual(Object.keys(headers).sort(), [
      "content-type",
      "webhook-id",
      "webhook-signature",
      "webhook-timestamp",
      "x-herald-signature"
    ])
    assert.strictEqual(headers["content-type"], "application/json")
    assert.strictEqual(headers["webhook-id"], "msg_1")
    assert.strictEqual(headers["webhook-timestamp"], "1000")
    assert.strictEqual(
      headers["x-herald-signature"],
      createHmac("sha256", Buffer.from(secret, "utf8")).update("{}").digest("hex")
    )
  })

  it("a missing id is refused even when the signature was made over `undefined`", () => {
    const secret = "whsec_" + Buffer.from("k".repeat(32)).toString("base64")
    const signature = "v1," +
      createHmac("sha256", Buffer.from("k".repeat(32))).update("undefined.1000.{}").digest("base64")
    assert.isTrue(
      verifyStandardSignature({ secret, id: "undefined", timestamp: "1000", signature, body: "{}", nowSeconds: 1000 })
    )
    assert.isFalse(
      verifyStandardSignature({ secret, id: undefined, timestamp: "1000", signature, body: "{}", nowSeconds: 1000 })
    )
  })

  it("Retry-After seconds are digits only; anything else is read as a date", () => {
    const now = Date.parse("2026-11-23T12:00:00Z")
    assert.strictEqual(parseRetryAfter("+120", now), 0)
    assert.strictEqual(parseRetryAfter("120.5", now), 0)
    assert.strictEqual(parseRetryAfter("120", now), 120)
  })
})

describe("validation details", () => {
  it("document `path` and `message`, both required", () => {
    assert.deepStrictEqual(Schema.toJsonSchemaDocument(ValidationDetail).schema, {
      type: "object",
      properties: { path: { type: "string" }, message: { type: "string" } },
      required: ["path", "message"],
      additionalProperties: true
    })
  })
})

describe("house writer: what a short post keeps", () => {
  it("when the hook, the CTA and the hashtags do not fit together, the hashtags go first", () => {
    let kept: string | undefined
    for (let n = 60; n <= 120 && kept === undefined; n++) {
      const draft = writeDraft({
        kind: "social",
        brandName: "Acme",
        topic: "t".repeat(n),
        platform: "x",
        audience: "a".repeat(40),
        angle: 1
      })
      if (draft.body === `${draft.hook} ${draft.cta}`) kept = draft.body
      assert.notStrictEqual(draft.body, `${draft.hook} ${draft.hashtags.join(" ")}`)
    }
    assert.isDefined(kept)
  })
})
