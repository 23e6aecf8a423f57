import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { externalDatabaseUrl, type Reply, send } from "./support/harness.ts"
import { serveHostileCorpus } from "./support/hostile-sites.ts"
import { httpClient } from "./support/mcp-clients.ts"
import {
  adminSecret,
  bearer,
  provisionAt,
  type ServerProcess,
  sharedDatabase,
  spawnServer
} from "./support/processes.ts"
import { serveSite, sites } from "./support/scan-sites.ts"

/** Resident memory of a process, in bytes (Linux). */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024

const alive = (server: ServerProcess) => server.child.exitCode === null && server.child.signalCode === null

/** Reads /api/health every 50 ms and the service's RSS every 100 ms until stopped. */
const watch = (server: ServerProcess) => {
  const health = { ok: 0, failed: [] as Array<string> }
  let peakRss = rssOf(server.child.pid!)
  let running = true
  const probe = (async () => {
    while (running) {
      const started = Date.now()
      try {
        const res = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(10_000) })
        await res.arrayBuffer()
        if (res.status === 200) health.ok++
        else health.failed.push(`HTTP ${res.status}`)
      } catch (error) {
        health.failed.push(String(error))
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 50 - (Date.now() - started))))
    }
  })()
  const sampler = setInterval(() => {
    if (alive(server)) peakRss = Math.max(peakRss, rssOf(server.child.pid!))
  }, 100)
  return {
    stop: async () => {
      running = false
      clearInterval(sampler)
      await probe
      return { health, peakRss }
    }
  }
}

/** A scan ends `done` or `failed` with its reason; never an error status. */
const assertScanEnded = (name: string, res: Reply) => {
  assert.strictEqual(res.status, 200, `${name}: ${res.text}`)
  assert.include(["done", "failed"], res.json.status, name)
  if (res.json.status === "failed") {
    assert.isAbove(String(res.json.error ?? "").length, 0, `${name}: a failed scan says why`)
  }
}

