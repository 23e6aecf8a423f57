import { chromium } from "playwright-core"

/**
 * The screenshot browser's host (a child process of the service): launches
 * the one shared Chromium behind a Playwright server on loopback and tells
 * the service its endpoint, `{ endpoint }`. Page pool workers connect to that
 * endpoint and drive their own pages; the protocol traffic with Chromium (every
 * routed request, every screenshot) runs here and in the workers, never on
 * the service's event loop. Each connection's contexts are closed when it goes,
 * so a worker that dies leaves no page behind. The endpoint's path is random
 * and nothing else on the port answers. When Chromium ends (a crash) this
 * process ends with it; when the service goes (its channel closed) it closes
 * Chromium and ends. Argument: the Chromium executable.
 */
const hostileFlags = [
  // Chromium's own WebRTC switches (no UDP but through a proxy, and there is none).
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  // A heap limit per renderer: a page that allocates without end crashes its own tab early.
  "--js-flags=--max-old-space-size=512"
]

const server = await chromium.launchServer({
  executablePath: process.argv[2]!,
  host: "127.0.0.1",
  port: 0,
  handleSIGINT: false,
  handleSIGTERM: true,
  args: [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    ...hostileFlags
  ]
})
server.on("close", () => process.exit(0))
process.on("disconnect", () => {
  server.close().finally(() => process.exit(0))
})
process.send?.({ endpoint: server.wsEndpoint() })
