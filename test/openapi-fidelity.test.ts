import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp } from "./support/harness.ts"
import { assertError, bearer, provision } from "./support/processes.ts"

const methods = ["get", "put", "post", "delete", "patch"] as const

/** The document once per file: every test reads the same one. */
const openApi = Effect.map(call("GET", "/openapi.json"), (res) => res.json)

const operations = (doc: any) =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    methods.filter((method) => item[method] !== undefined).map((method) => ({ path, method, operation: item[method] }))
  )

const parameter = (operation: any, location: string, name: string) =>
  operation.parameters?.find((p: any) => p.in === location && p.name === name)

const resolve = (doc: any, schema: any) =>
  typeof schema?.$ref === "string" ? doc.components.schemas[schema.$ref.split("/").pop()] : schema

/** The member of a nullable `anyOf` that is not null. */
const nonNull = (schema: any) => schema.anyOf?.find((member: any) => member.type !== "null") ?? schema

layer(testApp({ trustProxy: true }), { timeout: 60_000 })("OpenAPI fidelity", (it) => {
  it.effect("responses document the headers the server sends: request id, limits, Retry-After, the Bearer challenge", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      const header = (response: any, name: string) => {
        const ref = response.headers?.[name]?.$ref
        return typeof ref === "string" ? doc.components.headers[ref.split("/").pop()!] : undefined
      }
      for (const { path, method, operation } of operations(doc)) {
        const bearerRoute = (operation.security ?? []).some((r: any) => "bearer" in r)
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          const where = `${method} ${path} ${status}`
          assert.isTrue(header(response, "X-Request-ID")?.required, where)
          if (status === "429") {
            assert.deepStrictEqual(header(response, "Retry-After")?.schema, { type: "integer", minimum: 1 }, where)
            assert.isDefined(header(response, "RateLimit-Policy"), where)
            assert.isDefined(header(response, "RateLimit"), where)
          }
          if (status === "401") {
            assert.strictEqual(header(response, "WWW-Authenticate") !== undefined, bearerRoute, where)
          }
        }
      }

      // What one limited route documents, it sends.
      const a = yield* provision({ status: "active" })
      const res = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(a.apiKey) })
      for (const name of Object.keys(doc.paths["/api/customer/{customerId}"].get.responses["200"].headers)) {
        assert.isNotNull(res.headers.get(name), name)
      }
      const denied = yield* call("GET", `/api/customer/${a.customerId}`, {
        headers: bearer("svc_live_" + "0".repeat(64))
      })
      for (const name of Object.keys(doc.paths["/api/customer/{customerId}"].get.responses["401"].headers)) {
        assert.isNotNull(denied.headers.get(name), name)
      }
    }))

  it.effect("limit query parameters are integers with their bounds; events shows its default", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      const limits = [
        ["/api/events/{customerId}", 1, 200],
        ["/api/content/{customerId}", 1, 100],
        ["/api/hooks/{customerId}/{webhookId}/deliveries", 1, 100]
      ] as const
      for (const [path, minimum, maximum] of limits) {
        const limit = parameter(doc.paths[path].get, "query", "limit")
        assert.isFalse(limit.required, path)
        assert.strictEqual(limit.schema.type, "integer", path)
        assert.strictEqual(limit.schema.minimum, minimum, path)
        assert.strictEqual(limit.schema.maximum, maximum, path)
      }
      assert.strictEqual(parameter(doc.paths["/api/events/{customerId}"].get, "query", "limit").schema.default, 50)
    }))

  // Needs `intQuery(1, 100, 25)` in src/api/Content.ts and `intQuery(1, 100, 50)` in src/api/Webhooks.ts.
  it.effect("content and deliveries limits show their defaults", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      assert.strictEqual(parameter(doc.paths["/api/content/{customerId}"].get, "query", "limit").schema.default, 25)
      const deliveries = doc.paths["/api/hooks/{customerId}/{webhookId}/deliveries"].get
      assert.strictEqual(parameter(deliveries, "query", "limit").schema.default, 50)
    }))

  it.effect("since is a date-time; customerId path parameters are uuids", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      const since = parameter(doc.paths["/api/events/{customerId}"].get, "query", "since")
      assert.deepStrictEqual(since.schema, { type: "string", format: "date-time" })
      for (const { path, method, operation } of operations(doc)) {
        if (!path.includes("{customerId}")) continue
        assert.strictEqual(parameter(operation, "path", "customerId")?.schema.format, "uuid", `${method} ${path}`)
      }
    }))

  it.effect("response numbers are plain numbers and integers with their bounds", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      const text = JSON.stringify(doc)
      assert.notInclude(text, "\"Infinity\"")
      assert.notInclude(text, "\"NaN\"")
      const schemas = doc.components.schemas
      assert.deepStrictEqual(schemas.PublicStatus.properties.uptime24h, { type: "number", minimum: 0, maximum: 1 })
      assert.deepStrictEqual(nonNull(schemas.PublicStatus.properties.uptime7d), {
        type: "number",
        minimum: 0,
        maximum: 1
      })
      const component = nonNull(schemas.HealthReady.properties.components).items
      assert.strictEqual(nonNull(component.properties.latencyMs).type, "number")
      const attempt = schemas.DeliveryAttempt.properties
      assert.strictEqual(attempt.attempt.type, "integer")
      assert.strictEqual(nonNull(attempt.statusCode).type, "integer")
      assert.strictEqual(attempt.durationMs.type, "integer")
    }))

  it.effect("timestamps are date-times and a webhook url is a uri", () =>
    Effect.gen(function*() {
      const schemas = (yield* openApi).components.schemas
      const timestamps = [
        schemas.Health.properties.timestamp,
        schemas.HealthReady.properties.timestamp,
        schemas.PublicStatus.properties.timestamp,
        schemas.Incident.properties.startedAt,
        nonNull(schemas.Incident.properties.resolvedAt)
      ]
      for (const timestamp of timestamps) assert.deepStrictEqual(timestamp, { type: "string", format: "date-time" })
      assert.deepStrictEqual(schemas.WebhookCreate.properties.url, { type: "string", maxLength: 2048, format: "uri" })
    }))

  it.effect("the readiness 503 is the Error shape plus service, status, timestamp and components", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      const body = resolve(doc, doc.paths["/api/health/ready"].get.responses["503"].content["application/json"].schema)
      assert.deepStrictEqual(body.allOf[0], { $ref: "#/components/schemas/Error" })
      const extra = body.allOf[1]
      assert.deepStrictEqual([...extra.required].sort(), ["service", "status", "timestamp"])
      assert.deepStrictEqual(Object.keys(extra.properties).sort(), [
        "code",
        "components",
        "service",
        "status",
        "timestamp"
      ])
      assert.deepStrictEqual(extra.properties.code.enum, ["E_UNAVAILABLE"])
      assert.strictEqual(extra.properties.timestamp.format, "date-time")
    }))

  it.effect("JSON bodies document 400 (validation and malformed JSON), 413 and 415; provision included", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      // OAuth registration answers its failures in RFC 7591's error shape (its own test covers them).
      const withBody = operations(doc).filter(({ operation }) =>
        operation.requestBody?.content?.["application/json"] && !(operation.tags ?? []).includes("oauth")
      )
      assert.isAtLeast(withBody.length, 10)
      assert.isDefined(withBody.find(({ path }) => path === "/api/admin/provision"))
      for (const { path, method, operation } of withBody) {
        const where = `${method} ${path}`
        assert.include(operation.responses["400"]?.description, "E_VALIDATION", where)
        assert.include(operation.responses["400"]?.description, "E_MALFORMED_JSON", where)
        for (const [status, code] of [["413", "E_PAYLOAD_TOO_LARGE"], ["415", "E_UNSUPPORTED_MEDIA_TYPE"]]) {
          // The orchestrator verifies the signature over the raw body, whatever its media type.
          if (path === "/api/orchestrator" && status === "415") continue
          const response = operation.responses[status]
          assert.include(response?.description, code, where)
          assert.deepStrictEqual(response.content, {
            "application/json": { schema: { $ref: "#/components/schemas/Error" } }
          }, where)
        }
      }
    }))

  it.effect("every POST declares the optional Idempotency-Key header; only POSTs list E_CONFLICT unless declared", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      for (const { path, method, operation } of operations(doc)) {
        const where = `${method} ${path}`
        const key = parameter(operation, "header", "Idempotency-Key")
        // The routes outside the Api (orchestrator, MCP, OAuth) replay nothing.
        const outside = (operation.tags ?? []).some((tag: string) =>
          tag === "mcp" || tag === "orchestrator" || tag === "oauth"
        )
        if (method === "post" && outside) assert.isUndefined(key, where)
        else if (method === "post") {
          assert.isDefined(key, where)
          assert.isFalse(key.required, where)
          assert.deepStrictEqual(key.schema, { type: "string", minLength: 1, maxLength: 255 }, where)
          assert.include(key.description, "24 hours", where)
          assert.include(key.description, "409", where)
        } else {
          assert.isUndefined(key, where)
          // The one GET that declares its own conflict: a sign-up refused at completion (one trial per address).
          if (where !== "get /api/session/{sessionId}") {
            assert.notInclude(operation.responses["409"]?.description ?? "", "E_CONFLICT", where)
          }
        }
      }
      // Listed where the endpoint itself can conflict, or where it can only come from a replayed key.
      assert.include(doc.paths["/api/team/{customerId}/members"].post.responses["409"].description, "E_CONFLICT")
      assert.isUndefined(doc.paths["/api/customer/{customerId}"].get.responses["409"])
      assert.include(doc.paths["/api/session/{sessionId}"].get.responses["409"].description, "E_CONFLICT")
      assert.include(doc.paths["/api/checkout"].post.responses["409"].description, "E_CONFLICT")
      assert.strictEqual(
        doc.paths["/api/content/{customerId}/{contentId}"].put.responses["409"].description,
        "Error: E_INVALID_TRANSITION"
      )
    }))

  it.effect("rotate-key and rotate-secret take no body", () =>
    Effect.gen(function*() {
      const doc = yield* openApi
      assert.isFalse(doc.paths["/api/customer/{customerId}/rotate-key"].post.requestBody.required)
      assert.isFalse(doc.paths["/api/hooks/{customerId}/{webhookId}/rotate-secret"].post.requestBody.required)
      assert.isTrue(doc.paths["/api/hooks/{customerId}"].post.requestBody.required)
    }))

  it.effect("/openapi.json is readable from any origin, like the other discovery documents", () =>
    Effect.gen(function*() {
      const res = yield* call("GET", "/openapi.json", { headers: { origin: "https://elsewhere.example" } })
      assert.strictEqual(res.status, 200)
      assert.strictEqual(res.headers.get("access-control-allow-origin"), "*")
      const metadata = yield* call("GET", "/.well-known/oauth-protected-resource")
      assert.strictEqual(res.headers.get("cache-control"), metadata.headers.get("cache-control"))
    }))

  it.effect("limit takes plain decimal digits only", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const paths = [`/api/events/${a.customerId}`, `/api/content/${a.customerId}`]
      for (const path of paths) {
        for (const limit of ["0x10", "+5", "1e1", "%205", "5%20", "5.0", "1_0", "%EF%BC%95", "0b1", "Infinity"]) {
          const res = yield* call("GET", `${path}?limit=${limit}`, { headers: bearer(a.apiKey) })
          assertError(res, 400, "E_VALIDATION")
          assert.strictEqual(res.json.details[0].path, "query.limit", `${path} limit=${limit}: ${res.text}`)
        }
        for (const limit of ["5", "05", "1"]) {
          const res = yield* call("GET", `${path}?limit=${limit}`, { headers: bearer(a.apiKey) })
          assert.strictEqual(res.status, 200, `${path} limit=${limit}: ${res.text}`)
        }
      }
    }))

  it.effect("since must be an RFC 3339 instant: seconds given, no rolled-over days, hours or offsets", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const path = `/api/events/${a.customerId}`
      const impossible = [
        "2020-02-31T00:00:00Z",
        "2021-02-29T00:00:00Z",
        "2020-04-31T12:00:00Z",
        "2020-00-10T00:00:00Z",
        "2020-01-00T00:00:00Z",
        "2020-01-01T24:00:00Z",
        "2020-01-01T23:60:00Z",
        "2020-01-01T23:59:60Z",
        "2020-01-01T00:00:00+24:00",
        "2020-01-01T00:00:00+01:60",
        // RFC 3339, the OpenAPI date-time format, has no time without seconds.
        "2021-06-30T10:00Z"
      ]
      for (const since of impossible) {
        const res = yield* call("GET", `${path}?since=${encodeURIComponent(since)}`, { headers: bearer(a.apiKey) })
        assertError(res, 400, "E_VALIDATION")
        assert.strictEqual(res.json.details[0].path, "query.since", `${since}: ${res.text}`)
      }
      for (const since of ["2020-02-29T00:00:00Z", "2019-12-31T23:59:59.999+05:30", "2021-06-30T10:00:00-02:00"]) {
        const res = yield* call("GET", `${path}?since=${encodeURIComponent(since)}`, { headers: bearer(a.apiKey) })
        assert.strictEqual(res.status, 200, `${since}: ${res.text}`)
      }
    }))
})
