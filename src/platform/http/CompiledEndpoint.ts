import { Context, Effect, Schema, SchemaAST, SchemaIssue, SchemaTransformation } from "effect"
import { HttpMethod, HttpRouter, HttpServerRequest, HttpServerRespondable, HttpServerResponse } from "effect/http"
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { HttpApiPayloadTooLarge, HttpApiSchemaError } from "effect/http-api/HttpApiError"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import { plainEncoder, unplain } from "./PlainEncoder.ts"

/**
 * An API endpoint's route made directly from its definition and handler, for
 * every endpoint of the shapes Herald's API uses (path, query and header
 * parameters, JSON bodies, security middleware, one JSON success, typed
 * errors); anything else keeps HttpApiBuilder's own route (`compileEndpoint`
 * returns undefined).
 *
 * Both make the same answers: the same decoders and the same error encoding
 * (ported below from HttpApiBuilder), the success encoded by its schema then
 * JSON. What this saves per request is HttpApiBuilder's general-purpose
 * wrapping: a generator over the request, the success encoded through a
 * schema that builds the HTTP response inside the schema interpreter, error
 * reporting and the merge of the group's (empty) context into the request's.
 */

/** Functions HttpApiBuilder uses that the modules export but leave out of their declarations. */
interface Internals {
  readonly getSuccessSchemas: (endpoint: HttpApiEndpoint.Top) => ReadonlyArray<Schema.Top>
  readonly getErrorSchemas: (endpoint: HttpApiEndpoint.Top) => ReadonlyArray<Schema.Top>
  readonly getStatusSuccess: (ast: Schema.Top["ast"]) => number
  readonly getStatusError: (ast: Schema.Top["ast"]) => number
  readonly getResponseEncodingSchema: (schema: Schema.Top) => Encoding
  readonly isStreamSchema: (u: unknown) => boolean
  readonly isUpgrade: (u: unknown) => boolean
  readonly getSlotParseOptions: (annotations: Context.Context<never>) => Record<
    "params" | "query" | "headers" | "payload" | "success" | "error",
    SchemaAST.ParseOptions | undefined
  >
}

interface Encoding {
  readonly _tag: "Json" | "Text" | "Uint8Array" | "FormUrlEncoded" | "Multipart"
  readonly contentType: string
}

const internals: Internals = {
  getSuccessSchemas: (HttpApiEndpoint as any).getSuccessSchemas,
  getErrorSchemas: (HttpApiEndpoint as any).getErrorSchemas,
  getStatusSuccess: (HttpApiSchema as any).getStatusSuccess,
  getStatusError: (HttpApiSchema as any).getStatusError,
  getResponseEncodingSchema: (HttpApiSchema as any).getResponseEncodingSchema,
  isStreamSchema: (HttpApiSchema as any).isStreamSchema,
  isUpgrade: (HttpApiSchema as any).isUpgrade,
  getSlotParseOptions: (HttpApi as any).getSlotParseOptions
}

/** The pieces of HttpApiBuilder's handler record this reads. */
export interface HandlerRuntime {
  readonly endpoint: HttpApiEndpoint.Top
  readonly handler: (request: any) => Effect.Effect<unknown, unknown, unknown>
  readonly isRaw: boolean
  readonly uninterruptible: boolean
}

type AnyEffect = Effect.Effect<any, any, any>

const $HttpServerResponse = Schema.declare(HttpServerResponse.isHttpServerResponse)

/** A JSON answer of an encoded body, or undefined when the body cannot be serialised (a cycle, a BigInt). */
const jsonResponse = (body: unknown, status: number, contentType: string) => {
  try {
    return HttpServerResponse.text(JSON.stringify(body), { status, contentType })
  } catch {
    return undefined
  }
}

/** The response an encoded body makes under an encoding (HttpApiBuilder's rule). */
const responseEncoder = (status: number, encoding: Encoding, noContent: boolean) =>
(
  body: unknown,
  options: unknown
): Effect.Effect<HttpServerResponse.HttpServerResponse, SchemaIssue.Issue> => {
  switch (encoding._tag) {
    case "Json": {
      if (body === undefined || noContent) return Effect.succeed(HttpServerResponse.empty({ status }))
      const response = jsonResponse(body, status, encoding.contentType)
      return response !== undefined ? Effect.succeed(response) : Effect.fail(
        new SchemaIssue.InvalidValue(
          { expected: "a JSON-serializable response body" } as never,
          body as never,
          options as never
        )
      )
    }
    case "Text":
      return Effect.succeed(HttpServerResponse.text(body as string, { status, contentType: encoding.contentType }))
    case "Uint8Array":
      return Effect.succeed(
        HttpServerResponse.uint8Array(body as Uint8Array, { status, contentType: encoding.contentType })
      )
    default:
      return Effect.succeed(
        HttpServerResponse.setHeader(
          HttpServerResponse.urlParams(body as never, { status }),
          "content-type",
          encoding.contentType
        )
      )
  }
}

