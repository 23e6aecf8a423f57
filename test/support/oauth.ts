import type { OAuthClientProvider } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync } from "node:fs"
import https from "node:https"
import { tmpdir } from "node:os"
import { join } from "node:path"
import tls from "node:tls"
import { freePort } from "./harness.ts"

type ProviderShape = Omit<OAuthClientProvider, "redirectUrl" | "clientMetadata">

/**
 * An OAuth client provider that keeps everything in memory, as a desktop
 * assistant would keep it on disk: the SDK calls it through the flow; the
 * test reads where it was sent to authorize.
 */
export class MemoryProvider implements ProviderShape {
  information: any
  stored: any
  verifier = ""
  discovery: any
  authorizationUrl: URL | undefined
  clientMetadataUrl?: string
  readonly redirect: string
  readonly name: string

  constructor(redirect: string, name: string, metadataUrl?: string) {
    this.redirect = redirect
    this.name = name
    if (metadataUrl !== undefined) this.clientMetadataUrl = metadataUrl
  }

  get redirectUrl() {
    return this.redirect
  }

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"]
    }
  }

  state() {
    return "state-from-the-client"
  }
  clientInformation() {
    return this.information
  }
  saveClientInformation(information: any) {
    this.information = information
  }
  tokens() {
    return this.stored
  }
  saveTokens(tokens: any) {
    this.stored = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  saveDiscoveryState(state: any) {
    this.discovery = state
  }
  discoveryState() {
    return this.discovery
  }
}

/** A PKCE pair (RFC 7636 S256). */
export const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

let certificate: { readonly key: string; readonly cert: string } | undefined

/**
 * A self-signed certificate for 127.0.0.1, trusted by this process's TLS
 * clients from now on (the app under test runs in this process and fetches
 * client metadata documents over https only).
 */
export const trustedLocalCertificate = () => {
  if (certificate !== undefined) return certificate
  const dir = mkdtempSync(join(tmpdir(), "herald-oauth-tls-"))
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem")
  ], { stdio: "ignore" })
  certificate = { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") }
  tls.setDefaultCACertificates([...tls.getCACertificates("default"), certificate.cert])
  return certificate
}

export interface DocumentServer {
  readonly origin: string
  /** How many times each path was fetched. */
  readonly fetches: Map<string, number>
}

/**
 * An https server on the loopback publishing client metadata documents:
 * `documents` maps a path to what it answers (a body, or a status and body).
 */
export const documentServer = (
  documents: (
    origin: string
  ) => Record<string, { readonly status?: number; readonly body: string; readonly type?: string }>
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const { key, cert } = trustedLocalCertificate()
      const port = await freePort()
      const origin = `https://127.0.0.1:${port}`
      const table = documents(origin)
      const fetches = new Map<string, number>()
      const server = https.createServer({ key, cert }, (request, response) => {
        const path = request.url ?? "/"
        fetches.set(path, (fetches.get(path) ?? 0) + 1)
        const doc = table[path]
        if (doc === undefined) {
          response.writeHead(404).end()
          return
        }
        response.writeHead(doc.status ?? 200, { "content-type": doc.type ?? "application/json" }).end(doc.body)
      })
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
      return { server, value: { origin, fetches } satisfies DocumentServer }
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  ).pipe(Effect.map(({ value }) => value))
