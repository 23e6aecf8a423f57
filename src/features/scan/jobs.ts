import { Effect } from "effect"
import { analyse, type Analysis } from "./checks/index.ts"
import { fetchSite, type FetchOptions } from "./Fetch.ts"

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
  Effect.runPromise(fetchSite(input.url, input.options).pipe(
    Effect.map((site): ScanOutcome => ({ ok: true, analysis: analyse(site) })),
    Effect.catch((failure) => Effect.succeed<ScanOutcome>({ ok: false, reason: failure.message }))
  ))
