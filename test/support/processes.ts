import type { CustomerId } from "../../src/domain/Ids.ts"
/**
 * Helpers for tests that go beyond one in-process app:
 * - `spawnServer`: the real service (`node src/main.ts`) as a child process,
 *   started with an environment, awaited on `/api/health`, killed on release;
 * - `sharedDatabase`: one database several apps or processes can use at once
 *   (a fresh schema on the suite's PostgreSQL, or an in-process PGlite served
 *   on a loopback port to several connections);
 * - `withSql`: a SQL client on such a database, to check what the API stored;
 * - customers and team members provisioned through the admin API;
 * - `authenticatedEndpoints`: every Bearer route of the HttpApi, with its
 *   required role, so matrices cover endpoints added later automatically;
 * - `awaitFreshWindow`: waits out the end of a fixed 60 s rate-limit window.
 */
import { PgClient } from "@effect/sql-pg"
import { assert } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { Context, Effect, Layer, Redacted, Scope, String as Str } from "effect"
import { SqlClient } from "effect/sql"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"
import { Api } from "../../src/api/Api.ts"
import { Authentication } from "../../src/api/Security.ts"
import type { AppConfigShape } from "../../src/Config.ts"
import type { Role } from "../../src/domain/Identity.ts"
import { requiredRole } from "../../src/platform/Security.ts"
import { call, externalDatabaseUrl, freePort, freshSchemaUrl, type Reply, send, testApp } from "./harness.ts"
import { servePglite } from "./pgliteServer.ts"

export { freePort }

export const projectRoot = fileURLToPath(new URL("../..", import.meta.url))

// ---------------------------------------------------------------- processes

export interface ServerProcess {
  readonly url: string
  readonly port: number
  readonly child: ChildProcess
  /** Everything the child wrote to stdout and stderr so far (for failure messages). */
  readonly output: () => string
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the child has exited. */
  readonly kill: (graceMs?: number) => Promise<void>
}

export interface SpawnOptions {
  /** Extra environment; `PORT`, `HOST` and `BASE_URL` are set unless given. */
  readonly env?: Record<string, string | undefined>
  /** Entry point relative to the project root (default `src/main.ts`). */
  readonly entry?: string
  /** How long to wait for `/api/health` to answer 200 (default 30 s). */
  readonly readyTimeoutMs?: number
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
  })

/**
 * Starts the service as a child process and waits until `/api/health` answers 200. When the port
 * was picked here and another process took it before the child bound it, starts again on another.
 */
export const startServer = async (options: SpawnOptions = {}): Promise<ServerProcess> => {
  if (options.env?.PORT !== undefined) return startOn(Number(options.env.PORT), options)
  for (let attempt = 1;; attempt++) {
    try {
      return await startOn(await freePort(), options)
    } catch (error) {
      if (attempt >= 3 || !(error instanceof PortTaken)) throw error
    }
  }
}

class PortTaken extends Error {}

