import { Schema, SchemaAST } from "effect"
import { HttpApi, OpenApi } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { routerPaths, routerSchemas, routerSecuritySchemes, routerTags } from "../../api/RouterPaths.ts"
import { CustomerIdParam, IdempotencyKey, idempotencyKeyDescription } from "../../api/Shared.ts"
import { errorStatuses } from "../../domain/ErrorCatalog.ts"
import { MalformedJson, statusCodes, ValidationError } from "../../domain/Errors.ts"
import { eventTypes } from "../../domain/EventTypes.ts"
import { PathId } from "../../domain/Text.ts"
import { webhookEventTypes } from "../../domain/WebhookEvents.ts"
import {
  webhookEventMeaning,
  webhookPayloadData,
  WebhookTestData,
  webhookTestMeaning,
  webhookTestType
} from "../../domain/WebhookPayloads.ts"
import { transportErrors } from "./ErrorResponses.ts"
import { jsonDocumentRoute } from "./JsonDocument.ts"

type Json = Record<string, any>

/**
 * Every code an answer can carry: each error class's, the HTTP layer's
 * defaults by status, and the parser-level refusals. New error classes in
 * src/domain/Errors.ts join the enum by themselves.
 */
export const allErrorCodes = (): ReadonlyArray<string> => {
  const codes = new Set<string>(errorStatuses().keys())
  for (const [code] of Object.values(statusCodes)) codes.add(code)
  for (const [code] of Object.values(transportErrors)) codes.add(code)
  return [...codes].sort()
}

const ErrorSchema = {
  type: "object",
  required: ["error", "code", "requestId"],
  properties: {
    error: { type: "string", description: "Human-readable message" },
    code: { type: "string", enum: allErrorCodes(), description: "Machine-readable code, e.g. E_RATE_LIMITED" },
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

/** Properties of the Error shape itself, and the class tag the HTTP layer strips from the wire. */
const errorShapeProperties = new Set(["_tag", "error", "code", "requestId", "details"])

const errorRef = (name = "Error") => ({ $ref: `#/components/schemas/${name}` })
const errorContent = () => ({ "application/json": { schema: errorRef() } })

/** Answered by the HTTP layer for every JSON body, before any handler sees it (docs/api-rules.md, "Errors"). */
const bodyFailures = {
  "413": statusCodes[413][0],
  "415": statusCodes[415][0]
} as const

/** Response headers the HTTP layer adds (docs/api-rules.md: "Errors", "Rate limits", "Requests and answers"). */
const responseHeaders: Json = {
  "X-Request-ID": {
    description: "The request's id: the caller's own X-Request-ID if it is 8 to 128 of `A-Z a-z 0-9 . _ -`, " +
      "else `req_` and 32 hex digits. Error bodies repeat it as `requestId`.",
    required: true,
    schema: { type: "string" }
  },
  "RateLimit-Policy": {
    description: "The limit this route counts against (IETF draft): `\"<name>\";q=<limit>;w=60`",
    schema: { type: "string" }
  },
  RateLimit: {
    description: "What is left of it (IETF draft): `\"<name>\";r=<remaining>;t=<seconds to reset>`",
    schema: { type: "string" }
  },
  "Retry-After": {
    description: "Seconds until the limit's window resets",
    required: true,
    schema: { type: "integer", minimum: 1 }
  },
  "WWW-Authenticate": {
    description:
      "`Bearer realm=\"herald\", resource_metadata=\"<base url>/.well-known/oauth-protected-resource\"` (RFC 9728)",
    required: true,
    schema: { type: "string" }
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the kept reply to an earlier request with the same Idempotency-Key and body",
    schema: { type: "string", enum: ["true"] }
  }
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })

/**
 * The headers a response of an operation carries: the request id always;
 * on limited (authenticated) routes the limit headers on every answer given
 * after the limits ran, `Retry-After` on 429; the Bearer challenge on its 401s;
 * the replay marker on a POST's success.
 */
const headersOf = (method: string, operation: Json, status: string): Json => {
  const schemes = new Set((operation.security ?? []).flatMap((requirement: Json) => Object.keys(requirement)))
  const names = ["X-Request-ID"]
  // Limited routes: the authenticated ones, and the public ones that document a 429 (sign-up, payment
  // webhook, readiness with X-Admin-Secret).
  const limited = schemes.size > 0 || operation.responses?.["429"] !== undefined
  if (limited && status !== "413" && status !== "500") names.push("RateLimit-Policy", "RateLimit")
  if (status === "429") names.push("Retry-After")
  if (status === "401" && schemes.has("bearer")) names.push("WWW-Authenticate")
  if (method === "post" && status === "200") names.push("Idempotent-Replayed")
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]))
}

