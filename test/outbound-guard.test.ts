import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { lookup } from "node:dns/promises"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { hostname } from "node:os"
import { blockedReason, checkTarget, safeFetch } from "../src/platform/OutboundGuard.ts"

const v4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`
const octet = fc.integer({ min: 0, max: 255 })

describe("address classification", () => {
  it("refuses the named ranges", () => {
    for (
      const address of [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.1",
        "169.254.169.254",
        "0.0.0.0",
        "100.64.0.1",
        "100.127.255.255",
        "224.0.0.1",
        "239.255.255.250",
        "255.255.255.255",
        "198.18.0.1",
        "::",
        "::1",
        "fc00::1",
        "fd00:ec2::254",
        "fe80::1",
        "febf::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:7f00:1",
        "::ffff:169.254.169.254",
        "64:ff9b::10.0.0.1",
        "2002:c0a8:0101::1",
        "2001:db8::1",
        "::127.0.0.1",
        "fe80::1%eth0"
      ]
    ) assert.isDefined(blockedReason(address), address)
  })

  it("allows public unicast addresses", () => {
    for (
      const address of [
        "8.8.8.8",
        "1.1.1.1",
        "93.184.216.34",
        "172.32.0.1",
        "100.128.0.1",
        "169.253.255.255",
        "2606:4700:4700::1111",
        "2a00:1450:4001:82a::200e",
        "::ffff:8.8.8.8",
        "64:ff9b::8.8.8.8"
      ]
    ) assert.isUndefined(blockedReason(address), address)
  })

  it("refuses every address of 10/8, 127/8, 169.254/16, 172.16/12, 192.168/16, 100.64/10", () => {
    fc.assert(
      fc.property(octet, octet, octet, (b, c, d) =>
        [
          v4(10, b, c, d),
          v4(127, b, c, d),
          v4(169, 254, c, d),
          v4(172, 16 + (b % 16), c, d),
          v4(192, 168, c, d),
          v4(100, 64 + (b % 64), c, d)
        ].every((a) => blockedReason(a) !== undefined))
    )
  })

  it("judges an IPv4-mapped IPv6 address exactly as the IPv4 address", () => {
    fc.assert(fc.property(octet, octet, octet, octet, (a, b, c, d) => {
      const plain = blockedReason(v4(a, b, c, d))
      const hex = (x: number, y: number) => ((x << 8) | y).toString(16)
      return blockedReason(`::ffff:${v4(a, b, c, d)}`) === plain &&
        blockedReason(`::ffff:${hex(a, b)}:${hex(c, d)}`) === plain
    }))
  })

  it("refuses all of fc00::/7, fe80::/10 and ff00::/8", () => {
    const word = fc.integer({ min: 0, max: 0xffff })
    fc.assert(
      fc.property(
        fc.integer({ min: 0xfc00, max: 0xfdff }),
        fc.integer({ min: 0xfe80, max: 0xfebf }),
        fc.integer({ min: 0xff00, max: 0xffff }),
        word,
        (ula, link, multi, w) =>
          [ula, link, multi].every((head) => blockedReason(`${head.toString(16)}:${w.toString(16)}::1`) !== undefined)
      )
    )
  })

  it("refuses what is not an address", () => {
    assert.isDefined(blockedReason("example.com"))
    assert.isDefined(blockedReason("1.2.3"))
  })
})

const withServer = <A>(handler: http.RequestListener, use: (url: string) => Effect.Effect<A, unknown>) =>
  Effect.acquireUseRelease(
    Effect.promise(() =>
      new Promise<http.Server>((resolve) => {
        const server = http.createServer(handler)
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
    ),
    (server) => use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

describe("targets and fetches", () => {
  it.effect("refuses localhost names, private literals and other schemes", () =>
    Effect.gen(function*() {
      for (
        const url of [
          "http://localhost/x",
          "http://app.localhost/",
          "http://127.0.0.1/",
          "http://[::1]:8080/",
          "http://169.254.169.254/latest/meta-data",
          "http://2130706433/",
          "http://0x7f.1/",
          "https://10.0.0.8/"
        ]
      ) {
        const error = yield* Effect.flip(checkTarget(url, false))
        assert.strictEqual(error.reason, "address", url)
      }
      const scheme = yield* Effect.flip(checkTarget("ftp://example.com/", false))
      assert.strictEqual(scheme.reason, "scheme")
      yield* checkTarget("http://127.0.0.1/", true)
      yield* checkTarget("https://93.184.216.34/hook", false)
    }))

  it.effect("refuses a private target at connect time unless allowed", () =>
    withServer((_, res) => res.end("hi"), (url) =>
      Effect.gen(function*() {
        const refused = yield* Effect.flip(safeFetch(url, { allowPrivateTargets: false }))
        assert.strictEqual(refused.reason, "address")
        const named = yield* Effect.flip(
          safeFetch(url.replace("127.0.0.1", "localhost"), { allowPrivateTargets: false })
        )
        assert.strictEqual(named.reason, "address")
        const ok = yield* safeFetch(url, { allowPrivateTargets: true })
        assert.strictEqual(ok.status, 200)
        assert.strictEqual(ok.body.toString(), "hi")
      })))

  it.effect("follows at most five redirects and re-checks each hop", () =>
    withServer((req, res) => {
      const n = Number(req.url!.slice(1))
      if (req.url === "/private") res.writeHead(302, { location: "http://10.0.0.1/" }).end()
      else if (n > 0) res.writeHead(302, { location: `/${n - 1}` }).end()
      else res.end("done")
    }, (url) =>
      Effect.gen(function*() {
        const five = yield* safeFetch(`${url}/5`, { allowPrivateTargets: true })
        assert.strictEqual(five.body.toString(), "done")
        const six = yield* Effect.flip(safeFetch(`${url}/6`, { allowPrivateTargets: true }))
        assert.strictEqual(six.reason, "redirects")
        const manual = yield* safeFetch(`${url}/1`, { allowPrivateTargets: true, maxRedirects: 0 })
        assert.strictEqual(manual.status, 302)
      })))

  it.effect("caps the body size and the time", () =>
    withServer((req, res) => {
      if (req.url === "/big") res.end(Buffer.alloc(2048))
      else setTimeout(() => res.end("late"), 2000)
    }, (url) =>
      Effect.gen(function*() {
        const big = yield* Effect.flip(safeFetch(`${url}/big`, { allowPrivateTargets: true, maxBytes: 1024 }))
        assert.strictEqual(big.reason, "too_large")
        const slow = yield* Effect.flip(safeFetch(`${url}/slow`, { allowPrivateTargets: true, timeoutMs: 200 }))
        assert.strictEqual(slow.reason, "timeout")
      })))
})

describe("IANA special-purpose blocks", () => {
  it("refuses IPv6 special-purpose blocks that are not globally reachable, and judges embedded IPv4 by its address", () => {
    for (
      const address of [
        "64:ff9b:1::1",
        "64:ff9b:1:ffff::8.8.8.8",
        "::ffff:0:8.8.8.8",
        "::ffff:0:0808:0808",
        "100::1",
        "100:0:0:1::1",
        "2001::1",
        "2001:2::1",
        "2001:10::1",
        "2001:1ff:ffff::1",
        "3fff::1",
        "3fff:fff::1",
        "5f00::1",
        "fec0::1",
        "64:ff9b::127.0.0.1",
        "64:ff9b::a9fe:a9fe",
        "2002:0a00:0001::1",
        "::ffff:10.0.0.1",
        "::"
      ]
    ) assert.isDefined(blockedReason(address), address)
    for (
      const address of [
        "2001:4860:4860::8888",
        "2001:200::1",
        "64:ff9b::1.1.1.1",
        "2002:0808:0808::1",
        "4000::1",
        "3ffe:ffff::1"
      ]
    ) {
      assert.isUndefined(blockedReason(address), address)
    }
  })
})

describe("the guard where a fetch connects", () => {
  /** The machine's own name: not a literal and not *.localhost, resolving (hosts file or DNS) to a local address. */
  const ownName = hostname()

  it.effect("a host name resolving to a private address is refused when the socket connects; the message names the host only", () =>
    withServerOnAllInterfaces((_, res) => res.end("reached"), (port) =>
      Effect.gen(function*() {
        const resolved = yield* Effect.promise(() => lookup(ownName, { all: true }))
        // Only meaningful when the name resolves to addresses the guard refuses (it does on this machine and in containers).
        assert.isTrue(resolved.every(({ address }) => blockedReason(address) !== undefined), JSON.stringify(resolved))
        const refused = yield* Effect.flip(safeFetch(`http://${ownName}:${port}/`, { allowPrivateTargets: false }))
        assert.strictEqual(refused.reason, "address")
        assert.strictEqual(refused.message, `${ownName} is not a public address`)
        for (const { address } of resolved) assert.notInclude(refused.message, address)
        // The same name with private targets allowed reaches the server: the refusal above was the guard's.
        const reached = yield* safeFetch(`http://${ownName}:${port}/`, { allowPrivateTargets: true })
        assert.strictEqual(reached.body.toString(), "reached")
      })))

  it.effect("every redirect hop is checked again: to a private literal, to a local name, to a name resolving privately", () =>
    withServerOnAllInterfaces((req, res) => {
      const port = (req.socket.address() as AddressInfo).port
      if (req.url === "/to-literal") res.writeHead(302, { location: `http://127.0.0.1:${port}/end` }).end()
      else if (req.url === "/to-localhost") res.writeHead(307, { location: `http://localhost:${port}/end` }).end()
      else if (req.url === "/to-name") res.writeHead(302, { location: `http://${ownName}:${port}/end` }).end()
      else res.end("followed")
    }, (port) =>
      Effect.gen(function*() {
        // Only 127.0.0.2 (a loopback address this server answers on) is let through: the first hop is reached.
        const options = { allowPrivateTargets: false, allowAddresses: ["127.0.0.2"] }
        const first = yield* safeFetch(`http://127.0.0.2:${port}/end`, options)
        assert.strictEqual(first.body.toString(), "followed")
        const resolved = yield* Effect.promise(() => lookup(ownName, { all: true }))
        assert.isFalse(resolved.some(({ address }) => address === "127.0.0.2"), JSON.stringify(resolved))
        for (const path of ["/to-literal", "/to-localhost", "/to-name"]) {
          const refused = yield* Effect.flip(safeFetch(`http://127.0.0.2:${port}${path}`, options))
          assert.strictEqual(refused.reason, "address", path)
        }
      })))
})

/** An HTTP server on every interface (so any local address a name resolves to reaches it), on a random port. */
const withServerOnAllInterfaces = <A>(
  handler: http.RequestListener,
  use: (port: number) => Effect.Effect<A, unknown>
) =>
  Effect.acquireUseRelease(
    Effect.promise(() =>
      new Promise<http.Server>((resolve) => {
        const server = http.createServer(handler)
        server.listen(0, () => resolve(server))
      })
    ),
    (server) => use((server.address() as AddressInfo).port),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )
