import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { eventually } from "./support/eventually.ts"
import { call, testApp } from "./support/harness.ts"
import { bearer, provision } from "./support/processes.ts"
import { type Site, sites } from "./support/scan-sites.ts"
import { servedSites } from "./support/served-sites.ts"

const site = servedSites()

const slowPage = (delayMs: number): Site => () => ({
  "/": {
    headers: { "content-type": "text/html" },
    body: "<html><head><title>Slow</title></head><body><h1>Slow</h1></body></html>",
    delayMs
  }
})

const scan = (owner: { customerId: string; apiKey: string }, url: string) =>
  call("POST", `/api/scan/${owner.customerId}`, { headers: bearer(owner.apiKey), body: { url } })

/** The page pool's worker processes: this process's children running the pool's worker module. */
const poolWorkers = (): ReadonlyArray<number> =>
  readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      const command = readFileSync(`/proc/${name}/cmdline`, "utf8")
      return parent === process.pid && command.includes("pageWorker.ts") ? [Number(name)] : []
    } catch {
      return []
    }
  })

const live = { timeout: 120_000, excludeTestServices: true }

layer(testApp({ chromiumPath: "/nonexistent/chromium" }), live)("a scan worker killed mid-job", (it) => {
  it.effect("fails that one scan with its reason; the next scan passes", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const slow = yield* site(slowPage(60_000))
      const pending = yield* Effect.forkChild(scan(owner, `${slow.origin}/`))
      // The worker is inside the job once the page has been asked for.
      yield* eventually(Effect.sync(() => slow.maxInFlight.get("/") === 1 ? true : undefined), 60_000)
      const workers = poolWorkers()
      assert.isAbove(workers.length, 0)
      for (const pid of workers) process.kill(pid, "SIGKILL")
      const killed = yield* Fiber.join(pending)
      assert.strictEqual(killed.status, 200, killed.text)
      assert.strictEqual(killed.json.status, "failed")
      assert.match(
        killed.json.error,
        /^The page could not be scanned: the worker processing the page stopped \(SIGKILL\)$/
      )
      const stored = yield* call("GET", `/api/scan/${owner.customerId}/${killed.json.scanId}`, {
        headers: bearer(owner.apiKey)
      })
      assert.strictEqual(stored.json.status, "failed")

      const good = yield* site(sites.wellMarkedUp)
      const next = yield* scan(owner, `${good.origin}/`)
      assert.strictEqual(next.status, 200, next.text)
      assert.strictEqual(next.json.status, "done")
      assert.isAbove(next.json.seoScore, 0)
    }))
})

layer(testApp({ chromiumPath: "/nonexistent/chromium", scanJobTimeoutMs: 3_000 }), live)(
  "a page that hangs its worker",
  (it) => {
    it.effect("is a failed scan once the job's time is up", () =>
      Effect.gen(function*() {
        const owner = yield* provision()
        // The page answers its headers and then nothing: the fetch would wait 10 s, the job has 3.
        const stuck = yield* site(slowPage(60_000))
        const res = yield* scan(owner, `${stuck.origin}/`)
        assert.strictEqual(res.status, 200, res.text)
        assert.strictEqual(res.json.status, "failed")
        assert.strictEqual(res.json.error, "The page could not be scanned: processing the page took longer than 3 s")
      }))
  }
)

layer(testApp({ chromiumPath: "/nonexistent/chromium", scanMaxConcurrent: 1, scanQueueMax: 1 }), live)(
  "the global bound on scans",
  (it) => {
    it.effect("one running and one waiting across customers: the next is refused 503 E_UNAVAILABLE with Retry-After", () =>
      Effect.gen(function*() {
        const [one, two, three] = yield* Effect.all([provision(), provision(), provision()])
        const slow = yield* site(slowPage(2_000))
        const first = yield* Effect.forkChild(scan(one, `${slow.origin}/`))
        yield* eventually(Effect.sync(() => slow.maxInFlight.get("/") === 1 ? true : undefined), 60_000)
        const second = yield* Effect.forkChild(scan(two, `${slow.origin}/`))
        // The second is admitted and waits (its customer has room, the server has not).
        yield* Effect.sleep("300 millis")
        const refused = yield* scan(three, `${slow.origin}/`)
        assert.strictEqual(refused.status, 503, refused.text)
        assert.strictEqual(refused.json.code, "E_UNAVAILABLE")
        assert.strictEqual(refused.headers.get("retry-after"), "10")
        const listed = yield* call("GET", `/api/scan/${three.customerId}`, { headers: bearer(three.apiKey) })
        assert.deepStrictEqual(listed.json.scans, [])

        const results = yield* Effect.all([Fiber.join(first), Fiber.join(second)])
        assert.deepStrictEqual(results.map((r) => r.json.status), ["done", "done"])
        // Never two at once: the second waited for the first.
        assert.strictEqual(slow.maxInFlight.get("/"), 1)
        const again = yield* scan(three, `${slow.origin}/`)
        assert.strictEqual(again.json.status, "done")
      }))
  }
)
