import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { createHmac } from "node:crypto"
import { classifyStatus, parseRetryAfter, retryDelaySeconds } from "../src/domain/Webhooks.ts"
import {
  generateSecret,
  serviceSignature,
  signedHeaders,
  standardSignature,
  verifyServiceSignature,
  verifyStandardSignature
} from "../src/domain/WebhookSignature.ts"

describe("webhook signatures", () => {
  it("reproduces the Standard Webhooks reference test vector", () => {
    const signature = standardSignature(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      "{\"test\": 2432232314}"
    )
    assert.strictEqual(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  })

  it("keys the service header with the whole secret string, as Stripe does", () => {
    const secret = "whsec_abc"
    const body = "{\"a\":1}"
    assert.strictEqual(serviceSignature(secret, body), createHmac("sha256", secret).update(body).digest("hex"))
  })

  it("generates whsec_ + base64 of 32 bytes", () => {
    const secret = generateSecret()
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.strictEqual(Buffer.from(secret.slice(6), "base64").length, 32)
    assert.notStrictEqual(secret, generateSecret())
  })

  it("signed headers verify with both schemes; any change to the body fails both", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.integer({ min: 0, max: 2 ** 31 }), (body, id, ts) => {
        const secret = generateSecret()
        const headers = signedHeaders({ headerName: "X-Service-Signature", secrets: [secret], id, timestamp: ts, body })
        const standard = (b: string) =>
          verifyStandardSignature({
            secret,
            id: headers["webhook-id"],
            timestamp: headers["webhook-timestamp"],
            signature: headers["webhook-signature"],
            body: b,
            nowSeconds: ts
          })
        return verifyServiceSignature(secret, body, headers["x-service-signature"]) && standard(body) &&
          !verifyServiceSignature(secret, body + "x", headers["x-service-signature"]) && !standard(body + "x")
      }),
      { numRuns: 200 }
    )
  })

  it("another secret never verifies", () => {
    fc.assert(
      fc.property(fc.string(), (body) => {
        const headers = signedHeaders({ headerName: "sig", secrets: [generateSecret()], id: "msg", timestamp: 1, body })
        const other = generateSecret()
        return !verifyServiceSignature(other, body, headers.sig) &&
          !verifyStandardSignature({
            secret: other,
            id: "msg",
            timestamp: "1",
            signature: headers["webhook-signature"],
            body,
            nowSeconds: 1
          })
      }),
      { numRuns: 100 }
    )
  })

  it("during a rotation both the new and the old secret verify", () => {
    const [fresh, old] = [generateSecret(), generateSecret()]
    const headers = signedHeaders({ headerName: "sig", secrets: [fresh, old], id: "msg_1", timestamp: 100, body: "{}" })
    for (const secret of [fresh, old]) {
      assert.isTrue(verifyStandardSignature({
        secret,
        id: "msg_1",
        timestamp: "100",
        signature: headers["webhook-signature"],
        body: "{}",
        nowSeconds: 100
      }))
    }
    assert.isTrue(verifyServiceSignature(fresh, "{}", headers.sig))
  })

  it("refuses timestamps outside the five-minute tolerance", () => {
    const secret = generateSecret()
    const signature = standardSignature(secret, "msg", 1000, "{}")
    const at = (now: number) =>
      verifyStandardSignature({ secret, id: "msg", timestamp: "1000", signature, body: "{}", nowSeconds: now })
    assert.isTrue(at(1300))
    assert.isFalse(at(1301))
    assert.isFalse(at(699))
  })
})

describe("delivery rules", () => {
  const schedule = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]

  it("follows the schedule, then gives up after the last retry", () => {
    assert.deepStrictEqual(schedule.map((_, i) => retryDelaySeconds(i + 1, schedule)), schedule)
    assert.isUndefined(retryDelaySeconds(10, schedule))
  })

  it("Retry-After delays but never hastens a retry", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 100_000 }), (attempt, after) => {
      const delay = retryDelaySeconds(attempt, schedule, after)!
      return delay === Math.max(schedule[attempt - 1], after)
    }))
  })

  it("parses Retry-After as seconds or an HTTP date, capped at a day", () => {
    const now = Date.parse("2026-01-01T00:00:00Z")
    assert.strictEqual(parseRetryAfter("120", now), 120)
    assert.strictEqual(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now), 60)
    assert.strictEqual(parseRetryAfter("999999", now), 86_400)
    assert.isUndefined(parseRetryAfter("soon", now))
    assert.isUndefined(parseRetryAfter(undefined, now))
  })

  it("only 2xx succeeds; 410 disables; 3xx and the rest retry", () => {
    fc.assert(fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
      const outcome = classifyStatus(status)
      return status >= 200 && status < 300
        ? outcome === "succeeded"
        : status === 410
        ? outcome === "gone"
        : outcome === "retry"
    }))
  })
})
