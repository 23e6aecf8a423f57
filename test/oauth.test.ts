import { assert, layer } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Page } from "playwright-core"
import { codeSweep, CodeSweepLive } from "../src/features/oauth/OAuth.ts"
import { launchBrowser, openPage } from "./support/browser.ts"
import { eventually } from "./support/eventually.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { documentServer, MemoryProvider } from "./support/oauth.ts"
import { bearer, provision, randomIp } from "./support/processes.ts"

const modern = "2026-07-28"
/** Nothing listens here: the browser's visit to the callback is intercepted and recorded. */
const callback = "http://127.0.0.1:53682/callback"

const form = (fields: Record<string, string>) => ({
  headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": randomIp() },
  body: new URLSearchParams(fields).toString(),
  raw: true
})

const newClient = () =>
  new Client({ name: "oauth-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: modern } } })

/** Connects the v2 client with the provider: the connection that needs sign-in fails with UnauthorizedError and names where to sign in. */
const connectNeedingSignIn = (url: string, provider: MemoryProvider) =>
  Effect.promise(async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider })
    const error = await newClient().connect(transport).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, UnauthorizedError, String(error))
    assert.isDefined(provider.authorizationUrl, "the client was sent to authorize")
    return transport
  })

/** Opens the consent page in Chromium, lets `act` answer it, and returns the callback URL the browser was sent to. */
const consentInBrowser = (page: Page, authorizationUrl: URL, act: (page: Page) => Promise<void>) =>
  Effect.promise(async () => {
    let reached: string | undefined
    await page.route(`${callback}**`, async (route) => {
      reached = route.request().url()
      // An HTML answer with its own icon: the browser asks the closed port for nothing else.
      await route.fulfill({
        status: 200,
        contentType: "text/html",
        body: `<!doctype html><link rel="icon" href="data:,"><p>Signed in; you may close this window.</p>`
      })
    })
    await page.goto(authorizationUrl.href)
    await act(page)
    for (let i = 0; i < 100 && reached === undefined; i++) await new Promise((r) => setTimeout(r, 100))
    await page.unroute(`${callback}**`)
    assert.isDefined(reached, "the browser reached the client's redirect URI")
    return new URL(reached!)
  })

const connected = (url: string, provider: MemoryProvider) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = newClient()
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider }))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

