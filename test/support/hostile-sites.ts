import dgram from "node:dgram"
import http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A corpus of hostile pages, served on one loopback port, for
 * test/hostile-sites.test.ts and scripts/bench-hostile.ts. Each is what a
 * free-trial customer could point a scan at: popups, dialog loops, a
 * download, endless redirects, a body dripped a byte at a time, 60 images of
 * 5 MiB, a 50 MiB page, headings that make naive patterns backtrack, a meta
 * refresh loop, WebRTC aimed at a loopback UDP port (which counts what
 * reaches it), and a page that allocates until its renderer dies.
 */
export interface HostileCorpus {
  readonly origin: string
  /** Page paths, by name. */
  readonly pages: Readonly<Record<string, string>>
  /** UDP datagrams that reached the loopback STUN port (WebRTC that slipped out). */
  readonly udpPackets: () => number
  readonly close: () => Promise<void>
}

const imageBytes = 5 * 1024 * 1024
const image = Buffer.alloc(imageBytes, 0x41)
const megabyte = Buffer.alloc(1024 * 1024, 0x20)

const redosHeading = `<h1>for ${"a".repeat(170)}#</h1>`

const page = (body: string, head = "") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hostile</title>${head}</head><body>${body}</body></html>`

export const serveHostileCorpus = async (): Promise<HostileCorpus> => {
  const udp = dgram.createSocket("udp4")
  let packets = 0
  udp.on("message", () => packets++)
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", () => resolve()))
  const udpPort = (udp.address() as AddressInfo).port

  const webrtc = `<script>
try {
  const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${udpPort}" }, { urls: "turn:127.0.0.1:${udpPort}", username: "u", credential: "p" }] })
  pc.createDataChannel("x")
  pc.createOffer().then((offer) => pc.setLocalDescription(offer))
} catch (e) { document.title = "no webrtc" }
</script>`

  const timers = new Set<NodeJS.Timeout>()
  const pages: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
    "/popup": (_req, res) =>
      html(
        res,
        page(`<h1>Popups</h1><a id="a" href="/x" target="_blank">x</a>
<script>window.open("/x"); window.open("/x", "_blank"); setInterval(() => window.open("/x"), 20); document.getElementById("a").click()</script>`)
      ),
    "/dialogs": (_req, res) =>
      html(res, page(`<h1>Dialogs</h1><script>for (;;) { alert("a"); confirm("b"); prompt("c") }</script>`)),
    "/download": (_req, res) =>
      html(
        res,
        page(`<h1>Download</h1><iframe src="/file.bin"></iframe>
<script>const a = document.createElement("a"); a.href = "/file.bin"; a.download = "x.bin"; document.body.append(a); a.click(); location.href = "/file.bin"</script>`)
      ),
    "/file.bin": (_req, res) => {
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-disposition": "attachment; filename=x.bin"
      })
      res.end(megabyte)
    },
    "/drip": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.write("<html><body><h1>Drip</h1>")
      const timer = setInterval(() => res.write("a"), 200)
      timers.add(timer)
      res.on("close", () => {
        clearInterval(timer)
        timers.delete(timer)
      })
    },
    "/images": (_req, res) =>
      html(
        res,
        page(`<h1>Images</h1>${Array.from({ length: 60 }, (_, i) => `<img src="/img/${i}.png" alt="${i}">`).join("")}`)
      ),
    "/huge": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.write("<html><body><h1>Huge</h1><p>")
      let sent = 0
      const more = () => {
        while (sent < 50) {
          sent++
          if (!res.write(megabyte)) return void res.once("drain", more)
        }
        res.end("</p></body></html>")
      }
      more()
    },
    "/redos": (_req, res) =>
      html(
        res,
        page(
          `${redosHeading}<h2>for ${"a".repeat(170)}#</h2><p>${"for ".repeat(2000)}</p><h3>${"a ".repeat(5000)}!</h3>`,
          `<meta name="description" content="${"a".repeat(5000)}#"><meta property="og:site_name" content="for ${
            "a".repeat(170)
          }#">`
        )
      ),
    "/refresh": (_req, res) =>
      html(res, page(`<h1>Refresh</h1>${webrtc}`, `<meta http-equiv="refresh" content="0;url=/refresh">`)),
    "/webrtc": (_req, res) => html(res, page(`<h1>WebRTC</h1>${webrtc}`)),
    "/crash": (_req, res) =>
      html(
        res,
        page(`<h1>Crash</h1><script>
setTimeout(() => { try { location.href = "chrome://crash" } catch {} }, 0)
const keep = []; for (;;) keep.push(new Array(1e7).fill(1))
</script>`)
      )
  }
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]
    const redirect = /^\/redirect\/(\d+)$/.exec(path)
    if (redirect !== null) {
      res.writeHead(302, { location: `/redirect/${Number(redirect[1]) + 1}` })
      return res.end()
    }
    if (path.startsWith("/img/")) {
      res.writeHead(200, { "content-type": "image/png", "content-length": String(imageBytes) })
      return res.end(image)
    }
    const handler = pages[path]
    if (handler === undefined) {
      res.writeHead(404, { "content-type": "text/plain" })
      return res.end("not found")
    }
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const names = ["popup", "dialogs", "download", "drip", "images", "huge", "redos", "refresh", "webrtc", "crash"]
  return {
    origin,
    pages: {
      ...Object.fromEntries(names.map((name) => [name, `${origin}/${name}`])),
      redirect: `${origin}/redirect/0`
    },
    udpPackets: () => packets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer)
        udp.close()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

const html = (res: http.ServerResponse, body: string) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
  res.end(body)
}
