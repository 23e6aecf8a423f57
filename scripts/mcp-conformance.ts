/**
 * `npm run mcp:conformance`: the MCP project's conformance suite
 * (@modelcontextprotocol/conformance, server scenarios) against a started
 * Herald, once per revision the suite covers. Herald declares one capability
 * (tools, without list changes) and exposes its own twelve tools; scenarios
 * that need another capability (resources, prompts, completions, logging,
 * sampling, elicitation) or the suite's own fixture tools (`test_simple_text`,
 * `test_image_content`, ...) cannot pass against it and are listed as
 * skipped with that reason. Every other scenario must pass: the script exits
 * 1 when one fails, and prints a table of every scenario's outcome.
 *
 * The MCP Inspector's CLI then runs against the same service over every
 * transport (Streamable HTTP in both protocol eras, HTTP+SSE): tools/list,
 * a read tool, bad arguments and a wrong key, each a line of the table.
 *
 * Every MCP POST counts against the MCP limit, so the run raises it
 * (RATE_LIMIT_MCP_PER_MIN) for the service it starts.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { allToolDescriptors } from "../src/platform/tools/ToolRunner.ts"
import { inspectorChecks } from "./support/inspector.ts"
import { startService } from "./support/service-process.ts"

/** Scenarios Herald's surface cannot pass, and why. */
export const skipped: Record<string, string> = {
  "logging-set-level": "needs the logging capability (not declared)",
  "completion-complete": "needs the completions capability (not declared)",
  "tools-call-simple-text": "calls the suite's fixture tool test_simple_text",
  "tools-call-image": "calls the suite's fixture tool test_image_content",
  "tools-call-audio": "calls the suite's fixture tool test_audio_content",
  "tools-call-embedded-resource": "calls the suite's fixture tool test_embedded_resource",
  "tools-call-mixed-content": "calls the suite's fixture tool test_multiple_content_types",
  "tools-call-with-logging": "calls the suite's fixture tool test_tool_with_logging (and needs logging)",
  "tools-call-error": "calls the suite's fixture tool test_error_handling",
  "tools-call-with-progress": "calls the suite's fixture tool test_tool_with_progress",
  "tools-call-sampling": "calls the suite's fixture tool test_sampling (and needs sampling)",
  "tools-call-elicitation": "calls the suite's fixture tool test_elicitation (and needs elicitation)",
  "json-schema-2020-12": "lists the suite's fixture tool json_schema_2020_12_tool",
  "elicitation-sep1034-defaults": "needs elicitation (never sent by Herald)",
  "elicitation-sep1330-enums": "needs elicitation (never sent by Herald)",
  "server-sse-polling": "calls the suite's fixture tool test_reconnection (SSE resumability with an event store)",
  "resources-list": "needs the resources capability (not declared)",
  "resources-read-text": "needs the resources capability (not declared)",
  "resources-read-binary": "needs the resources capability (not declared)",
  "resources-templates-read": "needs the resources capability (not declared)",
  "resources-subscribe": "needs the resources capability (not declared)",
  "resources-unsubscribe": "needs the resources capability (not declared)",
  "prompts-list": "needs the prompts capability (not declared)",
  "prompts-get-simple": "needs the prompts capability (not declared)",
  "prompts-get-with-args": "needs the prompts capability (not declared)",
  "prompts-get-embedded-resource": "needs the prompts capability (not declared)",
  "prompts-get-with-image": "needs the prompts capability (not declared)"
}

/** The revisions the suite's server scenarios are tagged with (it has none for 2026-07-28 or the SSE transport yet). */
const revisions = ["2025-06-18", "2025-11-25"] as const

const cli = join(
  createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json"),
  "..",
  "dist",
  "index.js"
)

interface Check {
  readonly status: string
  readonly name?: string
  readonly errorMessage?: string
}

const runSuite = (url: string, revision: string, outputDir: string) =>
  new Promise<void>((resolve) => {
    execFile(process.execPath, [cli, "server", "--url", url, "--spec-version", revision, "-o", outputDir], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 15 * 60_000
    }, () => resolve())
  })

/** Each scenario's checks, from the result directories the suite writes (`server-<scenario>-<timestamp>/checks.json`). */
const readResults = (outputDir: string): Map<string, ReadonlyArray<Check>> => {
  const results = new Map<string, ReadonlyArray<Check>>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name === "checks.json") {
        const name = dir.split("/").pop() ?? dir
        // The directory names the scenario between `server-` and a timestamp: `server-tools-list-2026-11-25T23-36-03-498Z`.
        const scenario = name.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z?$/, "")
        results.set(scenario, JSON.parse(readFileSync(path, "utf8")) as ReadonlyArray<Check>)
      }
    }
  }
  walk(outputDir)
  return results
}

export interface Outcome {
  readonly revision: string
  readonly scenario: string
  readonly outcome: "passed" | "failed" | "skipped"
  readonly detail: string
}

export const runConformance = async (): Promise<ReadonlyArray<Outcome>> => {
  const service = await startService({
    DATABASE_URL: "pglite://memory",
    ADMIN_SECRET: "conformance-admin",
    RATE_LIMIT_MCP_PER_MIN: "100000",
    LOG_LEVEL: "error"
  }, 300_000)
  const outcomes: Array<Outcome> = []
  try {
    const provisioned = await fetch(`${service.url}/api/admin/provision`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-admin-secret": "conformance-admin" },
      body: JSON.stringify({ email: "conformance@example.com", status: "active" })
    })
    const { apiKey, customerId } = await provisioned.json() as { apiKey: string; customerId: string }
    for (const revision of revisions) {
      const outputDir = mkdtempSync(join(tmpdir(), `herald-conformance-${revision}-`))
      try {
        // Addressed by the service's own origin (BASE_URL defaults to http://localhost:PORT): the DNS-rebinding scenario
        // expects the origin the client used to be allowed, and a foreign one refused.
        await runSuite(`${service.url.replace("127.0.0.1", "localhost")}/mcp?token=${apiKey}`, revision, outputDir)
        for (const [scenario, checks] of readResults(outputDir)) {
          const failures = checks.filter((check) => check.status === "FAILURE")
          const reason = skipped[scenario]
          outcomes.push({
            revision,
            scenario,
            outcome: reason !== undefined ? "skipped" : failures.length === 0 ? "passed" : "failed",
            detail: reason ??
              failures.map((check) => `${check.name ?? "check"}: ${check.errorMessage ?? "failed"}`).join("; ")
          })
        }
      } finally {
        rmSync(outputDir, { recursive: true, force: true })
      }
    }
    for (const check of await inspectorChecks(service.url, apiKey, customerId, allToolDescriptors())) {
      outcomes.push({
        revision: check.transport,
        scenario: check.check,
        outcome: check.passed ? "passed" : "failed",
        detail: check.shown
      })
    }
  } finally {
    service.child.kill("SIGTERM")
    await service.exited
  }
  return outcomes
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const outcomes = await runConformance()
  for (const o of outcomes) {
    console.log(`${o.revision}  ${o.outcome.padEnd(7)}  ${o.scenario}${o.detail.length > 0 ? `  (${o.detail})` : ""}`)
  }
  const failed = outcomes.filter((o) => o.outcome === "failed")
  const passed = outcomes.filter((o) => o.outcome === "passed")
  console.log(
    `\n${passed.length} passed, ${failed.length} failed, ${outcomes.length - passed.length - failed.length} skipped`
  )
  if (failed.length > 0 || passed.length === 0) process.exit(1)
}