layer(testApp({ trustProxy: true }), { timeout: 180_000, excludeTestServices: true })(
  "OAuth sign-in for assistants (official v2 client)",
  (it) => {
    it.effect("metadata: the protected resource names Herald, which publishes RFC 8414 metadata", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        for (
          const [path, resource] of [["/.well-known/oauth-protected-resource", url], [
            "/.well-known/oauth-protected-resource/mcp",
            `${url}/mcp`
          ]]
        ) {
          const res = yield* call("GET", path)
          assert.strictEqual(res.status, 200, path)
          assert.strictEqual(res.json.resource, resource)
          assert.deepStrictEqual(res.json.authorization_servers, [url])
        }
        const res = yield* call("GET", "/.well-known/oauth-authorization-server")
        assert.strictEqual(res.status, 200)
        assert.strictEqual(res.headers.get("access-control-allow-origin"), "*")
        const prm = (yield* call("GET", "/.well-known/oauth-protected-resource")).json
        assert.deepInclude(res.json, {
          issuer: url,
          authorization_endpoint: `${url}/oauth/authorize`,
          token_endpoint: `${url}/oauth/token`,
          registration_endpoint: `${url}/oauth/register`,
          revocation_endpoint: `${url}/oauth/revoke`,
          client_id_metadata_document_supported: true,
          authorization_response_iss_parameter_supported: true
        })
        assert.deepStrictEqual(res.json.response_types_supported, ["code"])
        assert.deepStrictEqual(res.json.grant_types_supported, ["authorization_code", "refresh_token"])
        assert.deepStrictEqual(res.json.code_challenge_methods_supported, ["S256"])
        assert.include(res.json.token_endpoint_auth_methods_supported, "none")
        assert.deepStrictEqual(res.json.scopes_supported, prm.scopes_supported)
        const openapi = (yield* call("GET", "/openapi.json")).json
        for (
          const path of [
            "/oauth/token",
            "/oauth/register",
            "/oauth/revoke",
            "/oauth/authorize",
            "/.well-known/oauth-authorization-server"
          ]
        ) {
          assert.property(openapi.paths, path)
        }
      }))

    it.effect("registration (RFC 7591), consent with an API key in Chromium, tools, refresh, revocation", () =>
      Effect.scoped(Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* provision({ status: "active" })
        const provider = new MemoryProvider(callback, "Registered assistant")
        const transport = yield* connectNeedingSignIn(url, provider)
        // No metadata URL: the client registered itself.
        assert.match(provider.information.client_id, /^hcl_/)
        const asked = provider.authorizationUrl!
        assert.strictEqual(asked.origin + asked.pathname, `${url}/oauth/authorize`)
        // The client names the resource the 401's metadata document publishes: the base address.
        assert.strictEqual(new URL(asked.searchParams.get("resource")!).href, new URL(url).href)
        assert.strictEqual(asked.searchParams.get("code_challenge_method"), "S256")

        const browser = yield* launchBrowser
        const { page, problems } = yield* openPage(browser, { headers: { "x-forwarded-for": randomIp() } })
        const back = yield* consentInBrowser(page, asked, async (page) => {
          assert.strictEqual(await page.locator("#client-name").textContent(), "Registered assistant")
          await page.fill("input[name=apiKey]", owner.apiKey)
          await page.selectOption("select[name=role]", "editor")
          await page.click("button[value=approve]")
        })
        assert.deepStrictEqual(problems, [])
        assert.strictEqual(back.searchParams.get("state"), "state-from-the-client")
        assert.strictEqual(back.searchParams.get("iss"), url)
        assert.match(back.searchParams.get("code") ?? "", /^hac_/)
        yield* Effect.promise(() => transport.finishAuth(back.searchParams))
        const first = provider.stored
        assert.match(first.access_token, /^hat_/)
        assert.match(first.refresh_token, /^hrt_/)
        assert.include(first.scope.split(" "), "write:content")
        assert.notInclude(first.scope.split(" "), "write:settings")

        {
          const client = yield* connected(url, provider)
          const tools = yield* Effect.promise(() => client.listTools())
          assert.isAbove(tools.tools.length, 5)
          const made: any = yield* Effect.promise(() =>
            client.callTool({
              name: "run_content_creation",
              arguments: { customerId: owner.customerId, type: "blog", topic: "Signing in" }
            })
          )
          assert.notStrictEqual(made.isError, true, JSON.stringify(made))
          // The editor role holds: an admin tool is refused.
          const refused: any = yield* Effect.promise(() =>
            client.callTool({
              name: "analyze_brand_url",
              arguments: { customerId: owner.customerId, url: "https://example.com" }
            }).catch((e: unknown) => ({ thrown: String(e) }))
          )
          assert.isTrue(refused.isError === true || refused.thrown !== undefined, JSON.stringify(refused))
          assert.match(JSON.stringify(refused), /admin/)
        }

        // The token also works on REST with its role, and the customer of another path is refused.
        const rest = yield* call("GET", `/api/content/${owner.customerId}`, { headers: bearer(first.access_token) })
        assert.strictEqual(rest.status, 200, rest.text)
        const settings = yield* call("PUT", `/api/settings/${owner.customerId}/autonomy`, {
          headers: bearer(first.access_token),
          body: { globalDefault: 2 }
        })
        assert.strictEqual(settings.status, 403, settings.text)

        // Refresh: the SDK renews when its access token is refused; the refresh token rotates.
        provider.stored = { ...first, access_token: "hat_" + "x".repeat(43) }
        {
          const client = yield* connected(url, provider)
          const tools = yield* Effect.promise(() => client.listTools())
          assert.isAbove(tools.tools.length, 5)
        }
        const second = provider.stored
        assert.notStrictEqual(second.access_token, first.access_token)
        assert.notStrictEqual(second.refresh_token, first.refresh_token)
        const clientId = provider.information.client_id as string
        const old = yield* call(
          "POST",
          "/oauth/token",
          form({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: clientId })
        )
        assert.strictEqual(old.status, 400)
        assert.strictEqual(old.json.error, "invalid_grant")
        assert.strictEqual(old.headers.get("cache-control"), "no-store")
        // Reusing the rotated token revoked the grant: the newest tokens are refused too.
        const after = yield* call("GET", `/api/content/${owner.customerId}`, { headers: bearer(second.access_token) })
        assert.strictEqual(after.status, 401)
        assert.match(after.headers.get("www-authenticate") ?? "", /resource_metadata=/)
      })))

    it.effect("a client metadata document as client_id, consent from a dashboard session, Connected apps and revocation", () =>
      Effect.scoped(Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* provision({ status: "active" })
        const docs = yield* documentServer((origin) => ({
          "/assistant.json": {
            body: JSON.stringify({
              client_id: `${origin}/assistant.json`,
              client_name: "Document <b>assistant</b>",
              client_uri: "https://assistant.example",
              redirect_uris: [callback],
              token_endpoint_auth_method: "none",
              grant_types: ["authorization_code", "refresh_token"],
              response_types: ["code"]
            })
          }
        }))
        const provider = new MemoryProvider(callback, "ignored", `${docs.origin}/assistant.json`)
        const transport = yield* connectNeedingSignIn(url, provider)
        assert.strictEqual(provider.information.client_id, `${docs.origin}/assistant.json`)

        const browser = yield* launchBrowser
        const { page, problems } = yield* openPage(browser, { headers: { "x-forwarded-for": randomIp() } })
        // Signed in to the dashboard first: the consent page then asks for no key.
        yield* Effect.promise(async () => {
          await page.goto(`${url}/dashboard`)
          await page.fill("input[name=apiKey]", owner.apiKey)
          await page.click("button[type=submit]")
          await page.waitForURL(`${url}/dashboard`)
        })
        const back = yield* consentInBrowser(page, provider.authorizationUrl!, async (page) => {
          // The name is the document's, shown as text.
          assert.strictEqual(await page.locator("#client-name").textContent(), "Document <b>assistant</b>")
          assert.strictEqual(await page.locator("input[name=apiKey]").count(), 0)
          await page.selectOption("select[name=role]", "viewer")
          await page.click("button[value=approve]")
        })
        assert.strictEqual(back.searchParams.get("iss"), url)
        yield* Effect.promise(() => transport.finishAuth(back.searchParams))
        assert.include(provider.stored.scope.split(" "), "read:content")
        assert.notInclude(provider.stored.scope.split(" "), "write:content")
        // The document is kept: the flow fetched it once.
        assert.strictEqual(docs.fetches.get("/assistant.json"), 1)
        {
          const client = yield* connected(url, provider)
          assert.isAbove((yield* Effect.promise(() => client.listTools())).tools.length, 5)
        }

        // Connected apps lists it; Disconnect ends its tokens at once.
        yield* Effect.promise(async () => {
          await page.goto(`${url}/dashboard#apps`)
          const item = page.locator("#apps li", { hasText: "Document <b>assistant</b>" })
          assert.strictEqual(await item.count(), 1)
          assert.include(await item.textContent(), "viewer")
          await item.locator("button", { hasText: "Disconnect" }).click()
          await page.waitForURL(`${url}/dashboard#apps`)
          assert.strictEqual(await page.locator("#apps li", { hasText: "Document <b>assistant</b>" }).count(), 0)
        })
        assert.deepStrictEqual(problems, [])
        const refused = yield* call("POST", "/mcp", {
          headers: bearer(provider.stored.access_token, { accept: "application/json, text/event-stream" }),
          body: {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } }
          }
        })
        assert.strictEqual(refused.status, 401)
        const refresh = yield* call(
          "POST",
          "/oauth/token",
          form({
            grant_type: "refresh_token",
            refresh_token: provider.stored.refresh_token,
            client_id: provider.information.client_id
          })
        )
        assert.strictEqual(refresh.json.error, "invalid_grant")
      })))

    it.effect("the revocation endpoint (RFC 7009) ends a grant: its access token is refused at /mcp and on REST", () =>
      Effect.scoped(Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* provision({ status: "active" })
        const provider = new MemoryProvider(callback, "Revoked assistant")
        const transport = yield* connectNeedingSignIn(url, provider)
        const browser = yield* launchBrowser
        const { page } = yield* openPage(browser, { headers: { "x-forwarded-for": randomIp() } })
        const back = yield* consentInBrowser(page, provider.authorizationUrl!, async (page) => {
          await page.fill("input[name=apiKey]", owner.apiKey)
          await page.click("button[value=approve]")
        })
        yield* Effect.promise(() => transport.finishAuth(back.searchParams))
        const { access_token } = provider.stored
        const before = yield* call("GET", `/api/content/${owner.customerId}`, { headers: bearer(access_token) })
        assert.strictEqual(before.status, 200)
        const revoked = yield* call(
          "POST",
          "/oauth/revoke",
          form({ token: access_token, client_id: provider.information.client_id })
        )
        assert.strictEqual(revoked.status, 200)
        const rest = yield* call("GET", `/api/content/${owner.customerId}`, { headers: bearer(access_token) })
        assert.strictEqual(rest.status, 401)
        const mcp = yield* call("POST", "/mcp", {
          headers: bearer(access_token, { accept: "application/json, text/event-stream" }),
          body: {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } }
          }
        })
        assert.strictEqual(mcp.status, 401)
        // API keys keep working as Bearer tokens.
        const key = yield* call("GET", `/api/content/${owner.customerId}`, { headers: bearer(owner.apiKey) })
        assert.strictEqual(key.status, 200)
      })))

    it.effect("the code sweep drops abandoned codes once expired, in batches, and keeps live ones and a day of exchanged ones", () =>
      Effect.gen(function*() {
        const { sql } = yield* TestServer
        const owner = yield* provision()
        const [key] = yield* Effect.orDie(
          sql<{ id: string }>`SELECT id FROM api_keys WHERE customer_id = ${owner.customerId} AND member_id IS NULL`
        )
        const code = (hash: string, expires: string, usedAt: string | null, grantId: string | null) =>
          sql`INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, resource, customer_id, key_id, role, expires_at, used_at, grant_id)
            VALUES (${hash}, 'hcl_sweep', ${callback}, 'challenge', 'https://herald.test/mcp', ${owner.customerId}, ${
            key!.id
          },
              'viewer', now() + ${expires}::interval, now() + ${usedAt}::interval, ${grantId})`
        yield* Effect.orDie(Effect.all([
          // Approved, never exchanged, expired: the person's approval was abandoned.
          code("sweep-abandoned", "-1 minute", null, null),
          // Presented too late: spent, but no grant came of it.
          code("sweep-late", "-1 minute", "0 seconds", null),
          // Still in its minute: the client may yet exchange it.
          code("sweep-live", "1 minute", null, null),
          // Exchanged an hour ago: kept, so a replay still revokes its grant.
          code("sweep-exchanged", "-1 hour", "-61 minutes", "grt_sweep_recent"),
          // Exchanged two days ago: past the replay window.
          code("sweep-exchanged-old", "-2 days", "-2 days", "grt_sweep_old")
        ]))
        // More abandoned codes than one batch deletes: the sweep goes on until a batch comes back short.
        const many = codeSweep.batch * 2 + 345
        yield* Effect.orDie(
          sql`INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, resource, customer_id, key_id, role, expires_at)
          SELECT 'sweep-many-' || g, 'hcl_sweep', ${callback}, 'challenge', 'https://herald.test/mcp', ${owner.customerId}, ${
            key!.id
          },
            'viewer', now() - g * interval '1 second'
          FROM generate_series(1, ${many}) g`
        )
        const left = sql<{ codeHash: string }>`SELECT code_hash FROM oauth_codes
          WHERE code_hash LIKE 'sweep-%' ORDER BY code_hash`
        assert.lengthOf(yield* Effect.orDie(left), many + 5)

        // The app's own sweep took this hour's period at start: the next one is made due.
        yield* Effect.orDie(sql`UPDATE scheduled_jobs SET next_run_at = now() WHERE name = 'oauth: code sweep'`)
        yield* Layer.build(CodeSweepLive.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))))
        const kept = yield* eventually(
          Effect.map(Effect.orDie(left), (rows) => (rows.length <= 2 ? rows.map((row) => row.codeHash) : undefined)),
          20_000
        )
        assert.deepStrictEqual(kept, ["sweep-exchanged", "sweep-live"])
      }))
  }
)
