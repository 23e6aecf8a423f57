import { Effect } from "effect"
import { afterAll } from "vitest"
import { type Served, serveSite, type Site } from "./scan-sites.ts"

/**
 * A `site` function for one test file: serves a fixture site (on `host`,
 * loopback 127.0.0.1 by default) and closes every site it served after the
 * file's tests.
 */
export const servedSites = () => {
  const served: Array<Served> = []
  afterAll(() => Promise.all(served.map((s) => s.close())))
  return (s: Site, host?: string) =>
    Effect.promise(async () => {
      const one = await serveSite(s, host)
      served.push(one)
      return one
    })
}
