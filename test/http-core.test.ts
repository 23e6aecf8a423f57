import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { allRoutes } from "../src/platform/http/Routes.ts"
import { call, type Reply, testApp, TestServer } from "./support/harness.ts"
import { assertError, provision } from "./support/processes.ts"

let client = 0
/**
 * The admin secret, from a client address of its own: the app trusts
 * X-Forwarded-For here, so the admin limit (10 a minute per IP) does not
 * leak from one check to the next.
 */
const admin = () => ({ "x-admin-secret": "test-admin-secret", "x-forwarded-for": `203.0.113.${++client % 250}` })
const MiB = 1024 * 1024

interface RawReply {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
}

/**
 * A request through `node:http`, for what fetch will not send: a body without
 * Content-Length (chunked), written in pieces while the server may already
 * have answered and closed.
 */
const raw = (options: {
  readonly method: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly chunks?: ReadonlyArray<Buffer>
}) =>
  Effect.flatMap(TestServer, ({ url }) =>
    Effect.promise(() =>
      new Promise<RawReply>((resolve, reject) => {
        const req = httpRequest(url + options.path, { method: options.method, headers: options.headers })
        req.on("response", (res) => {
          const parts: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => parts.push(chunk))
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString("utf8") }))
          res.on("error", reject)
        })
        // The server may answer and close before the whole body is written.
        req.on("error", (error) =>
          setTimeout(() =>
            reject(error), 1_000))
        const write = async () => {
          for (const chunk of options.chunks ?? []) {
            if (req.destroyed) return
            if (!req.write(chunk)) await new Promise((r) => req.once("drain", r))
          }
          req.end()
        }
        write().catch(() => undefined)
      })
    ))

const json = (reply: RawReply): any => JSON.parse(reply.text)

/** The shared Error-shape check, and what this file pins on every error: `details` on E_VALIDATION only, JSON, no stack. */
const assertExactError = (res: Reply, status: number, code: string) => {
  assertError(res, status, code)
  assert.strictEqual("details" in res.json, code === "E_VALIDATION", res.text)
  assert.isAbove(res.json.error.length, 0)
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/)
  assertNoStack(res.text)
}

const assertNoStack = (text: string) => {
  assert.notMatch(text, /\n[ \t]+at |node_modules|\.ts:\d+|stack/i, "a stack trace leaked into a body")
}

