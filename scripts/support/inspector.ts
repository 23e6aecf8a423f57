/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`) as a
 * child process: a second, independent MCP client, the one people reach for
 * first when they try a server. It is run with `--format json` (one JSON
 * object on stdout: `{ result }`, or `{ error: { code, message } }` on stderr
 * when it fails) and in a home of its own, so it reads and writes no catalog
 * or OAuth state of the person running the tests.
 */
import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"

const launcher = join(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json"), "..", "clients", "launcher", "build", "index.js")

export interface InspectorRun {
  /** 0 on success; the Inspector's exit-code map: 3 authentication needed, 5 the tool answered an error, ... */
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** The JSON object the run printed on stdout (a result), if any. */
  readonly output: any
  /** The error envelope (`{ error: { code, message } }`) the run printed, if any. */
  readonly failure: any
}

/** The last line of `text` that parses as a JSON object. */
const lastJson = (text: string): unknown => {
  const lines = text.split("\n").map((line) => line.trim()).filter((line) => line.startsWith("{"))
  for (const line of lines.reverse()) {
    try {
      return JSON.parse(line)
    } catch {
      // a banner or a partial line, not the payload
    }
  }
  return undefined
}

let home: string | undefined

/**
 * Runs `inspector --cli <url> <args> --format json`, never interactively:
 * `--stored-auth-only` makes a 401 end the run (exit 3, `auth_required`)
 * instead of waiting for a person to sign in.
 */
export const inspect = (url: string, args: ReadonlyArray<string>, timeoutMs = 60_000): Promise<InspectorRun> =>
  new Promise((resolve) => {
    home ??= mkdtempSync(join(tmpdir(), "herald-inspector-"))
    const env: Record<string, string | undefined> = {
      ...process.env,
      HOME: home,
      MCP_CATALOG_PATH: join(home, "mcp.json"),
      MCP_CLIENT_CONFIG_PATH: join(home, "client.json"),
      MCP_AUTO_OPEN_ENABLED: "false",
      NO_COLOR: "1"
    }
    execFile(
      process.execPath,
      [launcher, "--cli", url, ...args, "--format", "json", "--stored-auth-only"],
      { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        const output = lastJson(stdout) as any
        const failure = (lastJson(stderr) ?? (output !== undefined && "error" in output ? output : undefined)) as any
        resolve({ code, stdout, stderr, output: output !== undefined && "result" in output ? output : undefined, failure })
      }
    )
  })