/** A JSON body that fails its schema, or is no JSON at all. */
const bodyValidationCodes = [new ValidationError({}).code, new MalformedJson({}).code]

/**
 * Codes only `Idempotency-Key` handling produces, in the authentication
 * middlewares; it acts on POST only, so other methods cannot answer them
 * unless the endpoint declares the code itself.
 */
const idempotencyOnlyCodes = new Set([statusCodes[409][0]])

/** Outside a POST (where the Idempotency-Key is checked) only a request that decodes can fail validation. */
const validationCode = new ValidationError({}).code

/** JSON Schema of a self-contained value, for the few places the document shows one the generator did not. */
const jsonSchemaOf = (schema: Schema.Top): Json => {
  const document = Schema.toJsonSchemaDocument(schema)
  return Object.keys(document.definitions).length === 0 ? { ...document.schema } : {}
}

interface EndpointFacts {
  /** Codes of the errors the endpoint declares itself (not its middlewares'). */
  readonly ownCodes: ReadonlySet<string>
  /** Whether decoding its request can fail: a query, headers, a body, or a path id of a shape that can. */
  readonly validates: boolean
  /** Parameters whose decoded value is a number or boolean: their value's schema, by location and name. */
  readonly valueSchemas: ReadonlyMap<string, Json>
}

const errorCodes = (schema: Schema.Top): ReadonlyArray<string> => {
  const document = Schema.toJsonSchemaDocument(schema)
  const ref: unknown = document.schema.$ref
  const root = typeof ref === "string" ? document.definitions[ref.split("/").pop()!] ?? {} : document.schema
  return codesOf(root)
}

/**
 * Query, path and header values travel as text, so the generator documents
 * their wire form (a string). OpenAPI documents a parameter by its value and
 * serialises it as text (`style: form` / `simple`), so a parameter that
 * decodes to a number or boolean shows its decoded schema, with the bounds
 * and default its schema carries.
 */
const decodedValueSchemas = (location: string, schema: Schema.Top | undefined, into: Map<string, Json>) => {
  if (schema === undefined) return
  const decoded = SchemaAST.toType(schema.ast)
  if (!SchemaAST.isObjects(decoded)) return
  for (const property of decoded.propertySignatures) {
    const members = SchemaAST.isUnion(property.type)
      ? property.type.types.filter((member) => !SchemaAST.isUndefined(member))
      : [property.type]
    if (members.length !== 1) continue
    const value = jsonSchemaOf(Schema.make(members[0]))
    if (value.type === "integer" || value.type === "number" || value.type === "boolean") {
      into.set(`${location} ${String(property.name)}`, value)
    }
  }
}

/** Path ids that take any text (an id that names nothing is a 404, never a 400). */
const anyTextIds: ReadonlySet<SchemaAST.AST> = new Set([PathId.ast, CustomerIdParam.customerId.ast])

const acceptsAnyText = (params: Schema.Top | undefined): boolean =>
  params === undefined ||
  (SchemaAST.isObjects(params.ast) && params.ast.propertySignatures.every((property) => anyTextIds.has(property.type)))

const endpointFacts = (): Map<string, EndpointFacts> => {
  const facts = new Map<string, EndpointFacts>()
  HttpApi.reflect(Api, {
    onGroup() {},
    onEndpoint({ endpoint }) {
      const valueSchemas = new Map<string, Json>()
      decodedValueSchemas("path", endpoint.params, valueSchemas)
      decodedValueSchemas("query", endpoint.query, valueSchemas)
      decodedValueSchemas("header", endpoint.headers, valueSchemas)
      const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
      facts.set(`${endpoint.method.toLowerCase()} ${path}`, {
        ownCodes: new Set([...endpoint.error].flatMap(errorCodes)),
        validates: endpoint.query !== undefined || endpoint.headers !== undefined || endpoint.payload.size > 0 ||
          !acceptsAnyText(endpoint.params),
        valueSchemas
      })
    }
  })
  return facts
}

