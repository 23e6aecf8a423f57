import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { execFileSync } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findExecutable, nginxConfig } from "../scripts/support/cluster-kit.ts"
import { type ProbeSample, recoveryMs } from "../scripts/support/faults.ts"

const nginx = findExecutable("nginx")
if (nginx === undefined) {
  console.warn("cluster-kit: the nginx -t check is skipped, nginx is not installed (Debian: apt-get install -y nginx)")
}

describe("the generated nginx configuration", () => {
  const upstreams = [{ tag: "h1", port: 4001 }, { tag: "h2", port: 4002 }, { tag: "h10", port: 4010 }]

  it("routes each tag to its own instance first, the others as backups, and everything else round-robin", () => {
    const text = nginxConfig("/tmp/x", 8080, upstreams)
    const block = (name: string) =>
      text.slice(text.indexOf(`upstream ${name} {`), text.indexOf("}", text.indexOf(`upstream ${name} {`)))
    assert.match(
      block("herald_h1"),
      /server 127\.0\.0\.1:4001 max_fails=1 fail_timeout=3s;\s+server 127\.0\.0\.1:4002 [^;]*backup;\s+server 127\.0\.0\.1:4010 [^;]*backup;/
    )
    assert.notInclude(block("herald"), "backup")
    // The dot ends the tag: h1's sessions are not h10's.
    assert.include(text, `"~^h1\\." herald_h1;`)
    assert.include(text, `"~^h10\\." herald_h10;`)
    assert.match(text, /map \$arg_sessionId \$herald_by_query \{[^}]*default herald;/)
    assert.include(text, "listen 127.0.0.1:8080;")
  })

  it.skipIf(nginx === undefined)("is accepted by nginx -t for one to five instances", () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-nginx-test-"))
    chmodSync(dir, 0o755)
    try {
      for (let n = 1; n <= 5; n++) {
        const path = join(dir, "nginx.conf")
        writeFileSync(
          path,
          nginxConfig(dir, 8080, Array.from({ length: n }, (_, i) => ({ tag: `h${i + 1}`, port: 4001 + i })))
        )
        execFileSync(nginx!, ["-t", "-q", "-p", dir, "-c", path], { stdio: ["ignore", "ignore", "pipe"] })
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("recovery after a fault", () => {
  const samples = (outcomes: string, from = 0): Array<ProbeSample> =>
    [...outcomes].map((c, i) => ({ at: from + i * 100, ok: c === "+" }))

  it("is the time to the first of a run of successes after the last failure", () => {
    assert.strictEqual(recoveryMs(samples("+++--+-++++", 0), 0, 4), 700)
    assert.strictEqual(recoveryMs(samples("++++++", 0), 0, 4), 0)
    assert.strictEqual(recoveryMs(samples("--+-", 0), 0, 4), undefined)
    // Probes before the fault do not count.
    assert.strictEqual(recoveryMs(samples("--++++", 0), 200, 4), 0)
  })

  it("is never negative and is zero when no probe after the fault failed", () => {
    fc.assert(fc.property(fc.array(fc.boolean(), { maxLength: 60 }), fc.nat(6000), (oks, faultAt) => {
      const list = oks.map((ok, i) => ({ at: i * 100, ok }))
      const ms = recoveryMs(list, faultAt, 3)
      if (ms !== undefined) assert.isAtLeast(ms, 0)
      if (list.filter((s) => s.at >= faultAt).every((s) => s.ok)) assert.strictEqual(ms, 0)
    }))
  })
})
