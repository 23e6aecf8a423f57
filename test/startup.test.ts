import { assert, describe, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./support/harness.ts"
import { projectRoot } from "./support/processes.ts"

interface Started {
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly stop: () => Promise<void>
}

/** `node src/main.ts` with `env`; resolves once it logs that it listens (or exits). */
const start = (env: Record<string, string>): Promise<Started> =>
  new Promise((resolve, reject) => {
    const full: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: "info", HOST: "127.0.0.1", ...env }
    delete full.BASE_URL
    delete full.REDIS_URL
    if (env.DATABASE_URL === undefined) delete full.DATABASE_URL
    const child = spawn(process.execPath, ["src/main.ts"], {
      cwd: projectRoot,
      env: full,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
    const started: Started = {
      output: () => output,
      exited,
      stop: async () => {
        child.kill("SIGTERM")
        await exited
      }
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("\"listening on ")) resolve(started)
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    exited.then(() => resolve(started), reject)
  })

describe("start-up", () => {
  it(
    "one line says where it listens, on which database and data directory; a busy port stops with one line naming it",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "herald-start-"))
      const port = await freePort()
      const first = await start({ PORT: String(port), DATA_DIR: dataDir })
      try {
        const lines = first.output().split("\n").filter((line) => line.includes("\"listening on "))
        assert.strictEqual(lines.length, 1, first.output())
        const line = JSON.parse(lines[0])
        assert.strictEqual(line.level, "INFO")
        assert.strictEqual(line.annotations.address, `http://127.0.0.1:${port}`)
        assert.strictEqual(line.annotations.database, "pglite")
        assert.strictEqual(line.annotations.dataDir, dataDir)

        const second = await start({ PORT: String(port), DATABASE_URL: "pglite://memory" })
        assert.strictEqual(await second.exited, 1)
        const said = second.output().trim().split("\n")
        assert.deepStrictEqual(said, [
          `Port ${port} is already in use on 127.0.0.1: stop the process using it or set PORT to another port`
        ])
      } finally {
        await first.stop()
        rmSync(dataDir, { recursive: true, force: true })
      }
    },
    120_000
  )

  it("the README's Try-it block runs as written in one terminal", async () => {
    const readme = readFileSync(join(projectRoot, "README.md"), "utf8")
    const block = /Try it[^\n]*\n+```sh\n([\s\S]*?)```/.exec(readme)?.[1]
    assert.isDefined(block, "README has a Try it block")
    const port = await freePort()
    const dataDir = mkdtempSync(join(tmpdir(), "herald-tryit-"))
    // Installing is the one step the test does not repeat; the port and data directory are the test's own.
    const script = block!.split("\n").filter((line) => !/^npm ci\b/.test(line)).join("\n").replaceAll(
      "localhost:3000",
      `localhost:${port}`
    )
    const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), DATA_DIR: dataDir }
    delete env.DATABASE_URL
    delete env.BASE_URL
    delete env.REDIS_URL
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(
        "bash",
        ["-e", "-c", script],
        { cwd: projectRoot, env, timeout: 100_000 },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : (error as { code?: number }).code ?? 1, stdout, stderr })
      )
    )
    rmSync(dataDir, { recursive: true, force: true })
    assert.strictEqual(result.code, 0, `${result.stdout}\n${result.stderr}`)
    assert.include(result.stdout, "\"service\":\"herald\"")
    assert.match(result.stdout, /"apiKey":"svc_live_[0-9a-f]{64}"/)
    assert.notInclude(result.stderr, "EADDRINUSE")
    // `kill $!` stopped the service itself, not only npm: nothing answers on the port any more.
    const after = await fetch(`http://127.0.0.1:${port}/api/health`).then((res) => res.status, () => "refused")
    assert.strictEqual(after, "refused", "the service the block started is still running")
  }, 120_000)
})
