import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { chromium } from "playwright-core"
import { call, testApp, TestServer } from "./support/harness.ts"

const distDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"))

layer(testApp(), { timeout: 60_000, excludeTestServices: true })("API reference at /docs", (it) => {
  it.effect("an HTML page that loads Swagger UI from our own origin only, with a CSP allowing only self", () =>
    Effect.gen(function*() {
      const res = yield* call("GET", "/docs")
      assert.strictEqual(res.status, 200)
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/)
      const csp = res.headers.get("content-security-policy") ?? ""
      assert.include(csp, "default-src 'self'")
      assert.include(csp, "script-src 'self'")
      assert.notInclude(csp, "unsafe-inline")
      assert.strictEqual(res.headers.get("referrer-policy"), "no-referrer")
      assert.strictEqual(res.headers.get("x-content-type-options"), "nosniff")
      // What the page loads: links a reader may follow to other sites are not loads.
      const sources = [...res.text.replace(/<a\s[^>]*>/g, "").matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
      assert.includeMembers(sources, [
        "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/swagger-ui.css",
        "/docs/assets/docs-init.js"
      ])
      assert.deepStrictEqual(
        sources.filter((s) => !s.startsWith("/") && !s.startsWith("#") && s !== "data:,"),
        [],
        "nothing from another origin"
      )
      assert.notMatch(res.text, /<script>(?!<\/script>)/, "no inline script")
      // Trailing slash tolerated like every route.
      assert.strictEqual((yield* call("GET", "/docs/")).status, 200)
    }))

  it.effect("assets are the installed swagger-ui-dist files; nothing else of the package is served", () =>
    Effect.gen(function*() {
      const bundle = yield* call("GET", "/docs/assets/swagger-ui-bundle.js")
      assert.strictEqual(bundle.status, 200)
      assert.match(bundle.headers.get("content-type") ?? "", /^text\/javascript/)
      assert.strictEqual(bundle.text, readFileSync(join(distDir, "swagger-ui-bundle.js"), "utf8"))
      const init = yield* call("GET", "/docs/assets/docs-init.js")
      assert.include(init.text, `url: "/openapi.json"`)
      for (const path of ["/docs/assets/package.json", "/docs/assets/..%2Fpackage.json", "/docs/assets/index.html"]) {
        const res = yield* call("GET", path)
        assert.strictEqual(res.status, 404, path)
        assert.strictEqual(res.json.code, "E_NOT_FOUND")
      }
    }))

  it.effect("renders every operation in a browser under that CSP", () =>
    Effect.gen(function*() {
      if (!existsSync("/usr/bin/chromium")) return
      const { url } = yield* TestServer
      const result = yield* Effect.promise(async () => {
        const browser = await chromium.launch({
          executablePath: "/usr/bin/chromium",
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update"
          ]
        })
        try {
          const page = await browser.newPage()
          const violations: Array<string> = []
          const external: Array<string> = []
          page.on("console", (message) => {
            if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text())
          })
          page.on("request", (request) => {
            if (!request.url().startsWith(url) && !request.url().startsWith("data:")) external.push(request.url())
          })
          await page.goto(`${url}/docs`)
          await page.waitForSelector(".opblock-summary", { timeout: 20_000 })
          const operations = await page.locator(".opblock-summary").count()
          return { operations, violations, external }
        } finally {
          await browser.close()
        }
      })
      assert.deepStrictEqual(result.violations, [])
      assert.deepStrictEqual(result.external, [])
      assert.isAtLeast(result.operations, 20)
    }), { timeout: 60_000 })
})
