import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { AppConfig, appConfig } from "../src/Config.ts"
import { ScanBrowser } from "../src/features/scan/Browser.ts"
import { type Served, serveSite } from "./support/scan-sites.ts"

// Vite exports BASE_URL="/" into the environment; the app reads BASE_URL as its own.
delete process.env.BASE_URL

const browserWith = (allowPrivateTargets: boolean, chromiumPath: string | undefined) =>
  Layer.effect(AppConfig, Effect.map(Effect.orDie(appConfig), (config) => ({ ...config, allowPrivateTargets, chromiumPath }))).pipe(
    (config) => ScanBrowser.layer.pipe(Layer.provide(config))
  )

/** Screenshot `url` with a browser built for these settings, closed afterwards. */
const shoot = (url: string, allowPrivateTargets: boolean, chromiumPath: string | undefined) =>
  Effect.scoped(Effect.gen(function*() {
    const browser = yield* ScanBrowser
    return { available: browser.available, png: yield* browser.screenshot(url) }
  }).pipe(Effect.provide(browserWith(allowPrivateTargets, chromiumPath))))

const png = [0x89, 0x50, 0x4e, 0x47]

const served: Array<Served> = []
afterAll(() => Promise.all(served.map((s) => s.close())))

/** A loopback page with an image from another loopback server: the requests show what the guard let through. */
const pixelPage = Effect.promise(async () => {
  const images = await serveSite(() => ({ "/pixel.png": { headers: { "content-type": "image/png" }, body: Buffer.from(png) } }))
  const page = await serveSite(() => ({
    "/": { headers: { "content-type": "text/html" }, body: `<html><body><h1>Hi</h1><img src="${images.origin}/pixel.png"></body></html>` }
  }))
  served.push(images, page)
  return { page, images, url: `${page.origin}/` }
})

describe.skipIf(!existsSync("/usr/bin/chromium"))("screenshot browser", () => {
  it.live("the page and its requests pass the outbound rules: private addresses only with ALLOW_PRIVATE_TARGETS", () =>
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
    }), { timeout: 60_000 })

  it.live("without Chromium there is no screenshot", () =>
    Effect.gen(function*() {
      const shot = yield* shoot("http://127.0.0.1:1/", true, "/nonexistent/chromium")
      assert.isFalse(shot.available)
      assert.isUndefined(shot.png)
    }))
})
