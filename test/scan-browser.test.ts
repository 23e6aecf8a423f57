import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { AppConfig, appConfig } from "../src/Config.ts"
import { ScanBrowser } from "../src/features/scan/Browser.ts"
import { PagePool } from "../src/platform/PagePool.ts"
import { capturingLogs } from "./support/logs.ts"
import { type Served, serveSite } from "./support/scan-sites.ts"

// Vite exports BASE_URL="/" into the environment; the app reads BASE_URL as its own.
delete process.env.BASE_URL

const configWith = (
  allowPrivateTargets: boolean,
  chromiumPath: string | undefined,
  scanAllowedAddresses: ReadonlyArray<string> = []
) =>
  Layer.effect(
    AppConfig,
    Effect.map(
      Effect.orDie(appConfig),
      (config) => ({ ...config, allowPrivateTargets, chromiumPath, scanAllowedAddresses })
    )
  )

/** The browser and the page pool its screenshots run in, for these settings. */
const browserLayer = (config: ReturnType<typeof configWith>) =>
  ScanBrowser.layer.pipe(Layer.provide(PagePool.layer), Layer.provide(config))

const browserWith = (allowPrivateTargets: boolean, chromiumPath: string | undefined) =>
  browserLayer(configWith(allowPrivateTargets, chromiumPath))

/** A server on one loopback address that records the paths it was asked for. */
const listen = (host: string, handler: http.RequestListener) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ origin: string; paths: Array<string>; server: http.Server }>((resolve) => {
        const paths: Array<string> = []
        const server = http.createServer((req, res) => {
          paths.push(req.url ?? "")
          handler(req, res)
        })
        server.listen(
          0,
          host,
          () => resolve({ origin: `http://${host}:${(server.address() as AddressInfo).port}`, paths, server })
        )
      })
    ),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

/** Screenshot `url` with a browser built for these settings, closed afterwards. */
const shoot = (url: string, allowPrivateTargets: boolean, chromiumPath: string | undefined) =>
  Effect.scoped(
    Effect.gen(function*() {
      const browser = yield* ScanBrowser
      return { available: browser.available, png: yield* browser.screenshot(url) }
    }).pipe(Effect.provide(browserWith(allowPrivateTargets, chromiumPath)))
  )

const png = [0x89, 0x50, 0x4e, 0x47]

/** Processes whose parent is `parent` and whose command line mentions `name`. */
const childrenOf = (parent: number, name: string) =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      return ppid === parent && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(name) ? [Number(entry)] : []
    } catch {
      return []
    }
  })

/** A screenshot that must be taken: when none comes, the failure the browser logged is the assertion's message. */
const mustShoot = (browser: ScanBrowser["Service"], url: string) =>
  capturingLogs((lines) =>
    Effect.map(browser.screenshot(url), (shot) => {
      assert.isDefined(shot, `no screenshot of ${url}: ${lines.join("\n")}`)
      return shot!
    })
  )

/** Polls `done` every 50 ms, for 30 s at most. */
const waitFor = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 600 && !done(); i++) yield* Effect.sleep("50 millis")
    assert.isTrue(done(), "waited 30 s")
  })

const served: Array<Served> = []
afterAll(() => Promise.all(served.map((s) => s.close())))

/** A loopback page with an image from another loopback server: the requests show what the guard let through. */
const pixelPage = Effect.promise(async () => {
  const images = await serveSite(() => ({
    "/pixel.png": { headers: { "content-type": "image/png" }, body: Buffer.from(png) }
  }))
  const page = await serveSite(() => ({
    "/": {
      headers: { "content-type": "text/html" },
      body: `<html><body><h1>Hi</h1><img src="${images.origin}/pixel.png"></body></html>`
    }
  }))
  served.push(images, page)
  return { page, images, url: `${page.origin}/` }
})

