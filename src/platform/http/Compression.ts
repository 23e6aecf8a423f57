import { HttpServerResponse } from "effect/http"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"

/** Smaller JSON bodies are sent as they are: compressing them costs more than it saves. */
export const compressionThreshold = 1024

type Coding = "br" | "gzip"

/**
 * The coding to use for an `Accept-Encoding` value: br, else gzip, when the
 * client accepts it (a `q=0` refuses it).
 */
export const pickCoding = (acceptEncoding: string | undefined): Coding | undefined => {
  if (acceptEncoding === undefined) return undefined
  const accepted = new Set<string>()
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";")
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
    if (q !== undefined && Number(q.slice(2)) === 0) continue
    accepted.add(name.trim())
  }
  if (accepted.has("br")) return "br"
  if (accepted.has("gzip") || accepted.has("*")) return "gzip"
  return undefined
}

const isJson = (contentType: string) => {
  const media = contentType.split(";")[0].trim().toLowerCase()
  return media === "application/json" || media.endsWith("+json")
}

/**
 * Bodies the server sends again and again (the OpenAPI and discovery
 * documents are one buffer each) are compressed once per coding.
 */
const kept = new WeakMap<Uint8Array, Partial<Record<Coding, Uint8Array>>>()

const encode = (body: Uint8Array, coding: Coding): Uint8Array => {
  const entry = kept.get(body) ?? {}
  let encoded = entry[coding]
  if (encoded === undefined) {
    encoded = coding === "br"
      ? brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength }
      })
      : gzipSync(body, { level: 6 })
    entry[coding] = encoded
    kept.set(body, entry)
  }
  return encoded
}

/**
 * A JSON body over 1 KiB, compressed when the client accepts br or gzip.
 * Only whole bodies are: event streams (and any other stream) go as they are,
 * so every event reaches the client when it is written.
 */
export const compress = (
  response: HttpServerResponse.HttpServerResponse,
  acceptEncoding: string | undefined
): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  // The length effect computed from the text: reading `body.body` would encode every answer's text to bytes.
  if (body._tag !== "Uint8Array" || body.contentLength <= compressionThreshold || !isJson(body.contentType)) {
    return response
  }
  if (response.headers["content-encoding"] !== undefined) return response
  const coding = pickCoding(acceptEncoding)
  if (coding === undefined) {
    return HttpServerResponse.setHeader(response, "vary", "accept-encoding")
  }
  return HttpServerResponse.setBody(
    HttpServerResponse.setHeaders(response, { "content-encoding": coding, vary: "accept-encoding" }),
    HttpServerResponse.uint8Array(encode(body.body, coding), { contentType: body.contentType }).body
  )
}