/** An error class's response schema, as HttpApiBuilder makes it (errors carrying response headers are not compiled). */
const errorResponseSchema = (schema: Schema.Top) =>
  $HttpServerResponse.pipe(Schema.decodeTo(
    schema,
    SchemaTransformation.transformEffect({
      decode: (input, options) =>
        Effect.fail(new SchemaIssue.Forbidden({ message: "Encode only schema" }, input, options)),
      encode: responseEncoder(
        internals.getStatusError(schema.ast),
        internals.getResponseEncodingSchema(schema),
        HttpApiSchema.isNoContent(schema.ast)
      ) as never
    }) as never
  ))

/** The security middleware of an endpoint, applied as HttpApiBuilder applies a scheme with one credential. */
const securityOf = (
  endpoint: HttpApiEndpoint.Top,
  group: unknown,
  middlewares: Context.Context<never>
): ReadonlyArray<(handler: AnyEffect) => AnyEffect> | undefined => {
  const applied: Array<(handler: AnyEffect) => AnyEffect> = []
  for (const key of endpoint.middlewares as Iterable<any>) {
    if (!HttpApiMiddleware.isSecurity(key)) return undefined
    const schemes = Object.entries(key.security as Record<string, unknown>)
    if (schemes.length !== 1) return undefined
    const [name, scheme] = schemes[0]
    const service = middlewares.mapUnsafe.get(key.key) as Record<string, any> | undefined
    if (service === undefined) return undefined
    const decode = HttpApiBuilder.securityDecode(scheme as never) as AnyEffect
    const middleware = service[name] as (handler: AnyEffect, options: unknown) => AnyEffect
    applied.push((handler) =>
      Effect.flatMap(decode, (credential) => middleware(handler, { credential, endpoint, group }))
    )
  }
  return applied
}

interface JsonPayload {
  readonly decode: (input: unknown) => Effect.Effect<unknown, Schema.SchemaError>
  readonly nullOnEmpty: boolean
}

/** JSON payload decoders by content type (HttpApiBuilder's), or undefined when a payload has another encoding. */
const payloadDecoders = (
  endpoint: HttpApiEndpoint.Top,
  options: SchemaAST.ParseOptions | undefined
): ReadonlyMap<string, JsonPayload> | undefined => {
  const decoders = new Map<string, JsonPayload>()
  for (const [contentType, { encoding, schemas }] of endpoint.payload) {
    if (encoding._tag !== "Json") return undefined
    const schema = Schema.Union(schemas as ReadonlyArray<Schema.Top>)
    decoders.set(contentType, {
      decode: Schema.decodeUnknownEffect(schema as unknown as Schema.Codec<unknown, unknown>, options),
      nullOnEmpty: (schemas as ReadonlyArray<Schema.Top>).some((s) => SchemaAST.isNull(SchemaAST.toEncoded(s.ast)))
    })
  }
  return decoders
}

const normalizeMediaType = (contentType: string): string => {
  const normalized = contentType.toLowerCase().trim()
  const index = normalized.indexOf(";")
  return index === -1 ? normalized : normalized.slice(0, index).trim()
}

/** The request's payload, decoded by its content type (a 415 answer for one the endpoint does not take). */
const decodePayload = (
  decoders: ReadonlyMap<string, JsonPayload>,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<unknown, Schema.SchemaError> | HttpServerResponse.HttpServerResponse => {
  const contentType = HttpMethod.hasBody(request.method)
    ? normalizeMediaType(request.headers["content-type"] ?? "application/json")
    : "application/x-www-form-urlencoded"
  const decoder = decoders.get(contentType)
  if (decoder === undefined) return HttpServerResponse.text(`Unsupported content-type: ${contentType}`, { status: 415 })
  return Effect.flatMap(Effect.orDie(request.text), (text) => {
    if (text === "") return decoder.decode(decoder.nullOnEmpty ? null : undefined)
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return Effect.fail(
        new Schema.SchemaError(new SchemaIssue.InvalidValue({ message: "Expected a valid JSON body" } as never))
      )
    }
    return decoder.decode(parsed)
  })
}

/**
 * The handler of one endpoint's route, or undefined when the endpoint has a shape only
 * HttpApiBuilder's route handles (bodies other than JSON, streams, upgrades, several
 * successes, headers in the answer's schema, non-security
 * middleware). `middlewares` holds the groups' security middleware.
 */
