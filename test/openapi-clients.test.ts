import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"
import * as Errors from "../src/domain/Errors.ts"
import { eventTypes } from "../src/domain/EventTypes.ts"
import { webhookEventTypes } from "../src/domain/WebhookEvents.ts"
import { openApiDocument } from "../src/platform/http/OpenApiDocument.ts"

const doc = openApiDocument("https://herald.example.test")
const methods = ["get", "put", "post", "delete", "patch"] as const
const require = createRequire(import.meta.url)

/** The operations of the document, with their method and path. */
const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    methods.filter((m) => item[m] !== undefined).map((m) => ({ id: `${m.toUpperCase()} ${path}`, operation: item[m] }))
  )

/** A small client as a user writes it: openapi-fetch typed by openapi-typescript's output. */
const client = `
import createClient from "openapi-fetch"
import type { paths, components } from "./api.ts"

const api = createClient<paths>({ baseUrl: "https://herald.example.test" })

export async function run(customerId: string) {
  // Free-form metadata accepts any keys and values.
  const created = await api.POST("/api/content/{customerId}", {
    params: { path: { customerId } },
    body: { type: "blog", body: "Hello", metadata: { campaign: "spring", weight: 2, tags: ["a"] } }
  })
  if (created.data !== undefined) {
    const campaign: unknown = created.data.metadata["campaign"]
    const copy: typeof created.data.metadata = { anything: 1 }
    void campaign; void copy
  }
  const events = await api.GET("/api/events/{customerId}", { params: { path: { customerId }, query: { limit: 10 } } })
  for (const event of events.data?.events ?? []) {
    const data: Record<string, unknown> = event.data
    const same: typeof event.data = { id: "x", nested: { deep: true } }
    const kind: "content.created" | "key.rotated" | (string & {}) = event.type
    void data; void same; void kind
  }
  if (events.error !== undefined) {
    const code: components["schemas"]["Error"]["code"] = events.error.code
    // @ts-expect-error -- not a code the API answers
    const wrong: components["schemas"]["Error"]["code"] = "E_NOT_A_CODE"
    void code; void wrong
  }
}

// The webhook payload a receiver parses is typed too.
type Delivery = components["schemas"]["WebhookEvent_content_created"]
export const receive = (body: Delivery): string => body.data.status + body.customerId
`

/** Type-checks the generated types and the client; returns the diagnostics. */
const typeCheck = (files: Record<string, string>): Array<string> => {
  const dir = mkdtempSync(join(tmpdir(), "herald-client-"))
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    const program = ts.createProgram(Object.keys(files).map((name) => join(dir, name)), {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: [],
      // The temporary directory has no node_modules of its own.
      paths: { "openapi-fetch": [join(dirname(require.resolve("openapi-fetch/package.json")), "dist/index.d.mts")] }
    })
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Every `.ts` file under a directory. */
const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : []
  })

describe("generated clients", () => {
  it(
    "openapi-typescript types the document so that an openapi-fetch client using metadata and event data type-checks",
    async () => {
      const types = astToString(await openapiTS(doc as any))
      // Only the truly empty object (a body with no properties) and the unused `$defs` have no keys.
      const noKeys = types.split("\n").filter((line) => line.includes("Record<string, never>"))
        .filter((line) => !/^\s*EmptyObject: |^export type \$defs = /.test(line))
      assert.deepStrictEqual(noKeys, [], "no free-form object is typed as having no keys")
      const diagnostics = typeCheck({ "api.ts": types, "client.ts": client, "package.json": `{"type":"module"}` })
      assert.deepStrictEqual(diagnostics, [])
    },
    60_000
  )

  it(
    "the same client fails to type-check against free-form objects without additionalProperties (the check can fail)",
    async () => {
      const stripped = JSON.parse(
        JSON.stringify(doc, (key, value) => key === "additionalProperties" && value === true ? undefined : value)
      )
      const types = astToString(await openapiTS(stripped))
      const diagnostics = typeCheck({ "api.ts": types, "client.ts": client, "package.json": `{"type":"module"}` })
      assert.isAbove(diagnostics.length, 0)
      assert.isTrue(diagnostics.every((d) => !d.includes("openapi-fetch")), diagnostics.join("\n"))
    },
    60_000
  )
})