describe.skipIf(!existsSync("/usr/bin/chromium"))("screenshot browser", () => {
  it.live(
    "the page and its requests pass the outbound rules: private addresses only with ALLOW_PRIVATE_TARGETS",
    () =>
      Effect.gen(function*() {
        const allowed = yield* pixelPage
        const shot = yield* shoot(allowed.url, true, "/usr/bin/chromium")
        assert.isTrue(shot.available)
        assert.deepStrictEqual([...shot.png!.slice(0, 4)], png)
        assert.strictEqual(allowed.page.maxInFlight.get("/"), 1)
        assert.strictEqual(allowed.images.maxInFlight.get("/pixel.png"), 1)

        const refused = yield* pixelPage
        const none = yield* shoot(refused.url, false, "/usr/bin/chromium")
        assert.isUndefined(none.png)
        assert.isUndefined(refused.page.maxInFlight.get("/"))
        assert.isUndefined(refused.images.maxInFlight.get("/pixel.png"))
      }),
    { timeout: 60_000 }
  )

  it.live(
    "every redirect hop passes the rules: a public page redirecting the browser to a private address gets nothing from it",
    () =>
      Effect.gen(function*() {
        // 127.0.0.1 stands for a public host (let through by address); 127.0.0.2 for a private one.
        const hidden = yield* listen("127.0.0.2", (_req, res) => {
          res.writeHead(200, { "content-type": "image/png" })
          res.end(Buffer.from(png))
        })
        const site = yield* listen("127.0.0.1", (req, res) => {
          const to = (location: string) => {
            res.writeHead(302, { location })
            res.end()
          }
          if (req.url === "/") return to("/page")
          if (req.url === "/page") {
            res.writeHead(200, { "content-type": "text/html" })
            return res.end(`<html><body><h1>Hi</h1><img src="/hop.png"><img src="/ok.png"></body></html>`)
          }
          if (req.url === "/ok.png") return to("/pixel.png")
          if (req.url === "/pixel.png") {
            res.writeHead(200, { "content-type": "image/png" })
            return res.end(Buffer.from(png))
          }
          if (req.url === "/away") return to(`${hidden.origin}/page`)
          return to(`${hidden.origin}/secret.png`)
        })
        const shootAllowing = (url: string) =>
          Effect.scoped(
            Effect.flatMap(ScanBrowser, (browser) => browser.screenshot(url)).pipe(
              Effect.provide(browserLayer(configWith(false, "/usr/bin/chromium", ["127.0.0.1"])))
            )
          )
        const shot = yield* shootAllowing(`${site.origin}/`)
        assert.deepStrictEqual([...shot!.slice(0, 4)], png, "the page, reached through a redirect, is captured")
        assert.deepStrictEqual(site.paths.filter((p) => p !== "/favicon.ico").sort(), [
          "/",
          "/hop.png",
          "/ok.png",
          "/page",
          "/pixel.png"
        ])
        assert.isUndefined(
          yield* shootAllowing(`${site.origin}/away`),
          "a navigation redirected to a private address is refused"
        )
        assert.deepStrictEqual(hidden.paths, [], "the private server was never asked")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a worker killed mid-screenshot fails that screenshot only; Chromium killed, the next screenshot starts it again",
    () =>
      Effect.gen(function*() {
        const requested = { count: 0 }
        // A page that never answers: the screenshot is in its worker's hands until that worker is killed.
        const hanging = yield* listen("127.0.0.1", () => {
          requested.count++
        })
        const browser = yield* ScanBrowser
        const pending = yield* Effect.forkChild(browser.screenshot(`${hanging.origin}/`))
        yield* waitFor(() => requested.count > 0)
        const workers = childrenOf(process.pid, "pageWorker.ts")
        assert.isAbove(workers.length, 0)
        for (const pid of workers) process.kill(pid, "SIGKILL")
        assert.isUndefined(yield* Fiber.join(pending), "the killed worker's screenshot is none")
        // The pool's spare worker was killed too: the next job must not be handed to it before it is reaped.
        yield* waitFor(() => workers.every((pid) => !existsSync(`/proc/${pid}`)))

        const next = yield* pixelPage
        assert.deepStrictEqual(
          [...(yield* mustShoot(browser, next.url)).slice(0, 4)],
          png,
          "the next screenshot is taken"
        )

        const [host] = childrenOf(process.pid, "browserHost.ts")
        const chromium = childrenOf(host!, "chromium")
        assert.isAbove(chromium.length, 0)
        for (const pid of chromium) process.kill(pid, "SIGKILL")
        // The host goes with its Chromium; once it is reaped (not merely a zombie) the service knows.
        yield* waitFor(() => !existsSync(`/proc/${host}`))
        const after = yield* pixelPage
        assert.deepStrictEqual(
          [...(yield* mustShoot(browser, after.url)).slice(0, 4)],
          png,
          "a new Chromium takes the next one"
        )
      }).pipe(Effect.provide(browserWith(true, "/usr/bin/chromium")), Effect.scoped),
    { timeout: 90_000 }
  )

  it.live("without Chromium there is no screenshot", () =>
    Effect.gen(function*() {
      const shot = yield* shoot("http://127.0.0.1:1/", true, "/nonexistent/chromium")
      assert.isFalse(shot.available)
      assert.isUndefined(shot.png)
    }))
})
