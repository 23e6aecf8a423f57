import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { externalDatabaseUrl, freePort, freshSchemaUrl, send } from "./support/harness.ts"
import { sharedDatabase } from "./support/processes.ts"
import { tcpProxy } from "./support/tcp-proxy.ts"

const root = fileURLToPath(new URL("..", import.meta.url))

interface Spawned {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** `node src/main.ts` with exactly the given environment (plus PATH and HOME). */
const spawnMain = (env: Record<string, string>): Spawned => {
  const child = spawn(process.execPath, ["src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  let err = ""
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal }))
  )
  return { child, stdout: () => out, stderr: () => err, exited }
}

/** Killed at the end of the test whatever happened. */
const scopedMain = (env: Record<string, string>) =>
  Effect.acquireRelease(Effect.sync(() => spawnMain(env)), ({ child }) =>
    Effect.sync(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    }))

const waitUntilServing = (baseUrl: string, spawned: Spawned, ms: number) =>
  Effect.promise(async () => {
    const deadline = Date.now() + ms
    while (Date.now() < deadline) {
      if (spawned.child.exitCode !== null) throw new Error(`server exited early:\n${spawned.stderr()}`)
      try {
        const res = await send(baseUrl, "GET", "/api/health")
        if (res.status === 200) return
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error(`server did not answer within ${ms} ms:\n${spawned.stdout()}\n${spawned.stderr()}`)
  })

const databaseEnv = Effect.suspend(() => {
  const external = externalDatabaseUrl()
  return external === undefined
    ? Effect.succeed("pglite://memory")
    : freshSchemaUrl(external)
})

const withTimeout = <A>(promise: Promise<A>, ms: number) =>
  Promise.race([promise, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms))])

