import { Effect } from "effect"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { analyse, type Analysis } from "./checks/index.ts"
import { type FetchOptions, fetchSite } from "./Fetch.ts"

/**
 * The scan's work on a third-party page, run in a page pool worker (see
 * platform/PagePool.ts): fetch the page and its site files through the
 * outbound guard, then every check. The answer is plain data.
 */
export type ScanOutcome =
  | { readonly ok: true; readonly analysis: Analysis }
  | { readonly ok: false; readonly reason: string }

export const scanJob = { module: new URL(import.meta.url).href, name: "scanPage" } as const

export const scanPage = (input: { readonly url: string; readonly options: FetchOptions }): Promise<ScanOutcome> =>
  Effect.runPromise(
    fetchSite(input.url, input.options).pipe(
      Effect.map((site): ScanOutcome => ({ ok: true, analysis: analyse(site) })),
      Effect.catch((failure) => Effect.succeed<ScanOutcome>({ ok: false, reason: failure.message }))
    )
  )

/**
 * Run once by a new worker before it takes jobs: a scan of a page served by
 * the worker itself on loopback, so that the first real scan's measured
 * response time is the site's, not a cold process's first request and parse.
 */
export const warm = async (): Promise<void> => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" })
    res.end(
      "<!doctype html><html lang=\"en\"><head><title>Warm</title></head><body><h1>Warm</h1><a href=\"/a\">a</a></body></html>"
    )
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  try {
    const { port } = server.address() as AddressInfo
    await scanPage({ url: `http://127.0.0.1:${port}/`, options: { allowPrivateTargets: true, timeoutMs: 5_000 } })
  } finally {
    server.closeAllConnections()
    server.close()
  }
}
