import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Api } from "../src/api/Api.ts"
import { call, testApp } from "./support/harness.ts"

const redoclyCli = createRequire(import.meta.url).resolve("@redocly/cli/bin/cli.js")

interface LintReport {
  readonly totals: { readonly errors: number; readonly warnings: number }
  readonly problems: ReadonlyArray<
    {
      readonly ruleId: string
      readonly severity: string
      readonly message: string
      readonly location: ReadonlyArray<{ readonly pointer: string }>
    }
  >
}

/** `redocly lint` (recommended rules, which include the OpenAPI 3.1 structural schema) on a document. */
const lint = (document: unknown) =>
  Effect.promise(() =>
    new Promise<LintReport>((resolve, reject) => {
      const dir = mkdtempSync(join(tmpdir(), "herald-openapi-"))
      const file = join(dir, "openapi.json")
      writeFileSync(file, JSON.stringify(document, null, 2))
      execFile(
        process.execPath,
        [redoclyCli, "lint", file, "--format", "json", "--extends", "recommended"],
        {
          cwd: dir,
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", CI: "true" },
          maxBuffer: 16 * 1024 * 1024,
          timeout: 30_000
        },
        (error, stdout, stderr) => {
          rmSync(dir, { recursive: true, force: true })
          try {
            resolve(JSON.parse(stdout) as LintReport)
          } catch {
            reject(error ?? new Error(`redocly printed no report: ${stderr}`))
          }
        }
      )
    })
  )

const methods = ["get", "put", "post", "delete", "patch", "head", "options"] as const

const baseUrl = "https://herald.example.test"

const errorRef = "#/components/schemas/Error"

/** The Error schema, or a component extending it (`allOf` the Error shape and more fields). */
const isErrorShape = (doc: any, schema: any): boolean => {
  if (schema?.$ref === errorRef) return true
  const name = typeof schema?.$ref === "string" ? schema.$ref.split("/").pop() : undefined
  return name !== undefined && doc.components.schemas[name]?.allOf?.[0]?.$ref === errorRef
}

layer(testApp({ baseUrl }), { timeout: 60_000, excludeTestServices: true })("OpenAPI document", (it) => {
  it.effect("is OpenAPI 3.1.0 with version, title and BASE_URL as its server", () =>
    Effect.gen(function*() {
      const res = yield* call("GET", "/openapi.json")
      assert.strictEqual(res.status, 200)
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/)
      const doc = res.json
      assert.strictEqual(doc.openapi, "3.1.0")
      assert.strictEqual(doc.info.version, "1.0.0")
      assert.strictEqual(doc.info.title, "Herald API")
      assert.isString(doc.info.description)
      assert.strictEqual(doc.servers[0].url, baseUrl)
      assert.deepStrictEqual(doc.components.schemas.Error.required, ["error", "code", "requestId"])
    }))

  it.effect("lists every endpoint of the Api", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/openapi.json")).json
      const missing: Array<string> = []
      for (const group of Object.values(Api.groups)) {
        for (const endpoint of Object.values(group.endpoints)) {
          const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
          if (doc.paths[path]?.[endpoint.method.toLowerCase()] === undefined) missing.push(`${endpoint.method} ${path}`)
        }
      }
      assert.deepStrictEqual(missing, [])
      const operationIds = Object.values<any>(doc.paths).flatMap((item) =>
        methods.filter((m) => item[m] !== undefined).map((m) => item[m].operationId)
      )
      assert.strictEqual(new Set(operationIds).size, operationIds.length, "operationIds are unique")
    }))

  it.effect("lists the routes outside the Api: the orchestrator with its signature header, and the MCP transports with what they answer", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/openapi.json")).json
      for (const method of ["get", "put", "post"]) {
        const operation = doc.paths["/api/orchestrator"][method]
        const signature = operation.parameters.find((p: any) => p.name === "X-Orchestrator-Signature")
        assert.strictEqual(signature?.in, "header", method)
        assert.isTrue(signature.required)
        assert.include(operation.responses["401"].description, "E_SIGNATURE_INVALID")
        assert.isUndefined(
          operation.responses["401"].headers["WWW-Authenticate"],
          "no Bearer challenge: the signature authenticates"
        )
      }
      assert.deepStrictEqual(
        doc.paths["/api/orchestrator"].post.requestBody.content["application/json"].schema.required,
        ["workflow", "customerId"]
      )
      const mcp = doc.paths["/mcp"]
      assert.hasAllKeys(mcp, ["get", "post", "delete"])
      assert.hasAllKeys(mcp.post.responses["200"].content, ["application/json", "text/event-stream"])
      assert.isDefined(mcp.post.responses["401"].headers["WWW-Authenticate"])
      assert.include(mcp.get.responses["404"].description, "E_NOT_FOUND")
      assert.hasAllKeys(doc.paths["/mcp/sse"].get.responses["200"].content, ["text/event-stream"])
      const message = doc.paths["/mcp/message"].post
      assert.hasAllKeys(message.responses["202"].content, ["text/plain"])
      assert.include(message.responses["400"].description, "E_SESSION_NOT_FOUND")
      assert.isTrue(message.parameters.find((p: any) => p.name === "sessionId").required)
      assert.isUndefined(message.parameters.find((p: any) => p.name === "Idempotency-Key"))
    }))

  it.effect("every 4xx and 5xx response is the Error schema (or extends it)", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/openapi.json")).json
      const wrong: Array<string> = []
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        for (const method of methods) {
          const operation = item[method]
          if (operation === undefined) continue
          assert.isDefined(operation.responses["500"], `${method} ${path} documents no 500`)
          // The OAuth endpoints answer errors as OAuth clients read them ({error, error_description}).
          if (operation.tags?.includes("oauth") === true) continue
          for (const [status, response] of Object.entries<any>(operation.responses)) {
            if (Number(status) < 400) continue
            const content = response.content
            const schema = content?.["application/json"]?.schema
            if (!isErrorShape(doc, schema) || Object.keys(content).length !== 1) {
              wrong.push(`${method.toUpperCase()} ${path} ${status}`)
            }
          }
        }
      }
      assert.deepStrictEqual(wrong, [])
      // Authenticated operations document their 401.
      const customer = doc.paths["/api/customer/{customerId}"].get
      assert.isDefined(customer.responses["401"])
    }))

  it.effect("passes redocly lint with no errors", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/openapi.json")).json
      const report = yield* lint(doc)
      const errors = report.problems.filter((p) => p.severity === "error")
        .map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ""}: ${p.message}`)
      assert.deepStrictEqual(errors, [])
      assert.strictEqual(report.totals.errors, 0)
    }), { timeout: 40_000 })
})
