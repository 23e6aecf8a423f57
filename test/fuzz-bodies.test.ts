import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { send, testApp, TestServer } from "./support/harness.ts"
import { authenticatedEndpoints, bearer, provision, type Provisioned, randomIp } from "./support/processes.ts"

/**
 * Endpoint-aware fuzzing: every authenticated route of the HttpApi, its body
 * and query built from the field names the OpenAPI document gives it, filled
 * with values a database or a JSON codec may choke on. New routes and fields
 * join by themselves. Whatever comes in, the answer is below 500 and in the
 * Error shape.
 */

type Json = any

const hostileString = fc.oneof(
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfff",
    "\u202e",
    "\ufeff",
    "'; DROP TABLE customers; --",
    "%00",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "${7*7}",
    "null",
    "true",
    "-1",
    "1e999",
    " ",
    "",
    "javascript:alert(1)",
    "http://127.0.0.1/",
    "https://[::1]/",
    "https://example.com/" + "a".repeat(3000),
    "é".repeat(40),
    "😀".repeat(30)
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ maxLength: 20 })
)

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 0.5, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 2147483648),
  fc.double({ noNaN: true, noDefaultInfinity: true })
)

const nested = (depth: number): Json => {
  let value: Json = "deep"
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { k: value } : [value]
  return value
}

const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 25 }),
  fc.dictionary(hostileString, fc.oneof(hostileString, hostileNumber, fc.constant(null)), { maxKeys: 5 }),
  fc.integer({ min: 1, max: 40 }).map(nested),
  fc.jsonValue({ maxDepth: 3 })
)

interface Target {
  readonly id: string
  readonly method: string
  readonly fill: (customerId: string, other?: string) => string
  readonly bodyFields: ReadonlyArray<string>
  readonly queryFields: ReadonlyArray<string>
  readonly hasBody: boolean
  readonly example: Json
  /** The statuses /openapi.json lists for the operation: every answer must be one of them. */
  readonly documented: ReadonlySet<string>
}

/** Field names of a JSON schema, through `$ref`, `anyOf` and `oneOf`. */
const fieldsOf = (schema: Json, doc: Json, seen = new Set<string>()): Array<string> => {
  if (schema === undefined || schema === null) return []
  if (typeof schema.$ref === "string") {
    if (seen.has(schema.$ref)) return []
    seen.add(schema.$ref)
    return fieldsOf(doc.components.schemas[schema.$ref.split("/").pop()], doc, seen)
  }
  const own = Object.keys(schema.properties ?? {})
  const members = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]
  return [...new Set([...own, ...members.flatMap((m: Json) => fieldsOf(m, doc, seen))])]
}

/**
 * A value the schema accepts, so that one hostile field at a time reaches
 * the code behind validation (a random `type` would stop every body there).
 */
const exampleOf = (schema: Json, doc: Json, depth = 0): Json => {
  if (schema === undefined || schema === null || depth > 6) return null
  if (typeof schema.$ref === "string") {
    return exampleOf(doc.components.schemas[schema.$ref.split("/").pop()], doc, depth + 1)
  }
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[0]
  const members = schema.anyOf ?? schema.oneOf
  if (Array.isArray(members)) {
    return exampleOf(members.find((m: Json) => m.type !== "null") ?? members[0], doc, depth + 1)
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign(
      {},
      ...schema.allOf.map((m: Json) => exampleOf(m, doc, depth + 1))
    )
  }
  switch (schema.type) {
    case "object": {
      const out: Record<string, Json> = {}
      for (const name of schema.required ?? []) out[name] = exampleOf(schema.properties?.[name], doc, depth + 1)
      return out
    }
    case "array":
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(schema.items, doc, depth + 1))
    case "string":
      return schema.format === "email"
        ? "fuzz@example.com"
        : schema.format === "uri"
        ? "http://127.0.0.1:9/hook"
        : schema.format === "date-time"
        ? new Date().toISOString()
        : "x".repeat(Math.max(1, schema.minLength ?? 1))
    case "integer":
    case "number":
      return schema.minimum ?? 1
    case "boolean":
      return true
    default:
      return null
  }
}

