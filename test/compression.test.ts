import { assert, describe, it as plain, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { request } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { compress, pickCoding } from "../src/platform/http/Compression.ts"
import { testApp, TestServer } from "./support/harness.ts"

interface RawReply {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

/** A request whose body is read as bytes, undecoded (fetch would decode it). */
const raw = (url: string, headers: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<RawReply>((resolve, reject) => {
      const req = request(url, { headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      })
      req.on("error", reject)
      req.end()
    })
  )

describe("Accept-Encoding", () => {
  plain("prefers br, then gzip; q=0 refuses a coding", () => {
    assert.strictEqual(pickCoding(undefined), undefined)
    assert.strictEqual(pickCoding("gzip, deflate, br"), "br")
    assert.strictEqual(pickCoding("gzip"), "gzip")
    assert.strictEqual(pickCoding("br;q=0, gzip;q=0.5"), "gzip")
    assert.strictEqual(pickCoding("identity"), undefined)
    assert.strictEqual(pickCoding("gzip;q=0"), undefined)
    assert.strictEqual(pickCoding("*"), "gzip")
  })

  plain("an event stream is never compressed, however large; a large JSON body is", () => {
    const events = HttpServerResponse.stream(Stream.make(new TextEncoder().encode(`data: ${"x".repeat(4096)}\n\n`)), {
      contentType: "text/event-stream"
    })
    assert.strictEqual(compress(events, "gzip, br"), events)
    const json = HttpServerResponse.text(JSON.stringify({ a: "x".repeat(4096) }), { contentType: "application/json" })
    assert.strictEqual(compress(json, "gzip").headers["content-encoding"], "gzip")
    const sse = HttpServerResponse.text(`data: ${"x".repeat(4096)}\n\n`, { contentType: "text/event-stream" })
    assert.isUndefined(compress(sse, "gzip").headers["content-encoding"])
  })
})

layer(testApp(), { timeout: 60_000, excludeTestServices: true })("compressed JSON answers", (it) => {
  it.effect("JSON over 1 KiB is gzip or br when accepted, identical once decoded; small answers and refusals are plain", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const plainDoc = yield* raw(`${url}/openapi.json`, {})
      assert.strictEqual(plainDoc.status, 200)
      assert.isUndefined(plainDoc.headers["content-encoding"])
      assert.isAbove(plainDoc.body.length, 1024)

      const gz = yield* raw(`${url}/openapi.json`, { "accept-encoding": "gzip" })
      assert.strictEqual(gz.headers["content-encoding"], "gzip")
      assert.match(String(gz.headers.vary), /accept-encoding/i)
      assert.strictEqual(Number(gz.headers["content-length"]), gz.body.length)
      assert.isBelow(gz.body.length, plainDoc.body.length / 3)
      assert.deepStrictEqual(gunzipSync(gz.body), plainDoc.body)

      const br = yield* raw(`${url}/openapi.json`, { "accept-encoding": "gzip, br" })
      assert.strictEqual(br.headers["content-encoding"], "br")
      assert.deepStrictEqual(brotliDecompressSync(br.body), plainDoc.body)

      // An error body over 1 KiB is JSON too (the 404 is small: sent as is).
      const small = yield* raw(`${url}/api/health`, { "accept-encoding": "gzip, br" })
      assert.strictEqual(small.status, 200)
      assert.isUndefined(small.headers["content-encoding"])
      assert.doesNotThrow(() => JSON.parse(small.body.toString("utf8")))

      // The HTML page is not JSON: untouched.
      const page = yield* raw(`${url}/docs`, { "accept-encoding": "gzip" })
      assert.isUndefined(page.headers["content-encoding"])
    }))
})
