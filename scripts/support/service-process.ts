/**
 * The service as a child process (`node src/main.ts`), for the scripts that
 * measure it from outside: start-up, durability and hostile-page probes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("../..", import.meta.url))

/** A loopback port nothing listens on now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/**
 * This process's environment for a service on 127.0.0.1:`port`, less the
 * database, Redis and base-URL settings the caller's shell may carry (the
 * service then runs on the embedded database unless `settings` names one).
 */
export const serviceEnv = (port: number, settings: Record<string, string> = {}): Record<string, string | undefined> => {
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), HOST: "127.0.0.1" }
  delete env.DATABASE_URL
  delete env.REDIS_URL
  delete env.BASE_URL
  return { ...env, ...settings }
}

export interface StartedService {
  readonly url: string
  readonly child: ChildProcess
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Milliseconds from spawn to the first 200 of GET /api/health. */
  readonly startMs: number
}

/**
 * Spawns the service with `settings` and waits until `/api/health` answers
 * 200; its standard error is kept to say why when it exits or does not
 * answer within `timeoutMs`. `port` is fixed when a proxy already points at
 * it (a restarted instance of a cluster), else any free one.
 */
export const startService = async (
  settings: Record<string, string>,
  timeoutMs = 60_000,
  options: {
    /** Node flags for the service (a benchmark's --cpu-prof, which NODE_OPTIONS may not carry). */
    readonly nodeArgs?: ReadonlyArray<string>
    readonly port?: number
    /** Another checkout to run (a bench's code before a change, measured in the same run); this one by default. */
    readonly root?: string
  } = {}
): Promise<StartedService> => {
  const port = options.port ?? await freePort()
  const url = `http://127.0.0.1:${port}`
  const began = performance.now()
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "src/main.ts"], {
    cwd: options.root ?? root,
    env: serviceEnv(port, settings),
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  // The last 64 KiB say why it failed; a long-lived instance's warnings must not grow without bound.
  child.stderr?.on("data", (chunk) => (stderr = (stderr + String(chunk)).slice(-65_536)))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal }))
  )
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`the service exited at start:\n${stderr}`)
    try {
      if ((await fetch(`${url}/api/health`)).status === 200) {
        return { url, child, exited, startMs: performance.now() - began }
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  child.kill("SIGKILL")
  throw new Error(`the service did not answer within ${timeoutMs} ms:\n${stderr}`)
}
