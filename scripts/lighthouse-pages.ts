/**
 * Lighthouse's accessibility and SEO scores of Herald's own public pages:
 * home, API reference, checkout, key-once, the sandbox's consent, an
 * assistant's OAuth consent (with an API key, and from a dashboard session),
 * sign-in and the signed-in dashboard, served by the service started as a
 * child (embedded database),
 * each in Lighthouse's mobile emulation and at desktop width,
 * audited with the machine's Chromium. Prints each page's two scores and the
 * audits that did not pass; exits 1 when a score is below 100.
 * npm run lighthouse:pages   (CHROME_PATH overrides /usr/bin/chromium)
 */
import * as chromeLauncher from "chrome-launcher"
import lighthouse from "lighthouse"
import { createHash, randomBytes } from "node:crypto"
import { startService } from "./support/service-process.ts"

const service = await startService({
  DATABASE_URL: "pglite://memory",
  SOCIAL_PROVIDER: "sandbox",
  PAYMENT_PROVIDER: "local"
})
// The service names itself http://localhost:PORT (BASE_URL unset): its forms check that origin.
const base = service.url.replace("127.0.0.1", "localhost")
const origin = { origin: base }

const form = (body: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: "POST",
  redirect: "manual" as const,
  headers: { "content-type": "application/x-www-form-urlencoded", ...origin, ...headers },
  body: new URLSearchParams(body).toString()
})
const token = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? ""
const startCheckout = async (email: string) => {
  const res = await fetch(`${base}/api/checkout`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email })
  })
  return ((await res.json()) as { url: string }).url
}

/**
 * An assistant's authorization request: a client registered as an assistant
 * would, with a PKCE challenge. The page is checked to be the consent form
 * (asking for a key, or with a session's token), not an error page.
 */
const appConsent = async (cookie?: string) => {
  const redirectUri = "http://127.0.0.1:53682/callback"
  const registered = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Lighthouse assistant", redirect_uris: [redirectUri] })
  })
  const { client_id } = (await registered.json()) as { client_id?: string }
  if (client_id === undefined) throw new Error(`no client registered: ${registered.status}`)
  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url")
  const url = `${base}/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: `${base}/mcp`,
    state: "lighthouse"
  })}`
  const page = await fetch(url, { headers: cookie === undefined ? {} : { cookie } })
  const text = await page.text()
  if (page.status !== 200 || !text.includes(cookie === undefined ? "name=\"apiKey\"" : "name=\"_csrf\"")) {
    throw new Error(`no consent form at ${url}: ${page.status} ${text.slice(0, 300)}`)
  }
  return url
}

/** Pages and what to send with them: a completed sign-up, a signed-in session, consent links. */
const pages = async () => {
  const checkout = await startCheckout("lighthouse@example.com")
  const done = await startCheckout("owner@example.com")
  const id = done.split("/").pop()!
  await fetch(`${base}/checkout/${id}`, form({ _csrf: token(await (await fetch(done)).text()) }))
  const session = (await (await fetch(`${base}/api/session/${id}`)).json()) as { apiKey: string; customerId: string }
  const signedIn = await fetch(`${base}/dashboard`, form({ apiKey: session.apiKey }))
  const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!
  const connect = await fetch(`${base}/api/connect/${session.customerId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ platforms: ["linkedin"] })
  })
  const connected = (await connect.json()) as { connectLinks?: Record<string, string> }
  const consent = connected.connectLinks?.linkedin
  if (consent === undefined) {
    throw new Error(`no connect link: ${JSON.stringify(connected)} (session ${JSON.stringify(session)})`)
  }
  return [
    { name: "home", url: `${base}/` },
    { name: "docs", url: `${base}/docs` },
    { name: "checkout", url: checkout },
    { name: "key-once", url: `${base}/checkout/${id}/success` },
    { name: "consent", url: consent },
    { name: "oauth", url: await appConsent() },
    { name: "oauth-session", url: await appConsent(cookie), headers: { cookie } },
    { name: "sign-in", url: `${base}/dashboard` },
    { name: "dashboard", url: `${base}/dashboard`, headers: { cookie } }
  ]
}

const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH ?? "/usr/bin/chromium",
  chromeFlags: [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run"
  ]
})
let below = 0
try {
  console.log("page".padEnd(18), "a11y".padEnd(5), "SEO".padEnd(5), "not passed")
  const only = process.argv.slice(2)
  const runs = (await pages()).filter((p) => only.length === 0 || only.includes(p.name))
    .flatMap((page) => (["mobile", "desktop"] as const).map((device) => ({ ...page, device })))
  for (const page of runs) {
    const runner = await lighthouse(page.url, {
      port: chrome.port,
      onlyCategories: ["accessibility", "seo"],
      output: "json",
      logLevel: "error",
      ...(page.device === "desktop"
        ? {
          formFactor: "desktop",
          screenEmulation: { mobile: false, width: 1280, height: 900, deviceScaleFactor: 1, disabled: false }
        }
        : {}),
      ...(page.headers === undefined ? {} : { extraHeaders: page.headers })
    })
    const lhr = runner?.lhr
    if (lhr === undefined || lhr.runtimeError !== undefined) {
      console.log(
        `${page.name} ${page.device}`.padEnd(18),
        `Lighthouse could not run (${lhr?.runtimeError?.code ?? "no result"})`
      )
      below++
      continue
    }
    const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100)
    const failing = ["accessibility", "seo"].flatMap((category) =>
      lhr.categories[category]!.auditRefs
        .filter((ref) =>
          ref.weight > 0 && lhr.audits[ref.id]?.score !== 1 && lhr.audits[ref.id]?.scoreDisplayMode !== "notApplicable"
        )
        .map((ref) => ref.id)
    )
    if (score("accessibility") < 100 || score("seo") < 100) below++
    console.log(
      `${page.name} ${page.device}`.padEnd(18),
      String(score("accessibility")).padEnd(5),
      String(score("seo")).padEnd(5),
      failing.join(", ")
    )
    if (process.env.DETAILS !== undefined) {
      for (const id of failing) {
        const items = (lhr.audits[id]?.details as
          | { items?: Array<{ node?: { snippet?: string; explanation?: string } }> }
          | undefined)?.items ?? []
        for (const item of items.slice(0, 8)) {
          console.log(
            `  ${id}: ${item.node?.snippet ?? JSON.stringify(item).slice(0, 200)} ${
              item.node?.explanation?.split("\n")[1] ?? ""
            }`
          )
        }
      }
    }
  }
  console.log(
    `\nLighthouse ${
      (await import("lighthouse/package.json", { with: { type: "json" } })).default.version
    }: mobile (its default emulation) and desktop 1280 px`
  )
} finally {
  chrome.kill()
  service.child.kill("SIGTERM")
  await service.exited
}
process.exitCode = below === 0 ? 0 : 1