const targets = (doc: Json): ReadonlyArray<Target> =>
  authenticatedEndpoints().map((endpoint) => {
    const openApiPath = endpoint.path.replace(/:(\w+)/g, "{$1}")
    const operation = doc.paths[openApiPath]?.[endpoint.method.toLowerCase()]
    assert.isDefined(operation, `${endpoint.id} is in /openapi.json`)
    return {
      id: endpoint.id,
      method: endpoint.method,
      fill: endpoint.fill,
      bodyFields: fieldsOf(operation.requestBody?.content?.["application/json"]?.schema, doc),
      queryFields: (operation.parameters ?? []).filter((p: Json) => p.in === "query").map((p: Json) => p.name),
      hasBody: operation.requestBody !== undefined,
      example: exampleOf(operation.requestBody?.content?.["application/json"]?.schema, doc),
      documented: new Set(Object.keys(operation.responses))
    }
  })

/** False when the URL parser rewrites the path (an id of `.`, `..` or `%2e%2e`), so the request goes to another route. */
const reachesTarget = (baseUrl: string, path: string) => new URL(baseUrl + path).pathname === path

const requestFor = (target: Target) =>
  fc.record({
    // A valid body with some of its known fields (sometimes unknown ones) replaced.
    body: fc.dictionary(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...(target.bodyFields.length > 0 ? target.bodyFields : ["x"])) },
        hostileString
      ),
      hostileValue,
      { maxKeys: 2 }
    ),
    // Now and then the whole body is something else entirely.
    wholeBody: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostileValue }),
    query: fc.dictionary(
      fc.constantFrom(...(target.queryFields.length > 0 ? target.queryFields : ["q"])),
      fc.oneof(hostileString, hostileNumber.map(String)),
      { maxKeys: 3 }
    ),
    pathId: fc.oneof(fc.constant("cnt_00000000000000000000000000000000"), hostileString.filter((s) => s.length > 0))
  })

