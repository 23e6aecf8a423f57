import { Data, Effect } from "effect"
import dns from "node:dns"
import http from "node:http"
import https from "node:https"
import net from "node:net"
import { cutLastLineAt } from "../domain/Text.ts"

/**
 * Server-side request forgery guard for every outbound fetch (webhook
 * delivery, scans, brand extraction): http(s) only, no loopback, private,
 * link-local, unique-local, multicast, reserved or metadata addresses, checked
 * when the socket connects (so DNS rebinding between check and use cannot
 * slip through) and again on every redirect; size and time caps.
 * `allowPrivateTargets` lifts only the address rule, for local development.
 */

export type OutboundFailure = "scheme" | "address" | "redirects" | "timeout" | "too_large" | "network"

export class OutboundError extends Data.TaggedError("OutboundError")<{
  readonly reason: OutboundFailure
  readonly message: string
}> {}

// ---- Address classification (pure) -----------------------------------------

const parseIpv4 = (text: string): Uint8Array | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined
  return Uint8Array.from(parts.map(Number))
}

const parseIpv6 = (input: string): Uint8Array | undefined => {
  let text = cutLastLineAt(input, /%/)
  if (!net.isIPv6(text)) return undefined
  // A trailing dotted quad (::ffff:1.2.3.4) becomes its two hex groups.
  const dotted = /(?<!\d)(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted !== null) {
    const v4 = parseIpv4(dotted[1])
    if (v4 === undefined) return undefined
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16)
    text = text.slice(0, -dotted[1].length) + hex(v4[0], v4[1]) + ":" + hex(v4[2], v4[3])
  }
  const [head, rest] = text.split("::") as [string, string | undefined]
  const groups = (s: string) => (s.length === 0 ? [] : s.split(":").map((g) => parseInt(g, 16)))
  const left = groups(head)
  const right = rest === undefined ? [] : groups(rest)
  const words = rest === undefined
    ? left
    : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
  if (words.length !== 8) return undefined
  return Uint8Array.from(words.flatMap((w) => [w >> 8, w & 0xff]))
}

const inPrefix = (bytes: Uint8Array, prefix: ReadonlyArray<number>, bits: number): boolean => {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3
    const mask = 0x80 >> (i & 7)
    if ((bytes[byte] & mask) !== ((prefix[byte] ?? 0) & mask)) return false
  }
  return true
}

/**
 * IPv4 ranges no outbound request may reach: every block of the IANA IPv4
 * Special-Purpose Address Registry that is not globally reachable, plus
 * multicast and the old 6to4 relay anycast. The kind is for logs and tests;
 * callers are told only that an address is not public.
 */
const blockedV4: ReadonlyArray<readonly [ReadonlyArray<number>, number, string]> = [
  [[0], 8, "this-network"],
  [[10], 8, "private"],
  [[100, 64], 10, "shared (carrier-grade NAT)"],
  [[127], 8, "loopback"],
  [[169, 254], 16, "link-local or metadata"],
  [[172, 16], 12, "private"],
  [[192, 0, 0], 24, "IETF protocol assignments"],
  [[192, 0, 2], 24, "documentation"],
  [[192, 88, 99], 24, "6to4 relay"],
  [[192, 168], 16, "private"],
  [[198, 18], 15, "benchmarking"],
  [[198, 51, 100], 24, "documentation"],
  [[203, 0, 113], 24, "documentation"],
  [[224], 4, "multicast"],
  [[240], 4, "reserved or broadcast"]
]

/**
 * IPv6 blocks of the IANA IPv6 Special-Purpose Address Registry that are not
 * globally reachable, plus multicast and the deprecated site-local and
 * IPv4-compatible forms. Forms that embed an IPv4 address and are routed as
 * such (IPv4-mapped, NAT64 well-known prefix, 6to4) are judged by that
 * address instead (see blockedReason).
 */
const blockedV6: ReadonlyArray<readonly [ReadonlyArray<number>, number, string]> = [
  [[], 128, "unspecified"],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback"],
  [[], 96, "IPv4-compatible"],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96, "IPv4-translated (SIIT)"],
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, "NAT64 local-use"],
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, "discard-only"],
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0x01], 64, "dummy prefix"],
  [[0x20, 0x01, 0x00, 0x00], 23, "IETF protocol assignments (Teredo, benchmarking, ORCHID)"],
  [[0x20, 0x01, 0x0d, 0xb8], 32, "documentation"],
  [[0x3f, 0xff, 0x00], 20, "documentation"],
  [[0x5f, 0x00], 16, "segment routing (SRv6) SIDs"],
  [[0xfc], 7, "unique-local"],
  [[0xfe, 0x80], 10, "link-local"],
  [[0xfe, 0xc0], 10, "site-local"],
  [[0xff], 8, "multicast"]
]

