import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { AppConfig } from "../Config.ts"

const ErrorSchema = {
  type: "object",
  required: ["error", "code", "requestId"],
  properties: {
    error: { type: "string", description: "Human-readable message" },
    code: { type: "string", description: "Machine-readable code, e.g. E_RATE_LIMITED" },
    requestId: { type: "string", description: "Same value as the X-Request-ID header" },
    details: {
      type: "array",
      description: "Validation failures, one per offending field",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } }
      }
    }
  }
}

/**
 * The generated document with what the generator cannot know: the servers
 * (BASE_URL) and the one Error shape that every 4xx/5xx body has on the wire.
 */
export const openApiDocument = (baseUrl: string): Record<string, any> => {
  const spec: Record<string, any> = OpenApi.fromApi(Api)
  spec.servers = [{ url: baseUrl }]
  spec.components ??= {}
  spec.components.schemas ??= {}
  spec.components.schemas.Error = ErrorSchema
  for (const item of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(item)) {
      if (typeof operation !== "object" || operation.responses === undefined) continue
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
        if (Number(status) < 400) continue
        const described = response.content?.["application/json"]?.schema
        const codes = described === undefined ? undefined : describeCodes(spec, described)
        response.content = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
        if (codes !== undefined && codes.length > 0) response.description = `Error: ${codes.join(", ")}`
      }
      operation.responses["500"] ??= {
        description: "Error: E_INTERNAL",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
      }
    }
  }
  pruneUnusedSchemas(spec)
  return spec
}

/** Drops component schemas nothing refers to any more (the replaced error bodies). */
const pruneUnusedSchemas = (spec: Record<string, any>) => {
  const schemas: Record<string, unknown> = spec.components.schemas
  for (;;) {
    const { schemas: _, ...rest } = spec.components
    const text = JSON.stringify({ ...spec, components: rest }) + JSON.stringify(schemas)
    const unused = Object.keys(schemas).filter((name) => !text.includes(`"#/components/schemas/${name}"`) && name !== "Error")
    if (unused.length === 0) return
    for (const name of unused) delete schemas[name]
  }
}

const describeCodes = (spec: Record<string, any>, schema: Record<string, any>): Array<string> => {
  const resolve = (s: Record<string, any>): Record<string, any> =>
    typeof s.$ref === "string" ? spec.components?.schemas?.[String(s.$ref.split("/").pop())] ?? {} : s
  const members: Array<Record<string, any>> = schema.anyOf ?? schema.oneOf ?? [schema]
  return members.flatMap((member) => {
    const code = resolve(member).properties?.code
    return code?.enum ?? (code?.const === undefined ? [] : [code.const])
  })
}

export const OpenApiRoute = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const body = JSON.stringify(openApiDocument(config.baseUrl))
    yield* router.add("GET", "/openapi.json", HttpServerResponse.text(body, { contentType: "application/json" }))
  })
)