describe("the server process", () => {
  it.live("logs one JSON line per request without secrets, and stops cleanly on SIGTERM", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const baseUrl = `http://127.0.0.1:${port}`
      const adminSecret = "process-test-admin-secret-8c1e"
      const spawned = yield* scopedMain({
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: yield* databaseEnv,
        ADMIN_SECRET: adminSecret,
        LOG_LEVEL: "info"
      })
      yield* waitUntilServing(baseUrl, spawned, 90_000)

      const provisioned = yield* Effect.promise(() =>
        send(baseUrl, "POST", "/api/admin/provision", {
          headers: { "x-admin-secret": adminSecret },
          body: { email: "logs@example.com", status: "active" }
        })
      )
      assert.strictEqual(provisioned.status, 200, provisioned.text)
      const { customerId, apiKey } = provisioned.json as { customerId: string; apiKey: string }
      const bogus = "svc_live_" + "ab".repeat(32)

      const requests: Array<readonly [method: string, path: string, headers: Record<string, string>]> = [
        ["GET", `/api/customer/${customerId}`, { authorization: `Bearer ${apiKey}` }],
        ["GET", `/api/customer/${customerId}?token=${apiKey}`, {}],
        ["GET", `/api/events/${customerId}?limit=5&token=${apiKey}`, { authorization: `Bearer ${apiKey}` }],
        ["GET", `/api/customer/${customerId}`, { authorization: `Bearer ${bogus}` }],
        // A key in the query of the MCP stream (a bogus one: a valid one opens a stream that never ends).
        ["GET", `/mcp/sse?token=${bogus}`, {}],
        ["GET", `/api/health?token=${apiKey}`, { "x-request-id": "trace-me-1234" }],
        ["DELETE", "/api/health", {}],
        ["GET", "/no/such/route", { authorization: `Bearer ${apiKey}` }]
      ]
      const sent: Array<{ id: string; method: string; path: string; status: number }> = []
      const provisionId = provisioned.headers.get("x-request-id")!
      sent.push({ id: provisionId, method: "POST", path: "/api/admin/provision", status: 200 })
      for (const [method, path, headers] of requests) {
        const res = yield* Effect.promise(() => send(baseUrl, method, path, { headers }))
        sent.push({ id: res.headers.get("x-request-id")!, method, path: path.split("?")[0], status: res.status })
      }
      // Log lines are written as the response goes out: wait until the last one is there.
      yield* Effect.promise(async () => {
        const deadline = Date.now() + 5_000
        while (!sent.every((s) => spawned.stdout().includes(s.id)) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20))
        }
      })

      const stdout = spawned.stdout()
      const output = stdout + spawned.stderr()
      for (const secret of [apiKey, bogus, adminSecret, apiKey.slice(9)]) {
        assert.notInclude(output, secret, "a secret reached the logs")
      }
      const lines = stdout.split("\n").filter((line) => line.trim().length > 0)
      const entries = lines.map((line) => {
        try {
          return JSON.parse(line)
        } catch {
          return assert.fail(`log line is not JSON: ${line}`)
        }
      })
      const requestLines = entries.filter((e) => e.message === "request")
      for (const request of sent) {
        const matching = requestLines.filter((e) => e.annotations?.requestId === request.id)
        assert.strictEqual(matching.length, 1, `one log line for ${request.method} ${request.path}`)
        const a = matching[0].annotations
        assert.strictEqual(a.method, request.method)
        assert.strictEqual(a.path, request.path)
        assert.strictEqual(a.status, request.status)
        assert.isNumber(a.durationMs)
        assert.isAtLeast(a.durationMs, 0)
        assert.strictEqual(matching[0].level, "INFO")
        assert.isString(matching[0].timestamp)
      }
      assert.isTrue(sent.some((s) => s.id === "trace-me-1234"))

      spawned.child.kill("SIGTERM")
      const exit = yield* Effect.promise(() => withTimeout(spawned.exited, 8_000))
      assert.notStrictEqual(exit, "timeout", "the server did not stop within 8 s of SIGTERM")
      assert.deepStrictEqual(exit, { code: 0, signal: null })
    }).pipe(Effect.scoped), { timeout: 180_000 })

  it.live("waits at start for a database that is not up yet, then serves", () =>
    Effect.gen(function*() {
      const database = new URL(yield* sharedDatabase)
      const proxy = yield* tcpProxy(database.hostname, Number(database.port || 5432))
      yield* Effect.promise(() => proxy.cut())
      database.hostname = "127.0.0.1"
      database.port = String(proxy.port)
      const port = yield* Effect.promise(freePort)
      const baseUrl = `http://127.0.0.1:${port}`
      const spawned = yield* scopedMain({
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: database.toString(),
        LOG_LEVEL: "warn"
      })
      // Refused: the process says so and keeps trying rather than exiting.
      yield* Effect.promise(async () => {
        const deadline = Date.now() + 60_000
        while (!spawned.stdout().includes("database unreachable at start") && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100))
        }
      })
      assert.include(spawned.stdout(), "database unreachable at start", spawned.stderr())
      assert.isNull(spawned.child.exitCode)
      assert.notInclude(spawned.stdout() + spawned.stderr(), database.password || "\u0000", "no password in the logs")
      yield* Effect.promise(() => proxy.restore())
      yield* waitUntilServing(baseUrl, spawned, 60_000)
      const ready = yield* Effect.promise(() => send(baseUrl, "GET", "/api/health/ready"))
      assert.strictEqual(ready.status, 200, ready.text)
    }).pipe(Effect.scoped), { timeout: 180_000 })

  it.live("refuses to start on a bad setting, naming it on one line", () =>
    Effect.gen(function*() {
      const cases: Array<readonly [Record<string, string>, string]> = [
        [{ PORT: "abc" }, "PORT"],
        [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
        [{ PORT: "70000" }, "PORT"],
        [{ STATUS_PROBE_INTERVAL_MS: "soon" }, "STATUS_PROBE_INTERVAL_MS"],
        [{ PG_MAX_CONNECTIONS: "0" }, "PG_MAX_CONNECTIONS"],
        [{ DATABASE_URL: "mysql://user:hunter2@db.example.com/app" }, "DATABASE_URL"],
        [{ WEBHOOK_SIGNATURE_HEADER: "Bad Header" }, "WEBHOOK_SIGNATURE_HEADER"],
        [{ API_KEY_PREFIX: "key prefix" }, "API_KEY_PREFIX"],
        [
          { GA4_PROPERTY_ID: "123", GA4_CREDENTIALS: "{\"client_email\":\"x\",\"private_key\":\"hunter2\"}" },
          "GA4_CREDENTIALS"
        ],
        [{ GA4_PROPERTY_ID: "123" }, "GA4_CREDENTIALS"],
        [{ GA4_PROPERTY_ID: "properties/123", GA4_CREDENTIALS: "" }, "GA4_PROPERTY_ID"],
        [{ MCP_SESSION_IDLE_MS: "5" }, "MCP_SESSION_IDLE_MS"],
        [{ MCP_ALLOWED_ORIGINS: "evil.example" }, "MCP_ALLOWED_ORIGINS"],
        [{ SCAN_ALLOWED_ADDRESSES: "127.0.0.1, intranet.example" }, "SCAN_ALLOWED_ADDRESSES"]
      ]
      yield* Effect.forEach(cases, ([env, name]) =>
        Effect.gen(function*() {
          const spawned = yield* scopedMain({ DATABASE_URL: "pglite://memory", ...env })
          const exit = yield* Effect.promise(() => withTimeout(spawned.exited, 20_000))
          assert.notStrictEqual(exit, "timeout", `${name}: still running`)
          if (exit === "timeout") return
          assert.notStrictEqual(exit.code, 0)
          assert.isNotNull(exit.code)
          const stderr = spawned.stderr().trim()
          const lines = stderr.split("\n")
          assert.strictEqual(lines.length, 1, `one line expected, got:\n${stderr}`)
          assert.match(lines[0], new RegExp(`^Invalid configuration: ${name}: \\S`))
          assert.notMatch(stderr, /\bat .+:\d+/, "no stack trace")
          assert.notInclude(stderr, "hunter2", "no secret echoed")
          assert.strictEqual(spawned.stdout().trim(), "")
        }), { concurrency: 2, discard: true })
    }).pipe(Effect.scoped), { timeout: 120_000 })
})