/**
 * The generated document with what the generator cannot know: the servers
 * (BASE_URL), the one Error shape every 4xx/5xx body has on the wire (with
 * any fields an error adds, as the readiness 503 does), the failures the HTTP
 * layer answers before a handler runs (400 malformed JSON, 413, 415, 500), the
 * `Idempotency-Key` header of every POST, optional bodies, and parameters
 * shown by their decoded value.
 */
export const openApiDocument = (baseUrl: string): Json => {
  const spec: Json = OpenApi.fromApi(Api)
  spec.servers = [{ url: baseUrl }]
  spec.components ??= {}
  spec.components.schemas ??= {}
  const generated: Json = { ...spec.components.schemas }
  spec.components.schemas.Error = ErrorSchema
  spec.components.headers = { ...spec.components.headers, ...responseHeaders }
  const facts = endpointFacts()
  const resolve = (s: Json): Json => typeof s.$ref === "string" ? generated[String(s.$ref.split("/").pop())] ?? {} : s

  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (typeof operation !== "object" || operation.responses === undefined) continue
      const endpoint = facts.get(`${method} ${path}`)

      for (const parameter of operation.parameters ?? []) {
        const value = endpoint?.valueSchemas.get(`${parameter.in} ${parameter.name}`)
        if (value !== undefined) parameter.schema = value
      }

      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (Number(status) < 400) continue
        const described = response.content?.["application/json"]?.schema
        const members: Array<Json> = described === undefined ? [] : described.anyOf ?? described.oneOf ?? [described]
        const generatedCodes = members.flatMap((member) => codesOf(resolve(member)))
        const codes = method === "post" ?
          generatedCodes :
          generatedCodes.filter((code) =>
            (!idempotencyOnlyCodes.has(code) || endpoint?.ownCodes.has(code) === true) &&
            (code !== validationCode || endpoint?.validates !== false)
          )
        if (generatedCodes.length > 0 && codes.length === 0) {
          delete operation.responses[status]
          continue
        }
        response.content = { "application/json": { schema: errorBodySchema(spec, members, resolve) } }
        if (codes.length > 0) response.description = `Error: ${codes.join(", ")}`
      }

      const body = operation.requestBody?.content?.["application/json"]
      if (body !== undefined) {
        // A body schema that admits `null` takes no body at all (see EmptyObject).
        const members: Array<Json> = body.schema?.anyOf ?? body.schema?.oneOf ?? [body.schema ?? {}]
        if (members.some((member) => member.type === "null")) operation.requestBody.required = false
        const invalid = operation.responses["400"]
        const codes = new Set([...describedCodes(invalid), ...bodyValidationCodes])
        operation.responses["400"] = {
          description: `Error: ${[...codes].join(", ")}`,
          content: errorContent()
        }
        for (const [status, code] of Object.entries(bodyFailures)) {
          operation.responses[status] ??= { description: `Error: ${code}`, content: errorContent() }
        }
      }

      if (method === "post") {
        operation.parameters ??= []
        operation.parameters.push({
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description: idempotencyKeyDescription,
          schema: jsonSchemaOf(IdempotencyKey)
        })
      }

      operation.responses["500"] ??= { description: "Error: E_INTERNAL", content: errorContent() }
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        response.headers = { ...response.headers, ...headersOf(method, operation, status) }
      }
      operation.responses = sortedByStatus(operation.responses)
    }
  }
  describeSuccesses(spec)
  addRouterPaths(spec)
  spec.webhooks = webhooksSection(spec)
  const event = spec.components.schemas.Event
  if (event?.properties?.type !== undefined) {
    event.properties.type = { type: "string", enum: [...eventTypes], description: "What happened" }
  }
  markFreeForm(spec)
  spec.info.description = `${spec.info.description ?? ""}\n\nReadable reference: [${baseUrl}/docs](${baseUrl}/docs).`
  pruneUnusedSchemas(spec)
  return spec
}

/** The routes outside the HttpApi (orchestrator, MCP transports), with the headers every answer carries and their 500. */
const addRouterPaths = (spec: Json) => {
  const paths = routerPaths()
  for (const item of Object.values<Json>(paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      operation.responses["500"] ??= { description: "Error: E_INTERNAL", content: errorContent() }
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const headers = headersOf(method, operation, status)
        // No Idempotency-Key here: these POSTs are never replayed.
        delete headers["Idempotent-Replayed"]
        response.headers = { ...response.headers, ...headers }
      }
      operation.responses = sortedByStatus(operation.responses)
    }
  }
  spec.paths = { ...spec.paths, ...paths }
  spec.components.schemas = { ...spec.components.schemas, ...routerSchemas }
  spec.components.securitySchemes = { ...spec.components.securitySchemes, ...routerSecuritySchemes }
  spec.tags = [...(spec.tags ?? []), ...routerTags]
}

