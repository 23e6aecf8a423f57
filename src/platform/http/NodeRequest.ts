import { NodeHttpIncomingMessage } from "@effect/platform-node/NodeHttpIncomingMessage"
import { MaxBytesError } from "@effect/platform-node/NodeStream"
import { Effect, Option, Stream } from "effect"
import { Cookies, Headers, HttpIncomingMessage, HttpServerError, HttpServerRequest, UrlParams } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"

/**
 * The request a route sees, over Node's own. Herald's server (`Server.ts`)
 * makes one per request in place of effect's Node adapter: everything is
 * read lazily (headers are converted on first use, the body only when a
 * route reads it), and what no route of Herald's uses is refused plainly
 * (multipart bodies, protocol upgrades).
 */
export class NodeRequest extends NodeHttpIncomingMessage<HttpServerError.HttpServerError>
  implements HttpServerRequest.HttpServerRequest
{
  // An oversized body fails the read; the server closes the connection once the answer is out.
  protected override readonly destroyOnOverflow = false
  protected override readonly closeOnDone = false
  readonly [HttpServerRequest.TypeId]: typeof HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly protocol = undefined
  readonly response: ServerResponse
  readonly url: string
  private headersOverride: Headers.Headers | undefined
  private cachedMethod: string | undefined
  private cachedCookies: Record<string, string> | undefined

  constructor(
    source: IncomingMessage,
    response: ServerResponse,
    url: string,
    headersOverride?: Headers.Headers,
    remoteAddressOverride?: Option.Option<string>
  ) {
    super(source, (cause) => bodyError(this, cause), remoteAddressOverride)
    this.response = response
    this.url = url
    this.headersOverride = headersOverride
  }

  get method(): string {
    return this.cachedMethod ??= (this.source.method ?? "GET").toUpperCase()
  }

  override get headers(): Headers.Headers {
    return this.headersOverride ??= headersOf(this.source.headers)
  }

  get cookies(): Record<string, string> {
    return this.cachedCookies ??= Cookies.parseHeader(this.source.headers.cookie ?? "")
  }

  get peerAddress(): Option.Option<string> {
    return this.remoteAddress
  }

  get originalUrl(): string {
    const url = this.source.url ?? "/"
    const host = this.source.headers.host
    return url[0] !== "/" || host === undefined ? url : `http://${host}${url}`
  }

  get multipart(): HttpServerRequest.HttpServerRequest["multipart"] {
    return Effect.die(new Error("multipart bodies are not accepted"))
  }

  get multipartStream(): HttpServerRequest.HttpServerRequest["multipartStream"] {
    return Stream.die(new Error("multipart bodies are not accepted"))
  }

  get upgrade(): HttpServerRequest.HttpServerRequest["upgrade"] {
    return this.upgradeWith({})
  }

  upgradeWith(_: { readonly headers?: Headers.Input | undefined }): HttpServerRequest.HttpServerRequest["upgrade"] {
    return Effect.fail(
      new HttpServerError.HttpServerError({
        reason: new HttpServerError.RequestParseError({ request: this, description: "not an upgradeable request" })
      })
    )
  }

  modify(options: {
    readonly url?: string | undefined
    readonly headers?: Headers.Headers | undefined
    readonly remoteAddress?: Option.Option<string> | undefined
  }): NodeRequest {
    return new NodeRequest(
      this.source,
      this.response,
      options.url ?? this.url,
      options.headers ?? this.headersOverride,
      "remoteAddress" in options ? options.remoteAddress : this.remoteAddressOverride
    )
  }

  override toString(): string {
    return `ServerRequest(${this.method} ${UrlParams.redactUrl(this.url)})`
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "HttpServerRequest",
      method: this.method,
      url: UrlParams.redactUrl(this.originalUrl)
    })
  }
}

const headersProto = Object.getPrototypeOf(Headers.empty) as object

/**
 * Node's header record as effect's Headers. Node has lowercased every name
 * and joined repeated fields already (`set-cookie` alone stays a list, joined
 * here as `Headers.fromInput` joins it), so the fields are copied as they are.
 */
const headersOf = (source: IncomingMessage["headers"]): Headers.Headers => {
  const out = Object.create(headersProto) as Record<string, string>
  for (const name in source) {
    const value = source[name]
    if (value !== undefined) out[name] = typeof value === "string" ? value : value.join(", ")
  }
  return out as unknown as Headers.Headers
}

const bodyError = (request: NodeRequest, cause: unknown) =>
  new HttpServerError.HttpServerError({
    reason: new HttpServerError.RequestParseError({
      request,
      reason: cause instanceof MaxBytesError ? "BodyTooLarge" : "Parse",
      cause
    })
  })

/**
 * The request target as a path: an absolute-form target (`GET http://host/x`)
 * becomes its path and query, with its authority as the Host (RFC 9112 §3.2.2).
 */
export const requestTarget = (source: IncomingMessage): { url: string; headers?: Headers.Headers } => {
  const raw = source.url ?? "/"
  if (raw[0] === "/" || raw === "*") return { url: raw }
  try {
    const target = new URL(raw)
    return {
      url: target.pathname + target.search,
      headers: Headers.fromInput({ ...(source.headers as Headers.Input as Record<string, string>), host: target.host })
    }
  } catch {
    return { url: raw }
  }
}