export const compileEndpoint = (
  api: { readonly annotations: Context.Context<never> },
  group: { readonly annotations: Context.Context<never> },
  runtime: HandlerRuntime,
  middlewares: Context.Context<never>
): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined => {
  const endpoint = runtime.endpoint
  if (runtime.isRaw) return undefined
  const annotations = Context.merge(Context.merge(api.annotations, group.annotations), endpoint.annotations)
  const options = internals.getSlotParseOptions(annotations)
  const successes = internals.getSuccessSchemas(endpoint)
  if (successes.length !== 1) return undefined
  const success = successes[0]
  if (HttpApiSchema.isWithHeaders(success) || internals.isStreamSchema(success) || internals.isUpgrade(success)) {
    return undefined
  }
  const encoding = internals.getResponseEncodingSchema(success)
  if (encoding._tag !== "Json") return undefined
  const errors = internals.getErrorSchemas(endpoint)
  if (errors.some((schema) => HttpApiSchema.isWithHeaders(schema))) return undefined
  const security = securityOf(endpoint, group, middlewares)
  if (security === undefined) return undefined

  const status = internals.getStatusSuccess(success.ast)
  const noContent = HttpApiSchema.isNoContent(success.ast)
  const encodeBody = Schema.encodeUnknownExit(success as Schema.Codec<unknown, unknown>, options.success)
  // Not when excess fields are refused: the shortcut drops them, as the default ("ignore") does.
  const plain = options.success?.onExcessProperty === "error" ? undefined : plainEncoder(success.ast)
  const encodeError = Schema.encodeUnknownEffect(
    errors.length === 0
      ? Schema.Never
      : errors.length === 1
      ? errorResponseSchema(errors[0])
      : Schema.Union(errors.map(errorResponseSchema)),
    options.error
  )
  const decodeParams = endpoint.params === undefined
    ? undefined
    : Schema.decodeUnknownEffect(endpoint.params, options.params)
  const decodeHeaders = endpoint.headers === undefined
    ? undefined
    : Schema.decodeUnknownEffect(endpoint.headers, options.headers)
  const decodeQuery = endpoint.query === undefined
    ? undefined
    : Schema.decodeUnknownEffect(Schema.toCodecArrayFromSingle(endpoint.query), options.query)
  const payload = payloadDecoders(endpoint, options.payload)
  if (payload === undefined) return undefined
  const handler = runtime.handler

  const answer = (value: unknown): AnyEffect => {
    if (HttpServerResponse.isHttpServerResponse(value)) return Effect.succeed(value)
    if (value === undefined || noContent) return Effect.succeed(HttpServerResponse.empty({ status }))
    let body = plain === undefined ? unplain : plain(value)
    if (body === unplain) {
      // The encoding is synchronous: its exit is read here rather than chained as more effects.
      const encoded = encodeBody(value)
      if (encoded._tag === "Failure") return HttpApiSchemaError.wrap("Body", encoded)
      if (encoded.value === undefined) return Effect.succeed(HttpServerResponse.empty({ status }))
      body = encoded.value
    }
    const response = jsonResponse(body, status, encoding.contentType)
    return response !== undefined
      ? Effect.succeed(response)
      : Effect.die(new Error("the response body is not JSON-serializable"))
  }

  let run: AnyEffect = Effect.withFiber((fiber) => {
    const context = fiber.context as Context.Context<never>
    const httpRequest = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
    const request: Record<string, unknown> = { request: httpRequest, endpoint, group }
    let ready: AnyEffect | undefined
    if (decodeParams !== undefined) {
      const route = Context.getUnsafe(context, HttpRouter.RouteContext)
      ready = Effect.map(
        HttpApiSchemaError.wrap("Params", decodeParams(route.params)),
        (v) => void (request.params = v)
      )
    }
    if (decodeHeaders !== undefined) {
      const step = Effect.map(
        HttpApiSchemaError.wrap("Headers", decodeHeaders(httpRequest.headers)),
        (v) => void (request.headers = v)
      )
      ready = ready === undefined ? step : Effect.andThen(ready, step)
    }
    if (decodeQuery !== undefined) {
      const query = Context.getUnsafe(context, HttpServerRequest.ParsedSearchParams)
      const step = Effect.map(HttpApiSchemaError.wrap("Query", decodeQuery(query)), (v) => void (request.query = v))
      ready = ready === undefined ? step : Effect.andThen(ready, step)
    }
    if (payload.size > 0) {
      const decoded = decodePayload(payload, httpRequest)
      if (HttpServerResponse.isHttpServerResponse(decoded)) return Effect.succeed(decoded)
      const step = Effect.map(HttpApiSchemaError.wrap("Payload", decoded), (v) => void (request.payload = v))
      ready = ready === undefined ? step : Effect.andThen(ready, step)
    }
    // Eager: a handler that answers at once (an Exit) is encoded here, with no continuation for the run loop.
    return ready === undefined
      ? Effect.flatMapEager(handler(request), answer)
      : Effect.flatMap(ready, () => Effect.flatMapEager(handler(request), answer))
  })
  for (const apply of security) run = apply(run)
  const route = Effect.catch(run, (error: unknown) => {
    if (HttpApiSchemaError.is(error) || HttpApiPayloadTooLarge.is(error)) return Effect.die(error)
    return Effect.catch(
      encodeError(error) as AnyEffect,
      (schemaError) =>
        HttpServerRespondable.isRespondable(error)
          ? HttpServerRespondable.toResponse(error)
          : Effect.die(schemaError)
    )
  })
  return route as Effect.Effect<HttpServerResponse.HttpServerResponse>
}