it.live.skipIf(!existsSync("/usr/bin/chromium"))(
  "hostile pages through scans, auto-extract, screenshots, the MCP scan tools and a workflow, a hostile chat message beside them: the service stays up, responsive and lean",
  () =>
    Effect.gen(function*() {
      const corpus = yield* Effect.acquireRelease(Effect.promise(serveHostileCorpus), (c) => Effect.promise(c.close))
      const good = yield* Effect.acquireRelease(Effect.promise(() => serveSite(sites.wellMarkedUp)), (s) =>
        Effect.promise(s.close))
      const database = externalDatabaseUrl() === undefined ? "pglite://memory" : yield* sharedDatabase
      const server = yield* spawnServer({
        readyTimeoutMs: 60_000,
        env: {
          DATABASE_URL: database,
          ADMIN_SECRET: adminSecret,
          ALLOW_PRIVATE_TARGETS: "true",
          CHROMIUM_PATH: "/usr/bin/chromium",
          SCAN_JOB_TIMEOUT_MS: "5000",
          SCAN_WORKERS: "4",
          SCAN_MAX_CONCURRENT: "16",
          SCAN_QUEUE_MAX: "40",
          RATE_LIMIT_REST_PER_MIN: "100000",
          RATE_LIMIT_MCP_PER_MIN: "100000",
          RATE_LIMIT_ADMIN_PER_MIN: "100000"
        }
      })
      const api = (owner: { customerId: string; apiKey: string }, path: string, body: unknown) =>
        Effect.promise(() =>
          send(server.url, "POST", path.replace("{c}", owner.customerId), { headers: bearer(owner.apiKey), body })
        )
      const customer = () =>
        Effect.promise(() => provisionAt(server))

      // Warm: workers, Chromium and playwright loaded, so the baseline is the service at work, not at rest.
      const warm = yield* customer()
      const first = yield* api(warm, "/api/scan/{c}", { url: `${good.origin}/` })
      assert.strictEqual(first.json.status, "done", first.text)
      const baselineRss = rssOf(server.child.pid!)
      const watcher = watch(server)

      const scans = Effect.forEach(Object.entries(corpus.pages), ([name, url]) =>
        Effect.flatMap(customer(), (owner) =>
          api(owner, "/api/scan/{c}", { url })).pipe(Effect.map((res) => ({ name, res }))), {
        concurrency: "unbounded"
      })
      const extracts = Effect.forEach(["redos", "huge", "drip", "redirect", "images", "download"], (name) =>
        Effect.flatMap(customer(), (owner) =>
          api(owner, "/api/onboard/{c}/auto-extract", { url: corpus.pages[name] })).pipe(
            Effect.map((res) => ({ name, res }))
          ), { concurrency: "unbounded" })
      const tools = Effect.scoped(Effect.gen(function*() {
        const owner = yield* customer()
        const client = yield* httpClient(server.url, owner.apiKey)
        return yield* Effect.forEach(
          [
            ["ai_seo_audit", "popup"],
            ["cro_audit", "images"],
            ["check_ai_visibility", "redos"]
          ] as const,
          ([tool, name]) =>
            Effect.promise(() =>
              client.callTool(
                { name: tool, arguments: { customerId: owner.customerId, url: corpus.pages[name] } },
                undefined,
                { timeout: 120_000 }
              )
            ).pipe(Effect.map((result: any) => ({ tool, result }))),
          { concurrency: "unbounded" }
        )
      }))
      // A workflow whose scan step meets a hostile page: the run ends (or waits for people) with its reason.
      const workflow = Effect.gen(function*() {
        const owner = yield* customer()
        const started = yield* api(owner, "/api/workflows/{c}/monthly-seo-audit/run", {
          input: { url: corpus.pages["popup"] }
        })
        assert.strictEqual(started.status, 200, started.text)
        for (let i = 0; i < 600; i++) {
          const run = yield* Effect.promise(() =>
            send(server.url, "GET", `/api/runs/${owner.customerId}/${started.json.runId}`, {
              headers: bearer(owner.apiKey)
            })
          )
          if (["succeeded", "failed", "suspended"].includes(run.json.status)) {
            return run.json
          }
          yield* Effect.sleep("200 millis")
        }
        return yield* Effect.die(new Error("the workflow run never ended"))
      })
      // A chat message built to make a careless JSON scan take minutes, beside the pages.
      const chat = Effect.gen(function*() {
        const owner = yield* customer()
        const message = `query_ga4 ${"{\"a\":".repeat(600)}${"}".repeat(1000)}`
        return yield* Effect.promise(async () => {
          const res = await fetch(`${server.url}/api/chat/${owner.customerId}`, {
            method: "POST",
            headers: { ...bearer(owner.apiKey), "content-type": "application/json" },
            body: JSON.stringify({ message })
          })
          return { status: res.status, text: await res.text() }
        })
      })
      const normal = Effect.flatMap(customer(), (owner) =>
        Effect.andThen(Effect.sleep("2 seconds"), api(owner, "/api/scan/{c}", { url: `${good.origin}/` })))

      const [scanned, extracted, called, beside, run, chatted] = yield* Effect.all([
        scans,
        extracts,
        tools,
        normal,
        workflow,
        chat
      ], {
        concurrency: "unbounded"
      })
      const { health, peakRss } = yield* Effect.promise(watcher.stop)

      assert.isTrue(alive(server), `the service exited:\n${server.output().slice(-4000)}`)
      for (const { name, res } of scanned) {
        assertScanEnded(`scan of ${name}`, res)
      }
      for (const { name, res } of extracted) {
        assert.include([200, 422], res.status, `auto-extract of ${name}: ${res.text}`)
        if (res.status === 422) {
          assert.strictEqual(res.json.code, "E_FETCH_FAILED", name)
          assert.match(res.json.error, /^The page could not be fetched: .+/, name)
        }
      }
      // Pages too large, dripping past the time limit or redirecting forever cannot be extracted from.
      for (const name of ["huge", "drip", "redirect"]) {
        assert.strictEqual(
          extracted.find((e) =>
            e.name === name
          )!.res.status,
          422,
          name
        )
      }
      for (const { tool, result } of called) {
        const text = result.content.map((c: any) =>
          c.text
        ).join("\n")
        assert.isAbove(text.length, 0, tool)
        if (result.isError === true) {
          assert.match(result.structuredContent.code, /^E_[A-Z_]+$/, `${tool}: ${text}`)
        } else assert.include(["done", "failed"], result.structuredContent.status, `${tool}: ${text}`)
      }
      if (run.status === "failed") {
        assert.isAbove(String(run.error ?? "").length, 0, "a failed run says why")
      }
      assert.strictEqual(chatted.status, 200, chatted.text)
      assert.include(chatted.text, "event: done", chatted.text.slice(0, 2000))
      assertScanEnded("the normal scan", beside)
      assert.strictEqual(beside.json.status, "done")
      assert.isAbove(beside.json.seoScore, 0)

      assert.deepStrictEqual(health.failed, [], "every health probe answered 200")
      assert.isAbove(health.ok, 20)
      assert.isBelow(peakRss - baselineRss, 300 * 1024 * 1024, `RSS grew from ${baselineRss} to ${peakRss}`)
      assert.strictEqual(corpus.udpPackets(), 0, "no WebRTC packet left the browser")

      // The scans of pages that cannot be read as HTML fail with their reason.
      const failedWith = (name: string) =>
        scanned.find((s) =>
          s.name === name
        )!.res.json.error as string
      assert.match(failedWith("huge"), /larger than 5 MiB/)
      assert.match(failedWith("redirect"), /Too many redirects/)
      assert.match(failedWith("drip"), /longer than 5 s|did not answer within/)
    }),
  { timeout: 180_000 }
)
