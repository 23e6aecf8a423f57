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

/** The Inspector's launcher (`mcp-inspector` bin): `--cli` selects the CLI. */
export const launcher = join(
  createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json"),
  "..",
  "clients",
  "launcher",
  "build",
  "index.js"
)

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
        resolve({
          code,
          stdout,
          stderr,
          output: output !== undefined && "result" in output ? output : undefined,
          failure
        })
      }
    )
  })

/** What one Inspector run asks: a method, or `tools/call` of a tool with its `name=value` arguments. */
export type InspectorMethod = "tools/list" | "initialize" | {
  readonly tool: string
  readonly args: ReadonlyArray<string>
}

/**
 * The arguments of one Inspector run over a transport, signed with `key`
 * (a Bearer header), for `inspect`; `extra` goes last (`--strict`).
 */
export const inspectorArgs = (
  transport: { readonly args: ReadonlyArray<string> },
  key: string,
  method: InspectorMethod,
  extra: ReadonlyArray<string> = []
): ReadonlyArray<string> => [
  ...transport.args,
  "--header",
  `Authorization: Bearer ${key}`,
  ...(typeof method === "string"
    ? ["--method", method]
    : ["--method", "tools/call", "--tool-name", method.tool, "--tool-arg", ...method.args]),
  ...extra
]

/** A well-formed key no customer holds. */
export const unknownKey = `svc_live_${"0".repeat(64)}`

/** How the Inspector reaches Herald: Streamable HTTP in each protocol era it offers, and the legacy HTTP+SSE pair. */
export const inspectorTransports = [
  { name: "inspector http", path: "/mcp", args: ["--transport", "http", "--protocol-era", "legacy"] },
  { name: "inspector http-2026-07-28", path: "/mcp", args: ["--transport", "http", "--protocol-era", "modern"] },
  { name: "inspector sse", path: "/mcp/sse", args: ["--transport", "sse"] }
] as const

export interface InspectorCheck {
  readonly transport: string
  readonly check: string
  readonly passed: boolean
  /** What the Inspector showed (its exit code and the gist of its output). */
  readonly shown: string
}

const gist = (run: InspectorRun): string => {
  const result = run.output?.result
  const shown = result?.structuredContent !== undefined
    ? JSON.stringify(result.structuredContent)
    : run.failure !== undefined
    ? JSON.stringify(run.failure.error)
    : run.stderr.trim()
  return `exit ${run.code}: ${shown.slice(0, 200)}`
}

/**
 * The Inspector CLI's view of Herald at `baseUrl` with a customer's key, over
 * every transport: the tools with their schemas (against `expectedTools`),
 * a read tool, a call with bad arguments, and a wrong key.
 */
export const inspectorChecks = async (
  baseUrl: string,
  key: string,
  customerId: string,
  expectedTools: ReadonlyArray<{ readonly name: string; readonly inputSchema: unknown }>
): Promise<ReadonlyArray<InspectorCheck>> => {
  const checks: Array<InspectorCheck> = []
  for (const transport of inspectorTransports) {
    const url = `${baseUrl}${transport.path}`
    const record = (check: string, passed: boolean, shown: string) =>
      checks.push({ transport: transport.name, check, passed, shown })

    // --strict: a schema portability problem of error severity ends the run with exit 6.
    const listed = await inspect(url, inspectorArgs(transport, key, "tools/list", ["--strict"]))
    const tools: Array<{ name: string; inputSchema: unknown }> = listed.output?.result?.tools ?? []
    const sameTools = tools.length === expectedTools.length &&
      expectedTools.every((expected, i) =>
        tools[i]?.name === expected.name &&
        JSON.stringify(tools[i]?.inputSchema) === JSON.stringify(expected.inputSchema)
      )
    record(
      "tools/list",
      listed.code === 0 && sameTools,
      listed.code === 0 ? `exit 0: ${tools.length} tools: ${tools.map((t) => t.name).join(", ")}` : gist(listed)
    )

    const read = await inspect(
      url,
      inspectorArgs(transport, key, { tool: "query_ga4", args: [`customerId=${customerId}`] })
    )
    record(
      "tools/call query_ga4",
      read.code === 0 && read.output?.result?.structuredContent?.source === "herald",
      gist(read)
    )

    const invalid = await inspect(
      url,
      inspectorArgs(transport, key, { tool: "analyze_brand_url", args: [`customerId=${customerId}`] })
    )
    record(
      "tools/call with bad arguments",
      invalid.code === 5 && invalid.output?.result?.isError === true &&
        invalid.output.result.structuredContent?.code === "E_VALIDATION",
      gist(invalid)
    )

    const wrong = await inspect(url, inspectorArgs(transport, unknownKey, "tools/list"))
    record("wrong key", wrong.code === 3 && wrong.failure?.error?.code === "auth_required", gist(wrong))
  }
  return checks
}