layer(testApp({ trustProxy: true }), { timeout: 60_000, excludeTestServices: true })("HTTP core", (it) => {
  it.effect("every response carries a request id, the error ones in the body too", () =>
    Effect.gen(function*() {
      const { customerId, apiKey } = yield* provision({ email: "ids@example.com", status: "active" })
      const auth = { authorization: `Bearer ${apiKey}` }
      const replies: Array<readonly [string, Reply]> = [
        ["health", yield* call("GET", "/api/health")],
        ["ready", yield* call("GET", "/api/health/ready")],
        ["status", yield* call("GET", "/api/public/status")],
        ["openapi", yield* call("GET", "/openapi.json")],
        ["discovery", yield* call("GET", "/.well-known/oauth-protected-resource")],
        ["head", yield* call("HEAD", "/api/health")],
        ["customer", yield* call("GET", `/api/customer/${customerId}`, { headers: auth })],
        ["404", yield* call("GET", "/api/nothing-here")],
        ["405", yield* call("DELETE", "/api/health")],
        ["401", yield* call("GET", `/api/customer/${customerId}`)],
        [
          "415",
          yield* call("POST", `/api/customer/${customerId}/rotate-key`, {
            headers: { ...auth, "content-type": "text/plain" },
            body: "{}",
            raw: true
          })
        ],
        [
          "400",
          yield* call("POST", `/api/customer/${customerId}/rotate-key`, {
            headers: { ...auth, "content-type": "application/json" },
            body: "{",
            raw: true
          })
        ]
      ]
      const ids = new Set<string>()
      for (const [name, res] of replies) {
        const id = res.headers.get("x-request-id")
        assert.match(id ?? "", /^req_[0-9a-f]{32}$/, `${name} has no request id`)
        ids.add(id!)
        if (res.status >= 400) assert.strictEqual(res.json.requestId, id, name)
      }
      assert.strictEqual(ids.size, replies.length, "request ids are unique")
      assert.strictEqual(replies[5][1].status, 200)
      assert.strictEqual(replies[5][1].text, "")

      const big = yield* raw({
        method: "POST",
        path: "/api/admin/provision",
        headers: { ...admin(), "content-type": "application/json", "content-length": String(2 * MiB) },
        chunks: [Buffer.alloc(2 * MiB, 0x20)]
      })
      assert.strictEqual(big.status, 413)
      assert.strictEqual(json(big).requestId, big.headers["x-request-id"])
    }))

  it.effect("a well-formed incoming X-Request-ID is echoed, anything else replaced", () =>
    Effect.gen(function*() {
      for (const id of ["abcdefgh", "A1.b2_c3-d4", "x".repeat(128), "0123456789abcdef0123456789abcdef"]) {
        const ok = yield* call("GET", "/api/health", { headers: { "x-request-id": id } })
        assert.strictEqual(ok.headers.get("x-request-id"), id)
        const missing = yield* call("GET", "/api/missing", { headers: { "x-request-id": id } })
        assert.strictEqual(missing.headers.get("x-request-id"), id)
        assert.strictEqual(missing.json.requestId, id)
      }
      for (
        const id of ["short", "abc def ghi", "x".repeat(129), "semi;colon-1234", "quote\"1234567", "slash/12345678", ""]
      ) {
        const res = yield* call("GET", "/api/missing", { headers: { "x-request-id": id } })
        const got = res.headers.get("x-request-id")
        assert.notStrictEqual(got, id)
        assert.match(got ?? "", /^req_[0-9a-f]{32}$/)
        assert.strictEqual(res.json.requestId, got)
      }
    }))

  it.effect("unknown routes are 404, known paths with another method 405 with Allow", () =>
    Effect.gen(function*() {
      assertExactError(yield* call("GET", "/api/does-not-exist"), 404, "E_NOT_FOUND")
      assertExactError(yield* call("POST", "/nope/nope/nope", { body: {} }), 404, "E_NOT_FOUND")
      // `/` is the home page (discovery); any other unknown path is 404.
      assertExactError(yield* call("GET", "/nope"), 404, "E_NOT_FOUND")

      const wrong = yield* call("DELETE", "/api/health")
      assertExactError(wrong, 405, "E_METHOD_NOT_ALLOWED")
      assert.strictEqual(wrong.headers.get("allow"), "GET, HEAD, OPTIONS")

      const post = yield* call("GET", "/api/admin/provision")
      assertExactError(post, 405, "E_METHOD_NOT_ALLOWED")
      assert.strictEqual(post.headers.get("allow"), "POST, OPTIONS")

      const put = yield* call("PUT", "/api/customer/abc/rotate-key", { body: {} })
      assertExactError(put, 405, "E_METHOD_NOT_ALLOWED")
      assert.strictEqual(put.headers.get("allow"), "POST, OPTIONS")

      const options = yield* call("OPTIONS", "/api/health")
      assert.strictEqual(options.status, 204)
      assert.include(options.headers.get("allow") ?? "", "GET")
      assert.isString(options.headers.get("x-request-id"))
    }))

  it.effect("bodies over 1 MiB are 413, with or without Content-Length", () =>
    Effect.gen(function*() {
      const { customerId, apiKey } = yield* provision({ email: "big@example.com", status: "active" })
      const targets = [
        { path: "/api/admin/provision", headers: admin() },
        { path: `/api/customer/${customerId}/rotate-key`, headers: { authorization: `Bearer ${apiKey}` } },
        // 413 comes before authentication, however the body is framed.
        { path: `/api/customer/${customerId}/rotate-key`, headers: {} },
        { path: `/api/customer/${customerId}/rotate-key`, headers: { authorization: "Bearer svc_live_nope" } }
      ]
      for (const target of targets) {
        const declared = yield* raw({
          method: "POST",
          path: target.path,
          headers: { ...target.headers, "content-type": "application/json", "content-length": String(MiB + 1) },
          chunks: [Buffer.alloc(MiB + 1, 0x20)]
        })
        assert.strictEqual(declared.status, 413, declared.text)
        assert.strictEqual(json(declared).code, "E_PAYLOAD_TOO_LARGE")
        assert.strictEqual(json(declared).requestId, declared.headers["x-request-id"])

        const chunked = yield* raw({
          method: "POST",
          path: target.path,
          headers: { ...target.headers, "content-type": "application/json", "transfer-encoding": "chunked" },
          chunks: Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 0x20))
        })
        assert.strictEqual(chunked.status, 413, chunked.text)
        assert.deepStrictEqual(Object.keys(json(chunked)).sort(), ["code", "error", "requestId"])
        assert.strictEqual(json(chunked).code, "E_PAYLOAD_TOO_LARGE")
        assert.strictEqual(json(chunked).requestId, chunked.headers["x-request-id"])
      }
      // Exactly 1 MiB is allowed through to validation.
      const limit = yield* raw({
        method: "POST",
        path: "/api/admin/provision",
        headers: { ...admin(), "content-type": "application/json" },
        chunks: [Buffer.from(JSON.stringify({ email: "x".repeat(MiB - 20) }).padEnd(MiB, " "))]
      })
      assert.strictEqual(limit.status, 400, limit.text)
      assert.strictEqual(json(limit).code, "E_VALIDATION")
    }))

  it.effect("wrong content type 415, malformed JSON 400, schema failures 400 with details", () =>
    Effect.gen(function*() {
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
        const res = yield* call("POST", "/api/admin/provision", {
          headers: { ...admin(), "content-type": type },
          body: "email=a@b.co",
          raw: true
        })
        assertExactError(res, 415, "E_UNSUPPORTED_MEDIA_TYPE")
      }
      for (const body of ["{", "{\"email\":", "not json", "{'email':'a@b.co'}", "[1,2,"]) {
        const res = yield* call("POST", "/api/admin/provision", {
          headers: { ...admin(), "content-type": "application/json" },
          body,
          raw: true
        })
        assertExactError(res, 400, "E_MALFORMED_JSON")
      }
      const invalid = yield* call("POST", "/api/admin/provision", {
        headers: admin(),
        body: { email: "not-an-email", status: "dormant" }
      })
      assertExactError(invalid, 400, "E_VALIDATION")
      const paths = invalid.json.details.map((d: { path: string }) => d.path).sort()
      assert.deepStrictEqual(paths, ["body.email", "body.status"])
      for (const detail of invalid.json.details) {
        assert.deepStrictEqual(Object.keys(detail).sort(), ["message", "path"])
        assert.isString(detail.message)
      }
      assert.include(invalid.json.error, "body.")

      const extra = yield* call("POST", "/api/admin/provision", {
        headers: admin(),
        body: { email: "a@b.co", admin: true }
      })
      assertExactError(extra, 400, "E_VALIDATION")
      assert.strictEqual(extra.json.details[0].path, "body.admin")

      const wrongType = yield* call("POST", "/api/admin/provision", { headers: admin(), body: [1, 2, 3] })
      assertExactError(wrongType, 400, "E_VALIDATION")

      const { customerId, apiKey } = yield* provision({ email: "query@example.com", status: "active" })
      const query = yield* call("GET", `/api/events/${customerId}?limit=0`, {
        headers: { authorization: `Bearer ${apiKey}` }
      })
      assertExactError(query, 400, "E_VALIDATION")
      assert.strictEqual(query.json.details[0].path, "query.limit")
    }))

  it.effect("authentication errors have the Error shape and a Bearer challenge", () =>
    Effect.gen(function*() {
      const missing = yield* call("GET", "/api/customer/00000000-0000-0000-0000-000000000000")
      assertExactError(missing, 401, "E_AUTH_REQUIRED")
      assert.strictEqual(missing.json.error, "Authorization header required")
      assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer realm="herald"/)
      const bad = yield* call("GET", "/api/customer/00000000-0000-0000-0000-000000000000", {
        headers: { authorization: "Basic Zm9vOmJhcg==" }
      })
      assertExactError(bad, 401, "E_INVALID_API_KEY")
      const adminless = yield* call("POST", "/api/admin/provision", { body: { email: "a@b.co" } })
      assertExactError(adminless, 401, "E_ADMIN_AUTH")
    }))

  it.effect("a literal path answers as the router answers it: every spec path without parameters, every method", () =>
    Effect.gen(function*() {
      // A literal path's route is found once at start-up; with a query the same path goes through the
      // router and the route facts on every request. Both must give the same status and error code.
      const literal = allRoutes().filter(([, path]) => !path.includes(":") && !path.includes("*"))
      assert.isAbove(literal.length, 20)
      const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
      let compared = 0
      for (const [, path] of literal) {
        // Only those answered without side effects: anonymous, with an empty JSON body where one is taken.
        for (const method of methods) {
          // Each pair from an address of its own, so that no rate limit turns between its two requests.
          const headers = { "x-forwarded-for": `198.51.100.${compared % 250}` }
          const options = method === "GET" || method === "HEAD" || method === "OPTIONS"
            ? { headers }
            : { headers, body: {} }
          const direct = yield* call(method, path, options)
          const routed = yield* call(method, `${path}?`, options)
          const codeOf = (reply: typeof direct) =>
            reply.text.startsWith("{") && reply.status >= 400 ? String(reply.json.code) : ""
          assert.strictEqual(direct.status, routed.status, `${method} ${path}`)
          assert.strictEqual(codeOf(direct), codeOf(routed), `${method} ${path}`)
          assert.strictEqual(direct.headers.get("allow"), routed.headers.get("allow"), `${method} ${path}`)
          compared++
        }
      }
      assert.isAbove(compared, 100)
    }))

  it.effect("a trailing slash is tolerated", () =>
    Effect.gen(function*() {
      const health = yield* call("GET", "/api/health/")
      assert.strictEqual(health.status, 200)
      assert.strictEqual(health.json.service, "herald")
      assert.strictEqual((yield* call("GET", "/api/health/ready/")).status, 200)
      assert.strictEqual((yield* call("GET", "/openapi.json/")).status, 200)
      const { customerId, apiKey } = yield* provision({ email: "slash@example.com", status: "active" })
      const customer = yield* call("GET", `/api/customer/${customerId}/`, {
        headers: { authorization: `Bearer ${apiKey}` }
      })
      assert.strictEqual(customer.status, 200, customer.text)
      assert.strictEqual(customer.json.id, customerId)
      const provisioned = yield* call("POST", "/api/admin/provision/", {
        headers: admin(),
        body: { email: "s2@example.com" }
      })
      assert.strictEqual(provisioned.status, 200, provisioned.text)
      assertExactError(yield* call("DELETE", "/api/health/"), 405, "E_METHOD_NOT_ALLOWED")
    }))

  it.effect("an absolute-form target is served by its path; HEAD answers GET's head with no body", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const { port } = new URL(url)
      // fetch and node:http always send origin-form targets, so this goes over a plain socket.
      const exchange = (head: string) =>
        Effect.promise(() =>
          new Promise<string>((resolve, reject) => {
            const socket = connect(Number(port), "127.0.0.1", () => socket.end(head))
            let text = ""
            socket.on("data", (chunk) => (text += chunk.toString("utf8")))
            socket.on("end", () => resolve(text))
            socket.on("error", reject)
          })
        )
      const absolute = yield* exchange(
        "GET http://herald.example/api/health HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n"
      )
      assert.match(absolute, /^HTTP\/1\.1 200 OK\r\n/)
      assert.match(absolute, /\r\nx-request-id: req_[0-9a-f]{32}\r\n/i)
      assert.match(absolute, /\r\n\r\n\{"service":"herald","status":"ok","timestamp":"[^"]+"\}$/)
      const head = yield* exchange("HEAD /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
      assert.match(head, /^HTTP\/1\.1 200 OK\r\n/)
      assert.match(head, /\r\ncontent-type: application\/json/i)
      assert.match(head, /\r\nx-content-type-options: nosniff\r\n/i)
      assert.isTrue(head.endsWith("\r\n\r\n"), `a HEAD answer carried a body: ${JSON.stringify(head)}`)
    }))

  it.effect("readiness body is {service, status, timestamp}; components only with the admin secret", () =>
    Effect.gen(function*() {
      const plain = yield* call("GET", "/api/health/ready")
      assert.strictEqual(plain.status, 200)
      assert.deepStrictEqual(Object.keys(plain.json).sort(), ["service", "status", "timestamp"])
      assert.strictEqual(plain.json.service, "herald")
      assert.include(["ok", "degraded"], plain.json.status)
      assert.isBelow(Math.abs(Date.parse(plain.json.timestamp) - Date.now()), 60_000)
      for (const secret of ["wrong", "test-admin-secre", "test-admin-secret-", ""]) {
        const wrong = yield* call("GET", "/api/health/ready", { headers: { "x-admin-secret": secret } })
        assert.strictEqual(wrong.status, 200)
        assert.deepStrictEqual(Object.keys(wrong.json).sort(), ["service", "status", "timestamp"])
      }
      const detailed = yield* call("GET", "/api/health/ready", { headers: admin() })
      assert.deepStrictEqual(Object.keys(detailed.json).sort(), ["components", "service", "status", "timestamp"])
      for (const component of detailed.json.components) {
        assert.isString(component.name)
        assert.include(["ok", "degraded", "down"], component.status)
        assert.isNumber(component.latencyMs)
      }
      assert.deepInclude(detailed.json.components.map((c: any) => c.name), "database")

      const live = yield* call("GET", "/api/health")
      assert.deepStrictEqual(Object.keys(live.json).sort(), ["service", "status", "timestamp"])
      const status = yield* call("GET", "/api/public/status")
      assert.deepStrictEqual(
        Object.keys(status.json).sort(),
        ["components", "incidents", "status", "timestamp", "uptime24h", "uptime7d"]
      )
      assert.isBelow(Math.abs(Date.parse(status.json.timestamp) - Date.now()), 60_000)
    }))
})