const startOn = async (port: number, options: SpawnOptions): Promise<ServerProcess> => {
  const url = `http://127.0.0.1:${port}`
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
  // Vite exports BASE_URL="/"; the service reads BASE_URL as its own address.
  delete env.BASE_URL
  // Test files run side by side on one Redis: each file's services count their limits apart (as one
  // deployment would), so another file's provisioning cannot spend this one's admin budget.
  Object.assign(env, {
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: url,
    LOG_LEVEL: "warn",
    REDIS_KEY_PREFIX: `test-${process.pid}:`
  })
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  const child = spawn(process.execPath, [options.entry ?? "src/main.ts"], {
    cwd: projectRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk) => (output += String(chunk)))
  child.stderr?.on("data", (chunk) => (output += String(chunk)))
  const kill = async (graceMs = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    await exited(child)
    clearTimeout(timer)
  }
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000)
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const Failure = output.includes(`Port ${port} is already in use`) ? PortTaken : Error
      throw new Failure(`server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`)
    }
    try {
      const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1000) })
      if (res.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await kill(1000)
      throw new Error(`server not ready within the timeout:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return { url, port, child, output: () => output, kill }
}

/** `startServer` as a scoped resource: the child is killed when the scope closes. */
export const spawnServer = (options: SpawnOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startServer(options)),
    (server) => Effect.promise(() => server.kill())
  )

// ---------------------------------------------------------------- databases

/**
 * A database that several apps, processes and test clients can use at once:
 * with `DATABASE_URL=postgres...` a fresh schema on that server, otherwise an
 * in-memory PGlite served on a loopback port (`servePglite`: whole protocol
 * cycles and transactions of one connection at a time). Released with the scope.
 */
export const sharedDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.suspend(() => {
  const external = externalDatabaseUrl()
  if (external !== undefined) return freshSchemaUrl(external)
  return Effect.acquireRelease(
    Effect.promise(async () => {
      const db = await PGlite.create("memory://")
      return { db, server: await servePglite(db) }
    }),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.close().catch(() => undefined)
        await db.close().catch(() => undefined)
      })
  ).pipe(Effect.map(({ server }) => server.url))
})

/** Runs `f` with a SQL client (camelCase results) on the database at `url`. */
export const withSql = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({
      url: Redacted.make(url),
      maxConnections: 1,
      transformResultNames: Str.snakeToCamel
    })),
    Effect.orDie
  )

/** The URL of the database the app under test uses, for tests that read it directly. */
export class DatabaseUrl extends Context.Service<DatabaseUrl, string>()("test/DatabaseUrl") {}

/**
 * `testApp` on a `sharedDatabase`, also providing its URL. PGlite is a single
 * session whose socket server interleaves the messages of concurrent
 * connections, so there the app gets one pooled connection (the test's own
 * client should query while the app is idle).
 */
export const testAppWithDatabase = (overrides: Partial<AppConfigShape> = {}) =>
  Layer.unwrap(Effect.map(sharedDatabase, (url) =>
    Layer.merge(
      testApp({
        ...(externalDatabaseUrl() === undefined ? { pgMaxConnections: 1 } : {}),
        ...overrides,
        database: url
      }),
      Layer.succeed(DatabaseUrl, url)
    )))

// ---------------------------------------------------------------- customers

export const adminSecret = "test-admin-secret"

/** A random documentation-range address for `X-Forwarded-For` (apps under test trust the proxy). */
export const randomIp = () => {
  const b = randomBytes(3)
  return `10.${b[0]}.${b[1]}.${b[2]}`
}

export const uniqueEmail = (tag = "user") => `${tag}-${randomUUID().slice(0, 8)}@example.com`

export const bearer = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  ...extra
})

export interface Provisioned {
  readonly customerId: CustomerId
  readonly email: string
  readonly apiKey: string
  readonly mcpEndpoint: string
}

export interface ProvisionInput {
  readonly email?: string
  readonly brandName?: string
  readonly status?: "onboarding" | "active" | "suspended" | "cancelled"
}

/**
 * Provisions a customer through `POST /api/admin/provision` on `baseUrl`,
 * from a random `X-Forwarded-For` so the admin limit (10/min per IP) never
 * trips in apps started with `trustProxy: true`.
 */
export const provisionAt = async (
  target: string | ServerProcess,
  input: ProvisionInput = {}
): Promise<Provisioned> => {
  const baseUrl = typeof target === "string" ? target : target.url
  const res = await send(baseUrl, "POST", "/api/admin/provision", {
    headers: { "x-admin-secret": adminSecret, "x-forwarded-for": randomIp() },
    body: { email: input.email ?? uniqueEmail(), ...input }
  })
  if (res.status !== 200) {
    // A child process's own log says why; the reply alone only carries a request id.
    const log = typeof target === "string" ? "" : `\nserver output:\n${target.output().slice(-4000)}`
    throw new Error(`provision failed: ${res.status} ${res.text}${log}`)
  }
  return res.json as Provisioned
}

/** `provisionAt` against the app under test. */
export const provision = (input: ProvisionInput = {}) =>
  Effect.flatMap(
    call("POST", "/api/admin/provision", {
      headers: { "x-admin-secret": adminSecret, "x-forwarded-for": randomIp() },
      body: { email: input.email ?? uniqueEmail(), ...input }
    }),
    (res) =>
      res.status === 200
        ? Effect.succeed(res.json as Provisioned)
        : Effect.die(new Error(`provision failed: ${res.status} ${res.text}`))
  )

/** A provisioned customer as most tests use it: its id, its owner key and that key's Authorization header. */
export interface Tenant {
  readonly id: CustomerId
  readonly key: string
  readonly h: Record<string, string>
}

/** `provision` answered as a Tenant. */
export const tenant = (input: ProvisionInput = {}) =>
  Effect.map(provision(input), (p): Tenant => ({ id: p.customerId, key: p.apiKey, h: bearer(p.apiKey) }))

/**
 * A provisioned customer with `api(method, path, body?)`: `{c}` in the path is
 * its id, and the request carries its owner key.
 */
export const customerApi = Effect.gen(function*() {
  const { customerId, apiKey } = yield* provision()
  const auth = bearer(apiKey)
  const api = (method: string, path: string, body?: unknown) =>
    call(method, path.replace("{c}", customerId), { headers: auth, ...(body === undefined ? {} : { body }) })
  return { customerId, apiKey, auth, api }
})

export interface Member {
  readonly memberId: string
  readonly email: string
  readonly role: "admin" | "editor" | "viewer"
  readonly apiKey: string
  readonly createdAt: string
}

/** Invites a team member with the owner's key; returns the member with its key. */
export const invite = (owner: Provisioned, role: Member["role"], email = uniqueEmail(role)) =>
  Effect.flatMap(
    call("POST", `/api/team/${owner.customerId}/members`, { headers: bearer(owner.apiKey), body: { email, role } }),
    (res) =>
      res.status === 200
        ? Effect.succeed(res.json as Member)
        : Effect.die(new Error(`invite failed: ${res.status} ${res.text}`))
  )

/** The Error shape exactly, with `requestId` equal to the `X-Request-ID` header. */
export const assertError = (res: Reply, status: number, code: string, error?: string) => {
  assert.strictEqual(res.status, status, res.text)
  const keys = Object.keys(res.json ?? {}).sort()
  assert.deepStrictEqual(keys.filter((k) => k !== "details"), ["code", "error", "requestId"], res.text)
  assert.strictEqual(res.json.code, code)
  assert.isString(res.json.error)
  if (error !== undefined) assert.strictEqual(res.json.error, error)
  assert.strictEqual(res.json.requestId, res.headers.get("x-request-id"))
}

// ---------------------------------------------------------------- endpoints

export interface AuthenticatedEndpoint {
  readonly id: string
  readonly method: string
  readonly path: string
  readonly params: ReadonlyArray<string>
  readonly role: Role
  /** The path with `customerId` and every other parameter filled in. */
  readonly fill: (customerId: string, other?: string) => string
}

/** An id that names nothing, whatever the resource. */
export const nobodyId = "00000000-0000-4000-8000-000000000000"

/** Every endpoint of the HttpApi behind the Bearer `Authentication` middleware. */
export const authenticatedEndpoints = (): ReadonlyArray<AuthenticatedEndpoint> => {
  const out: Array<AuthenticatedEndpoint> = []
  for (const group of Object.values(Api.groups) as ReadonlyArray<any>) {
    for (const endpoint of Object.values(group.endpoints) as ReadonlyArray<any>) {
      if (!(endpoint.middlewares as ReadonlySet<unknown>).has(Authentication)) continue
      const path: string = endpoint.path
      const params = [...path.matchAll(/:(\w+)/g)].map((m) => m[1])
      out.push({
        id: `${group.identifier}.${endpoint.identifier} ${endpoint.method} ${path}`,
        method: endpoint.method,
        path,
        params,
        role: requiredRole(endpoint),
        fill: (customerId, other = nobodyId) =>
          path.replace(/:(\w+)\??/g, (_, name: string) => (name === "customerId" ? customerId : other))
      })
    }
  }
  return out
}

/** A status-only request that never waits on a streamed body. */
export const probe = async (
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string
): Promise<{ status: number; headers: Headers; json: any }> => {
  const res = await fetch(baseUrl + path, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    redirect: "manual",
    signal: AbortSignal.timeout(20_000),
    ...(body === undefined ? {} : { body })
  })
  let json: any
  if (res.status >= 400) {
    try {
      json = JSON.parse(await res.text())
    } catch {
      json = undefined
    }
  } else {
    await res.body?.cancel().catch(() => undefined)
  }
  return { status: res.status, headers: res.headers, json }
}

// ---------------------------------------------------------------- rate-limit windows

/**
 * Fixed windows start on whole minutes (epoch-aligned). When fewer than
 * `needSeconds` remain in the current one, wait for the next, so a burst of
 * requests lands in one window.
 */
export const awaitFreshWindow = (needSeconds = 15) =>
  Effect.promise(async () => {
    const left = 60_000 - (Date.now() % 60_000)
    if (left < needSeconds * 1000) await new Promise((r) => setTimeout(r, left + 50))
  })

/**
 * The environment of a service process whose workflows write through the
 * local OpenAI-compatible server at `modelUrl`, as the durable-run crash tests
 * start it. Restarted, it is the same runner (as a service restarted on its
 * port is): it takes its shards back at once.
 */
export const modelServiceEnv = (database: string, modelUrl: string, runnerAddress: string) => ({
  DATABASE_URL: database,
  ADMIN_SECRET: "test-admin-secret",
  LOG_LEVEL: "error",
  LLM_PROVIDER: "openai",
  LLM_BASE_URL: modelUrl,
  LLM_API_KEY: "sk-local",
  WORKFLOW_POLL_INTERVAL_MS: "200",
  WORKFLOW_RUNNER_ADDRESS: runnerAddress,
  ...(externalDatabaseUrl() === undefined ? { PG_MAX_CONNECTIONS: "1", WORKFLOW_RUNNER_STORAGE: "memory" } : {})
})

/** Starts service processes with `options`, each time it is run; every one is SIGKILLed when the scope closes. */
export const processStarter = (options: SpawnOptions) =>
  Effect.gen(function*() {
    const servers: Array<ServerProcess> = []
    yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(servers.map((s) => s.child.kill("SIGKILL")))))
    return Effect.promise(async () => {
      const server = await startServer(options)
      servers.push(server)
      return server
    })
  })
