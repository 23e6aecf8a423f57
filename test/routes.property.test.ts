import { assert, describe, it } from "@effect/vitest"
import * as FindMyWay from "effect/http/FindMyWay"
import fc from "fast-check"
import { allowedMethods, allRoutes } from "../src/platform/http/Routes.ts"

const routes = allRoutes()

/** The answer without any cache: every method looked up on the path itself. */
const reference = (path: string) => {
  const router = FindMyWay.make<true>({ ignoreTrailingSlash: true })
  for (const [method, route] of routes) router.on(method, route as `/${string}`, true)
  const allowed: Array<string> = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    .filter((method) => router.find(method, path) !== undefined)
  if (allowed.includes("GET")) allowed.splice(1, 0, "HEAD")
  return allowed
}

const literals = [
  ...new Set(routes.flatMap(([, route]) => route.split("/").filter((s: string) => s !== "" && !s.startsWith(":"))))
]
const segment = fc.oneof(
  fc.constantFrom(...literals),
  fc.uuid(),
  fc.constantFrom("", ":", "x", "%2F", "review", "API", "..", "#", "?", ";", "*"),
  fc.string({ maxLength: 6 })
)

describe("allowed methods (properties)", () => {
  it("a path answers what a direct lookup of that path answers, however its ids are cached", () => {
    const paths = fc.oneof(
      // Real route shapes with random fillings, and random segment soup.
      fc.constantFrom(...routes.map(([, route]) => route)).chain((route) =>
        fc.tuple(...route.split("/").map((s: string) => s.startsWith(":") ? segment : fc.constant(s))).map((parts) =>
          parts.join("/")
        )
      ),
      fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => `/${parts.join("/")}`)
    )
    fc.assert(
      fc.property(paths, fc.boolean(), (path, slash) => {
        const url = slash ? `${path}/` : path
        assert.deepStrictEqual(allowedMethods(url), reference(url), url)
        assert.deepStrictEqual(allowedMethods(`${url}?q=1`), reference(url), url)
      }),
      { numRuns: 2000 }
    )
  })
})