/**
 * A schema of `type: object` that names no properties is free-form
 * (metadata, event data, settings maps): it says so with
 * `additionalProperties: true`, or generators type it as an object with no
 * keys (openapi-typescript: `Record<string, never>`).
 */
const markFreeForm = (node: unknown): void => {
  if (Array.isArray(node)) {
    for (const item of node) markFreeForm(item)
    return
  }
  if (typeof node !== "object" || node === null) return
  const schema = node as Json
  if (
    schema.type === "object" && schema.properties === undefined && schema.additionalProperties === undefined &&
    schema.patternProperties === undefined
  ) {
    schema.additionalProperties = true
  }
  for (const value of Object.values(schema)) markFreeForm(value)
}

const refName = (schema: Json): string | undefined =>
  typeof schema?.$ref === "string" ? schema.$ref.split("/").pop() : undefined

/** "ContentPiece" → "content piece". */
const words = (identifier: string) => identifier.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase()

const describeValue = (schema: Json): string => {
  const name = refName(schema)
  if (name !== undefined) return words(name)
  const members: Array<Json> | undefined = schema?.anyOf ?? schema?.oneOf
  if (members !== undefined) return members.map(describeValue).join(" or ")
  if (schema?.type === "array") return `list of ${describeValue(schema.items ?? {})}`
  return String(schema?.type ?? "value")
}

/**
 * Success responses say what they carry: the generator writes the schema's
 * description, else its identifier ("ContentPiece"), else "Success".
 */
const describeSuccesses = (spec: Json) => {
  for (const item of Object.values<Json>(spec.paths ?? {})) {
    for (const operation of Object.values<Json>(item)) {
      if (typeof operation !== "object" || operation.responses === undefined) continue
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (Number(status) >= 400 || typeof response.description !== "string") continue
        if (response.description !== "Success" && !/^[A-Z][A-Za-z0-9]*$/.test(response.description)) continue
        const schema = response.content?.["application/json"]?.schema
        if (schema === undefined) continue
        const name = refName(schema)
        if (name !== undefined) {
          response.description = `The ${words(name)}`
          continue
        }
        const properties = Object.entries<Json>(schema.properties ?? {})
        response.description = properties.length === 0
          ? "An empty object"
          : "An object with " + properties.map(([key, value]) => `\`${key}\` (${describeValue(value)})`).join(", ")
      }
    }
  }
}

/** Draft 2020-12 `$defs` references, as components of this document. */
const asComponentRefs = (schema: unknown): any =>
  JSON.parse(JSON.stringify(schema).replaceAll("\"#/$defs/", "\"#/components/schemas/"))

/** The `data` of a delivered event: its resource's component, or a free-form object. */
const payloadDataSchema = (spec: Json, schema: Schema.Top | undefined): Json => {
  if (schema === undefined) {
    return { type: "object", additionalProperties: true, description: "The resource the event is about" }
  }
  const document = Schema.toJsonSchemaDocument(schema)
  for (const [name, definition] of Object.entries(document.definitions)) {
    spec.components.schemas[name] ??= asComponentRefs(definition)
  }
  return asComponentRefs(document.schema)
}

const deliveryHeaders: ReadonlyArray<Json> = [
  ["webhook-id", "The event's id (`evt_…`), the same on every attempt: deduplicate on it"],
  ["webhook-timestamp", "Unix seconds of this attempt"],
  [
    "webhook-signature",
    "`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded part of the secret after `whsec_` (Standard Webhooks); during 24 h after a secret rotation a second, space-separated entry signed with the previous secret"
  ],
  [
    "X-Service-Signature",
    "Hex HMAC-SHA256 of the raw body keyed with the secret string's UTF-8 bytes (the header's name is the WEBHOOK_SIGNATURE_HEADER setting)"
  ]
].map(([name, description]) => ({ name, in: "header", required: true, description, schema: { type: "string" } }))

/**
 * The OpenAPI 3.1 `webhooks` section: what Herald POSTs to a subscribed URL
 * for each event kind, `{id, type, createdAt, customerId, data}`.
 */