const classifyV4 = (bytes: Uint8Array): string | undefined =>
  blockedV4.find(([prefix, bits]) => inPrefix(bytes, prefix, bits))?.[2]

/**
 * Why `address` may not be reached, or undefined when it is a public unicast
 * address. IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4) are
 * judged by the embedded address; anything unparseable is refused.
 */
export const blockedReason = (address: string): string | undefined => {
  const v4 = parseIpv4(address)
  if (v4 !== undefined) return classifyV4(v4)
  const v6 = parseIpv6(address)
  if (v6 === undefined) return "not an IP address"
  const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
  const nat64 = [0x00, 0x64, 0xff, 0x9b]
  if (inPrefix(v6, mapped, 96) || inPrefix(v6, nat64, 96)) return classifyV4(v6.slice(12))
  if (inPrefix(v6, [0x20, 0x02], 16)) return classifyV4(v6.slice(2, 6))
  return blockedV6.find(([prefix, bits]) => inPrefix(v6, prefix, bits))?.[2]
}

// ---- Host checks ------------------------------------------------------------

const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1")

const isLocalName = (host: string) => /(?:^|\.)localhost\.?$/i.test(host)

/** The refusal names the host, never what it resolved to nor which kind of address that was. */
const refuse = (host: string) => new OutboundError({ reason: "address", message: `${host} is not a public address` })

const checkScheme = (url: URL): OutboundError | undefined =>
  url.protocol === "http:" || url.protocol === "https:"
    ? undefined
    : new OutboundError({ reason: "scheme", message: "only http and https URLs are allowed" })

/** The refusal for a host that is an address literal or a local name, if any. */
const literalRefusal = (host: string, allowed: ReadonlyArray<string>): OutboundError | undefined => {
  if (isLocalName(host)) return refuse(host)
  if (net.isIP(host) === 0 || allowed.includes(host)) return undefined
  return blockedReason(host) === undefined ? undefined : refuse(host)
}

/** A host-name lookup answers within this time or fails: a slow resolver must not hold a delivery slot. */
export const lookupTimeoutMs = 5_000

const lookupAll = (host: string) =>
  new Promise<Array<dns.LookupAddress>>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new OutboundError({ reason: "timeout", message: `${host} did not resolve within ${lookupTimeoutMs} ms` })
        ),
      lookupTimeoutMs
    )
    dns.lookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer)
      if (error) reject(error)
      else resolve(addresses)
    })
  })

/** Resolves `host` once; fails when any of its addresses is not public (nor explicitly allowed). */
const resolvePublic = async (host: string, allowed: ReadonlyArray<string> = []): Promise<Array<dns.LookupAddress>> => {
  const addresses = await lookupAll(host)
  for (const { address } of addresses) {
    if (!allowed.includes(address) && blockedReason(address) !== undefined) throw refuse(host)
  }
  return addresses
}

/**
 * Checks a target before it is stored (a webhook url): scheme, then unless
 * `allowPrivateTargets` the host and what it resolves to. A name that does not
 * resolve now is accepted; the guard at connect time still applies.
 */
export const checkTarget = (target: string, allowPrivateTargets: boolean): Effect.Effect<void, OutboundError> =>
  Effect.gen(function*() {
    const url = new URL(target)
    const scheme = checkScheme(url)
    if (scheme !== undefined) return yield* scheme
    if (allowPrivateTargets) return
    const host = bareHost(url)
    const literal = literalRefusal(host, [])
    if (literal !== undefined) return yield* literal
    if (net.isIP(host) !== 0) return
    const refusal = yield* Effect.promise(() =>
      resolvePublic(host).then(() => undefined, (e) => (e instanceof OutboundError ? e : undefined))
    )
    if (refusal !== undefined) return yield* refusal
  })

/**
 * The socket's `lookup`: one resolution, refused when any answer is not
 * public, and the connection goes to exactly the addresses that were checked.
 */
const guardedLookup = (allowed: ReadonlyArray<string>): net.LookupFunction => (hostname, options, callback) => {
  resolvePublic(hostname, allowed).then(
    (addresses) =>
      options.all === true
        ? (callback as unknown as (e: null, a: Array<dns.LookupAddress>) => void)(null, addresses)
        : callback(null, addresses[0].address, addresses[0].family),
    (error: NodeJS.ErrnoException) => callback(error, "", 4)
  )
}

// ---- Fetch ------------------------------------------------------------------