layer(testApp({ trustProxy: true }), { timeout: 90_000, excludeTestServices: true })("fuzz by endpoint", (it) => {
  it.effect(
    "hostile bodies, queries and ids on every authenticated route never get a 5xx",
    () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { url } = server
        const doc = yield* Effect.promise(() => fetch(`${url}/openapi.json`).then((r) => r.json()))
        const all = targets(doc)
        assert.isAbove(all.length, 10)

        // The REST limit is 60 a minute per customer: a fresh customer every 50 requests.
        let customer: Provisioned = yield* provision({ status: "active" })
        let used = 0
        const next = Effect.gen(function*() {
          if (++used % 50 === 0) customer = yield* provision({ status: "active" })
          return customer
        })

        const check = async (target: Target, path: string, body: Json, query = "") => {
          const owner = await Effect.runPromise(next.pipe(Effect.provideService(TestServer, server)))
          const filled = target.fill(owner.customerId, path)
          const res = await send(url, target.method, query === "" ? filled : `${filled}?${query}`, {
            headers: bearer(owner.apiKey, { "x-forwarded-for": randomIp(), "content-type": "application/json" }),
            ...(target.hasBody ? { body: JSON.stringify(body), raw: true as const } : {})
          })
          const context = `${target.id}: ${target.method} ${filled}?${query}\n${
            JSON.stringify(body).slice(0, 300)
          }\n=> ${res.status} ${res.text.slice(0, 300)}`
          assert.isBelow(res.status, 500, context)
          if (reachesTarget(url, filled)) {
            assert.isTrue(target.documented.has(String(res.status)), `undocumented status\n${context}`)
          }
          assert.notStrictEqual(res.status, 429, context)
          if (res.status >= 400) {
            assert.isString(res.json?.error, context)
            assert.isString(res.json?.code, context)
            assert.strictEqual(res.json.requestId, res.headers.get("x-request-id"), context)
          }
          if (
            res.status === 200 && typeof res.json?.apiKey === "string" && target.id.startsWith("customers.rotateKey")
          ) {
            customer = { ...customer, apiKey: res.json.apiKey }
          }
        }

        // First every field of every route with each poison, one at a time: what random runs would rarely combine.
        const poisons: ReadonlyArray<Json> = [
          "a\u0000b",
          "x\ud800",
          { "k\u0000": 1 },
          { k: ["\udfff"] },
          nested(40),
          null,
          1e308
        ]
        for (const target of all) {
          const base = typeof target.example === "object" && target.example !== null ? target.example : {}
          for (const field of target.bodyFields) {
            for (const poison of poisons) {
              yield* Effect.promise(() => check(target, "cnt_1", { ...base, [field]: poison }))
            }
          }
          for (const field of target.queryFields) {
            for (const poison of ["a%00b", "%ED%A0%80", "-1", "1e3", "x".repeat(2000)]) {
              yield* Effect.promise(() => check(target, "cnt_1", base, `${field}=${poison}`))
            }
          }
          if (target.fill("c", "ID").includes("ID")) {
            for (const id of ["a%00b", "%ED%A0%80", "x".repeat(300), "%2e%2e"]) {
              yield* Effect.promise(() => check(target, id, base))
            }
          }
        }

        const arbitrary = fc.constantFrom(...all).chain((target) =>
          requestFor(target).map((request) => ({ target, request }))
        )
        // A time-bounded run: say how many cases it got through (a slow machine runs fewer).
        let ran = 0
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(arbitrary, async ({ request, target }) => {
              ran++
              const owner = await Effect.runPromise(next.pipe(Effect.provideService(TestServer, server)))
              const path = target.fill(owner.customerId, encodeURIComponent(request.pathId.toWellFormed()))
              const query = new URLSearchParams(
                Object.entries(request.query).map(([k, v]) => [k, v.toWellFormed()] as [string, string])
              ).toString()
              const base =
                typeof target.example === "object" && target.example !== null && !Array.isArray(target.example)
                  ? target.example
                  : {}
              const body = request.wholeBody !== undefined ? request.wholeBody : { ...base, ...request.body }
              const res = await send(url, target.method, query === "" ? path : `${path}?${query}`, {
                headers: bearer(owner.apiKey, { "x-forwarded-for": randomIp(), "content-type": "application/json" }),
                ...(target.hasBody ? { body: JSON.stringify(body), raw: true as const } : {})
              })
              const context = `${target.id}: ${target.method} ${path}?${query}\n${
                JSON.stringify(body).slice(0, 300)
              }\n=> ${res.status} ${res.text.slice(0, 300)}`
              assert.isBelow(res.status, 500, context)
              if (reachesTarget(url, path)) {
                assert.isTrue(target.documented.has(String(res.status)), `undocumented status\n${context}`)
              }
              // Rotation revokes the key in hand: go on with the new one.
              if (
                res.status === 200 && typeof res.json?.apiKey === "string" &&
                target.id.startsWith("customers.rotateKey")
              ) {
                customer = { ...customer, apiKey: res.json.apiKey }
              }
              assert.notStrictEqual(res.status, 429, context)
              if (res.status >= 400) {
                assert.isString(res.json?.error, context)
                assert.isString(res.json?.code, context)
                assert.strictEqual(res.json.requestId, res.headers.get("x-request-id"), context)
              }
            }),
            { numRuns: 600, interruptAfterTimeLimit: 45_000, markInterruptAsFailure: false, endOnFailure: true }
          )
        )
        console.info(`fuzz-bodies: ${ran} of 600 cases ran`)
        assert.isAtLeast(ran, 60, "the time limit cut the run to too few cases to mean anything")
      }),
    { timeout: 80_000 }
  )
})