describe("OpenAPI document for people and generators", () => {
  it("every operation has a summary and a description; success responses say what they carry", () => {
    const missing: Array<string> = []
    for (const { id, operation } of operations()) {
      if (typeof operation.summary !== "string" || operation.summary.length === 0) missing.push(`${id} summary`)
      if (typeof operation.description !== "string" || operation.description.length === 0) {
        missing.push(`${id} description`)
      }
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (response.description === "Success" || /^[A-Z][A-Za-z0-9]*$/.test(response.description)) {
          missing.push(`${id} ${status}: ${response.description}`)
        }
      }
    }
    assert.deepStrictEqual(missing, [])
  })

  it("Error.code is an enum of every code an error class, the HTTP layer or the parser answers", () => {
    const codes: ReadonlyArray<string> = doc.components.schemas.Error.properties.code.enum
    for (const value of Object.values(Errors)) {
      if (typeof value !== "function" || !(value.prototype instanceof Error)) continue
      const code = new (value as new(fields: object) => { readonly code: string })({}).code
      assert.include(codes, code, value.name)
    }
    for (
      const code of [
        "E_METHOD_NOT_ALLOWED",
        "E_PAYLOAD_TOO_LARGE",
        "E_UNSUPPORTED_MEDIA_TYPE",
        "E_INTERNAL",
        "E_BAD_REQUEST",
        "E_HEADERS_TOO_LARGE",
        "E_TIMEOUT"
      ]
    ) {
      assert.include(codes, code)
    }
  })

  it("Event.type is an enum holding every type the code records", () => {
    const documented: ReadonlyArray<string> = doc.components.schemas.Event.properties.type.enum
    assert.deepStrictEqual([...documented], [...eventTypes])
    const recorded = new Set<string>(webhookEventTypes)
    for (const file of sources(join(import.meta.dirname, "../src"))) {
      const text = readFileSync(file, "utf8")
      for (const match of text.matchAll(/\.record\([^,]+,\s*"([^"]+)"/g)) recorded.add(match[1])
      for (const match of text.matchAll(/\.record\([^,]+,\s*`([a-z]+)\.\$\{[^}]+\}_updated`/g)) {
        recorded.add(`${match[1]}.autonomy_updated`).add(`${match[1]}.budget_updated`)
      }
    }
    assert.isAbove(recorded.size, 10)
    assert.deepStrictEqual([...recorded].filter((type) => !documented.includes(type)), [])
  })

  it("free-form objects (metadata, event data) allow any property", () => {
    const schemas = doc.components.schemas
    assert.strictEqual(schemas.Event.properties.data.additionalProperties, true)
    assert.strictEqual(schemas.NewContent.properties.metadata.additionalProperties, true)
    assert.strictEqual(schemas.ContentPiece.properties.metadata.additionalProperties, true)
    // Closed objects stay closed.
    assert.strictEqual(schemas.EmptyObject.additionalProperties, false)
  })

  it("a top-level `webhooks` section describes the delivery of each event kind", () => {
    const delivered = [...webhookEventTypes, "webhook.test"]
    assert.deepStrictEqual(Object.keys(doc.webhooks).sort(), delivered.sort())
    for (const type of delivered) {
      const post = doc.webhooks[type].post
      assert.isString(post.summary)
      assert.isString(post.description)
      const ref: string = post.requestBody.content["application/json"].schema.$ref
      const body = doc.components.schemas[ref.split("/").pop()!]
      assert.deepStrictEqual(body.required, ["id", "type", "createdAt", "customerId", "data"])
      assert.deepStrictEqual(body.properties.type.enum, [type])
      assert.includeMembers(post.parameters.map((p: any) => p.name), [
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature"
      ])
    }
    const created = doc.components.schemas.WebhookEvent_content_created
    assert.strictEqual(created.properties.data.$ref, "#/components/schemas/ContentPiece")
    const test = doc.components.schemas.WebhookEvent_webhook_test
    assert.deepStrictEqual(doc.components.schemas[test.properties.data.$ref.split("/").pop()].required, [
      "webhookId",
      "message"
    ])
  })

  it("the description links to the readable reference at /docs", () => {
    assert.include(doc.info.description, "https://herald.example.test/docs")
  })
})
