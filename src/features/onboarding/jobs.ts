import { Effect } from "effect"
import type { BrandProfile } from "../../domain/Onboarding.ts"
import { safeFetch } from "../../platform/OutboundGuard.ts"
import { toPage } from "../scan/checks/Page.ts"
import {
  decodeBody,
  describeFailure,
  type FetchOptions,
  headerRecord,
  pageRequestHeaders,
  type SiteFile
} from "../scan/Fetch.ts"
import { extractProfile } from "./extract.ts"

/**
 * Brand extraction's work on a third-party page, run in a page pool worker
 * (see platform/PagePool.ts): fetch it through the outbound guard and read a
 * brand profile from it. The answer is plain data; a page that cannot be
 * read is a reason, never an invented profile.
 */
export type ExtractOutcome =
  | { readonly ok: true; readonly profile: BrandProfile }
  | { readonly ok: false; readonly reason: string }

export const extractJob = { module: new URL(import.meta.url).href, name: "extractBrand" } as const

const noFile: SiteFile = { url: "", status: null, content: null, error: undefined }

const failed = (reason: string): ExtractOutcome => ({ ok: false, reason })

export const extractBrand = (
  input: { readonly url: string; readonly options: FetchOptions }
): Promise<ExtractOutcome> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const { url, options } = input
      const response = yield* safeFetch(url, {
        allowPrivateTargets: options.allowPrivateTargets,
        allowAddresses: options.allowAddresses ?? [],
        headers: pageRequestHeaders
      })
      const headers = headerRecord(response)
      if (response.status >= 400) return failed(`it answered HTTP ${response.status}`)
      const type = (headers["content-type"] ?? "text/html").split(";")[0].trim().toLowerCase()
      if (type !== "text/html" && type !== "application/xhtml+xml") return failed(`not HTML (Content-Type: ${type})`)
      const page = toPage({
        requestedUrl: url,
        url: response.url,
        status: response.status,
        headers,
        html: decodeBody(response.body, headers["content-type"]),
        bytes: response.body.length,
        elapsedMs: 0,
        robots: noFile,
        llms: noFile,
        llmsFull: noFile,
        sitemap: noFile,
        fetchedAt: new Date()
      })
      return { ok: true, profile: extractProfile(page) } satisfies ExtractOutcome
    }).pipe(Effect.catch((error) => Effect.succeed(failed(describeFailure(error)))))
  )
