import { assert, describe, it } from "@effect/vitest"
import { createHmac } from "node:crypto"
import { signatureDatedAhead } from "../src/domain/Billing.ts"
import { CustomerId } from "../src/domain/Ids.ts"
import { isBotUserAgent, signState, verifyState } from "../src/domain/Social.ts"
import { standardKey, verifyServiceSignature, verifyStandardSignature } from "../src/domain/WebhookSignature.ts"

describe("Standard Webhooks verification edges", () => {
  const secret = "whsec_" + Buffer.from("k".repeat(32)).toString("base64")
  const sign = (id: string, ts: number, body: string) =>
    "v1," + createHmac("sha256", Buffer.from("k".repeat(32))).update(`${id}.${ts}.${body}`).digest("base64")
  const good = {
    secret,
    id: "msg_1",
    timestamp: "1000",
    signature: sign("msg_1", 1000, "{}"),
    body: "{}",
    nowSeconds: 1000
  }

  it("needs an id, a timestamp of digits and a signature", () => {
    assert.isTrue(verifyStandardSignature(good))
    assert.isFalse(verifyStandardSignature({ ...good, id: undefined }))
    assert.isFalse(verifyStandardSignature({ ...good, timestamp: undefined }))
    assert.isFalse(verifyStandardSignature({ ...good, signature: undefined }))
    assert.isFalse(verifyStandardSignature({ ...good, timestamp: "1000.0" }))
    assert.isFalse(verifyStandardSignature({ ...good, timestamp: "-1000" }))
    assert.isFalse(verifyStandardSignature({ ...good, timestamp: "" }))
  })

  it("takes any of several space-separated signatures, within the tolerance given", () => {
    assert.isTrue(verifyStandardSignature({ ...good, signature: `v1,AAAA ${good.signature}` }))
    assert.isTrue(verifyStandardSignature({ ...good, nowSeconds: 1300 }))
    assert.isFalse(verifyStandardSignature({ ...good, nowSeconds: 1301 }))
    assert.isTrue(verifyStandardSignature({ ...good, nowSeconds: 1010, toleranceSeconds: 10 }))
    assert.isFalse(verifyStandardSignature({ ...good, nowSeconds: 1011, toleranceSeconds: 10 }))
  })

  it("the key is the base64 after whsec_, or the whole secret without the prefix", () => {
    assert.deepStrictEqual(standardKey(secret), Buffer.from("k".repeat(32)))
    assert.deepStrictEqual(standardKey(Buffer.from("raw").toString("base64")), Buffer.from("raw"))
  })

  it("the single header is compared trimmed and in lower case", () => {
    const hex = createHmac("sha256", Buffer.from("s", "utf8")).update("{}", "utf8").digest("hex")
    assert.isTrue(verifyServiceSignature("s", "{}", ` ${hex.toUpperCase()} `))
    assert.isFalse(verifyServiceSignature("s", "{}", undefined))
    assert.isFalse(verifyServiceSignature("s", "{}", hex.slice(1)))
  })
})

describe("connect state", () => {
  const secret = "state-secret"
  const payload = { n: "nonce", c: CustomerId.make("customer"), p: "x", e: 2_000 }

  it("round-trips until it expires", () => {
    const state = signState(secret, payload)
    assert.match(state, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    assert.deepStrictEqual(verifyState(secret, state, 1_999), payload)
    assert.isUndefined(verifyState(secret, state, 2_000))
    assert.isUndefined(verifyState("other", state, 0))
  })

  it("refuses a state without a payload, too long, or with fields of the wrong type", () => {
    const state = signState(secret, payload)
    assert.isUndefined(verifyState(secret, state.slice(state.indexOf(".")), 0))
    assert.isUndefined(verifyState(secret, "nodot", 0))
    const mac = (text: string) => createHmac("sha256", secret).update(`connect-state.${text}`).digest("base64url")
    const forge = (value: unknown) => {
      const text = Buffer.from(JSON.stringify(value)).toString("base64url")
      return `${text}.${mac(text)}`
    }
    assert.deepStrictEqual(verifyState(secret, forge(payload), 0), payload)
    for (
      const bad of [{ ...payload, n: 1 }, { ...payload, c: null }, { ...payload, p: ["x"] }, { ...payload, e: "3000" }]
    ) {
      assert.isUndefined(verifyState(secret, forge(bad), 0), JSON.stringify(bad))
    }
    const long = forge({ ...payload, pad: "p".repeat(1500) })
    assert.isAbove(long.length, 2000)
    assert.isUndefined(verifyState(secret, long, 0))
    const fits = forge({ ...payload, pad: "p".repeat(1300) })
    assert.isAtMost(fits.length, 2000)
    assert.isDefined(verifyState(secret, fits, 0))
  })
})

describe("bots and link previews", () => {
  it("are told apart from people by their user agent", () => {
    for (
      const bot of [
        undefined,
        "",
        "   ",
        "Googlebot/2.1 (+http://www.google.com/bot.html)",
        "ExampleBot",
        "examplebot/1.0",
        "curl/8.4.0",
        "Wget/1.21",
        "python-requests/2.31",
        "Slackbot-LinkExpanding 1.0",
        "facebookexternalhit/1.1",
        "Mozilla/5.0 HeadlessChrome/120"
      ]
    ) {
      assert.isTrue(isBotUserAgent(bot), String(bot))
    }
    for (
      const person of [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36",
        "Mozilla/5.0 robotics-lab",
        "Mozilla/5.0 (iPhone) Mobile/15E148"
      ]
    ) {
      assert.isFalse(isBotUserAgent(person), person)
    }
  })
})

describe("payment signatures dated ahead", () => {
  it("more than the tolerance ahead of now is refused; at it, behind it or without a date it is left to the verifier", () => {
    assert.isTrue(signatureDatedAhead("t=1301,v1=ab", 1000, 300))
    assert.isFalse(signatureDatedAhead("t=1300,v1=ab", 1000, 300))
    assert.isFalse(signatureDatedAhead("t=1,v1=ab", 1000, 300))
    assert.isFalse(signatureDatedAhead("v1=ab", 1000, 300))
    assert.isFalse(signatureDatedAhead("t=,v1=ab", 1000, 300))
    assert.isFalse(signatureDatedAhead("t=soon,v1=ab", 1000, 300))
  })

  it("looks at every t= item, read as the verifier reads it (leading digits, exact name)", () => {
    assert.isTrue(signatureDatedAhead("t=1000,v1=ab,t=5000", 1000, 300))
    assert.isTrue(signatureDatedAhead("t=5000,t=1000,v1=ab", 1000, 300))
    assert.isTrue(signatureDatedAhead("t=5000x,v1=ab", 1000, 300))
    assert.isFalse(signatureDatedAhead(" t=5000,v1=ab", 1000, 300))
    assert.isFalse(signatureDatedAhead("v1=5000,ts=5000", 1000, 300))
  })
})