/** Every kind a subscription can ask for, and the test event anyone can ask for. */
const deliveredKinds = (): ReadonlyArray<
  { readonly type: string; readonly data: Schema.Top | undefined; readonly meaning: string | undefined }
> => [
  ...webhookEventTypes.map((type) => ({ type, data: webhookPayloadData[type], meaning: webhookEventMeaning[type] })),
  { type: webhookTestType, data: WebhookTestData, meaning: webhookTestMeaning }
]

const webhooksSection = (spec: Json): Json =>
  Object.fromEntries(
    deliveredKinds().map(({ type, data, meaning }) => {
      const name = `WebhookEvent_${type.replace(/[^A-Za-z0-9]+/g, "_")}`
      spec.components.schemas[name] = {
        type: "object",
        description: `The body of a \`${type}\` delivery`,
        required: ["id", "type", "createdAt", "customerId", "data"],
        properties: {
          id: { type: "string", description: "The event's id, also sent as `webhook-id`" },
          type: { type: "string", enum: [type] },
          createdAt: { type: "string", format: "date-time" },
          customerId: { type: "string", format: "uuid" },
          data: payloadDataSchema(spec, data)
        },
        additionalProperties: false
      }
      return [type, {
        post: {
          operationId: `webhook_${type.replace(/[^A-Za-z0-9]+/g, "_")}`,
          summary: `\`${type}\` event`,
          description: `${meaning ?? `A \`${type}\` event.`} ` +
            (type === webhookTestType
              ? "Signed with the subscription's secret and "
              : "Sent to every subscription that asked for this kind, signed with its secret, ") +
            "at least once: a non-2xx answer, a redirect or no answer within 15 s is " +
            "retried on the Standard Webhooks schedule with the same `webhook-id`; 410 disables the subscription.",
          tags: ["Webhooks"],
          parameters: deliveryHeaders,
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } }
          },
          responses: {
            "200": { description: "Any 2xx acknowledges the delivery" },
            "410": { description: "The endpoint is gone: the subscription is disabled" }
          }
        }
      }]
    })
  )

const describedCodes = (response: Json | undefined): Array<string> =>
  typeof response?.description === "string" && response.description.startsWith("Error: ")
    ? response.description.slice("Error: ".length).split(", ")
    : []

const codesOf = (schema: Json): Array<string> => {
  const code = schema.properties?.code
  return code?.enum ?? (code?.const === undefined ? [] : [code.const])
}

/**
 * The Error schema, or, for an error carrying more than the Error shape (the
 * readiness 503 keeps its service, status and timestamp), a component that is
 * the Error shape plus those fields.
 */
const errorBodySchema = (spec: Json, members: ReadonlyArray<Json>, resolve: (s: Json) => Json): Json => {
  const schemas = new Map<string, Json>()
  for (const member of members) {
    const resolved = resolve(member)
    const extra = Object.entries<Json>(resolved.properties ?? {}).filter(([name]) => !errorShapeProperties.has(name))
    if (extra.length === 0 || typeof member.$ref !== "string") {
      schemas.set("Error", errorRef())
      continue
    }
    const name = String(member.$ref.split("/").pop()).replace(/Encoded$/, "")
    const code = resolved.properties?.code
    spec.components.schemas[name] = {
      allOf: [
        errorRef(),
        {
          type: "object",
          required: (resolved.required ?? []).filter((field: string) => !errorShapeProperties.has(field)),
          properties: Object.fromEntries(code === undefined ? extra : [...extra, ["code", code]])
        }
      ]
    }
    schemas.set(name, errorRef(name))
  }
  const list = [...schemas.values()]
  return list.length === 0 ? errorRef() : list.length === 1 ? list[0] : { anyOf: list }
}

const sortedByStatus = (responses: Json): Json =>
  Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))

/** Drops component schemas nothing refers to any more (the replaced error bodies). */
const pruneUnusedSchemas = (spec: Json) => {
  const schemas: Record<string, unknown> = spec.components.schemas
  for (;;) {
    const { schemas: _, ...rest } = spec.components
    const text = JSON.stringify({ ...spec, components: rest }) + JSON.stringify(schemas)
    const unused = Object.keys(schemas).filter((name) =>
      !text.includes(`"#/components/schemas/${name}"`) && name !== "Error"
    )
    if (unused.length === 0) return
    for (const name of unused) delete schemas[name]
  }
}

export const OpenApiRoutes = jsonDocumentRoute("/openapi.json", openApiDocument)