export interface SafeFetchOptions {
  readonly allowPrivateTargets: boolean
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** Redirects followed (each re-checked); 0 returns the 3xx itself. Default 5. */
  readonly maxRedirects?: number
  /** Whole exchange, redirects included. Default 10 s. */
  readonly timeoutMs?: number
  /** Response body cap. Default 5 MiB. */
  readonly maxBytes?: number
  /**
   * What passing `maxBytes` does: "fail" (default) refuses the response;
   * "truncate" stops reading there and answers with what came.
   */
  readonly overflow?: "fail" | "truncate"
  /**
   * IP addresses let through although not public (exact literals, also when
   * a name resolves to them): a known internal receiver, or a test's own
   * server. Every other address still meets the rule.
   */
  readonly allowAddresses?: ReadonlyArray<string>
}

export interface SafeResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  /** The URL that answered, after redirects. */
  readonly url: string
}

interface Hop {
  readonly url: URL
  readonly method: string
  readonly body: string | undefined
}

const requestOnce = (hop: Hop, options: SafeFetchOptions, signal: AbortSignal): Promise<SafeResponse> =>
  new Promise((resolve, reject) => {
    const scheme = checkScheme(hop.url)
    if (scheme !== undefined) return reject(scheme)
    const host = bareHost(hop.url)
    const allowed = options.allowAddresses ?? []
    const literal = options.allowPrivateTargets ? undefined : literalRefusal(host, allowed)
    if (literal !== undefined) return reject(literal)
    const maxBytes = options.maxBytes ?? 5 * 1024 * 1024
    const headers: Record<string, string> = { "user-agent": "Herald/1.0", ...options.headers }
    if (hop.body !== undefined) headers["content-length"] = String(Buffer.byteLength(hop.body))
    const request = (hop.url.protocol === "https:" ? https : http).request(hop.url, {
      method: hop.method,
      headers,
      signal,
      agent: false,
      ...(options.allowPrivateTargets ? {} : { lookup: guardedLookup(allowed) })
    }, (response) => {
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > maxBytes && options.overflow === "truncate") {
          chunks.push(chunk.subarray(0, chunk.length - (size - maxBytes)))
          response.destroy()
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            url: hop.url.href
          })
        } else if (size > maxBytes) {
          response.destroy()
          reject(new OutboundError({ reason: "too_large", message: `response body exceeds ${maxBytes} bytes` }))
        } else chunks.push(chunk)
      })
      response.on("error", reject)
      response.on(
        "end",
        () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            url: hop.url.href
          })
      )
    })
    request.on("error", reject)
    request.end(hop.body)
  })

const isRedirect = (status: number) =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308

const toOutboundError = (error: unknown, timedOut: boolean): OutboundError => {
  if (error instanceof OutboundError) return error
  if (timedOut) return new OutboundError({ reason: "timeout", message: "timed out" })
  const code = (error as NodeJS.ErrnoException)?.code
  const text = error instanceof Error ? error.message : String(error)
  return new OutboundError({ reason: "network", message: code === undefined ? text : `${code}: ${text}` })
}

/**
 * Fetches `target` under the guard. Interrupting the effect aborts the request.
 * A 303, or a 301/302 answering a POST, is followed with GET and no body, as
 * browsers do; 307/308 repeat the method and body.
 */
export const safeFetch = (target: string, options: SafeFetchOptions): Effect.Effect<SafeResponse, OutboundError> => {
  const timeoutMs = options.timeoutMs ?? 10_000
  const maxRedirects = options.maxRedirects ?? 5
  return Effect.suspend(() => {
    const deadline = AbortSignal.timeout(timeoutMs)
    return Effect.tryPromise({
      try: async (interrupted) => {
        const signal = AbortSignal.any([interrupted, deadline])
        let hop: Hop = { url: new URL(target), method: options.method ?? "GET", body: options.body }
        for (let redirects = 0;; redirects++) {
          const response = await requestOnce(hop, options, signal)
          const location = response.headers.location
          if (!isRedirect(response.status) || location === undefined || maxRedirects === 0) return response
          if (redirects >= maxRedirects) {
            throw new OutboundError({ reason: "redirects", message: `more than ${maxRedirects} redirects` })
          }
          const keep = response.status === 307 || response.status === 308 || hop.method === "GET" ||
            hop.method === "HEAD"
          hop = {
            url: new URL(location, hop.url),
            method: keep ? hop.method : "GET",
            body: keep ? hop.body : undefined
          }
        }
      },
      catch: (error) => toOutboundError(error, deadline.aborted)
    })
  })
}
