import { afterAll, assert, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { eventually } from "./support/eventually.ts"
import { call, freePort, testApp, TestServer } from "./support/harness.ts"
import { httpClient, sseClient } from "./support/mcp-clients.ts"
import { appWithModel, ModelServer } from "./support/model-app.ts"
import { bearer, invite, provision, type Provisioned } from "./support/processes.ts"
import { type Served, serveSite, sites } from "./support/scan-sites.ts"
import { specToolNames } from "./support/specTools.ts"

const twelve = [...specToolNames]

type McpClient = Client

const textOf = (result: any): string => result.content.map((c: any) => c.text).join("\n")

/** Calls a tool and expects a success: its structured result. */
const ok = (client: McpClient, name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const result: any = yield* Effect.promise(() =>
      client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
    )
    assert.notStrictEqual(result.isError, true, `${name}: ${textOf(result)}`)
    return { data: result.structuredContent as any, text: textOf(result), content: result.content as Array<any> }
  })

/** Calls a tool and expects a tool error with `code`: its text. */
const refused = (client: McpClient, name: string, args: Record<string, unknown>, code: string) =>
  Effect.gen(function*() {
    const result: any = yield* Effect.promise(() =>
      client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
    )
    assert.isTrue(result.isError, `${name} should fail with ${code}: ${textOf(result)}`)
    assert.strictEqual(result.structuredContent.code, code, `${name}: ${textOf(result)}`)
    assert.isTrue(textOf(result).startsWith(`${code}: `), textOf(result))
    return textOf(result)
  })

const get = (owner: Provisioned, path: string) =>
  call("GET", path.replace("{c}", owner.customerId), { headers: bearer(owner.apiKey) })

const hidden = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1]

/** Connects a platform on the sandbox provider as a person does (consent page, allow). */
const connectSandbox = (owner: Provisioned, platform: string) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    const links = yield* call("POST", `/api/connect/${owner.customerId}`, {
      headers: bearer(owner.apiKey),
      body: { platforms: [platform] }
    })
    assert.strictEqual(links.status, 200, links.text)
    const consent = yield* Effect.promise(() => fetch(links.json.connectLinks[platform], { redirect: "manual" }))
    const page = yield* Effect.promise(() => consent.text())
    const cookie = (consent.headers.get("set-cookie") ?? "").split(";")[0]
    const form = new URLSearchParams({
      state: hidden(page, "state")!,
      _csrf: hidden(page, "_csrf")!,
      decision: "allow"
    })
    const allowed = yield* Effect.promise(() =>
      fetch(`${url}/connect/sandbox`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: form.toString()
      })
    )
    assert.strictEqual(allowed.status, 303)
    const back = yield* call("GET", allowed.headers.get("location")!)
    assert.strictEqual(back.status, 302, back.text)
  })

const served: Array<Served> = []
afterAll(() => Promise.all(served.map((s) => s.close())))
const wellMarkedUp = Effect.promise(async () => {
  const site = await serveSite(sites.wellMarkedUp)
  served.push(site)
  return site
})

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, "Z")

/** Valid arguments for every tool, for `customerId`. */
const validArgs = (customerId: string, page: string): Record<string, Record<string, unknown>> => ({
  run_research: { customerId, topic: "Project management tools for agencies" },
  run_content_creation: { customerId, type: "blog", topic: "Pricing pages that convert" },
  ask_cmo: { customerId, question: "What should we post next week?" },
  schedule_content: { customerId, platform: "x", body: "Launching soon", scheduledAt: inAnHour() },
  publish_to_social: { customerId, platform: "x", body: "We are live" },
  generate_lead_magnet: { customerId, topic: "Onboarding checklists", format: "checklist", audience: "SaaS founders" },
  ai_seo_audit: { customerId, url: page },
  cro_audit: { customerId, url: page },
  query_ga4: { customerId, period: "last_30_days" },
  track_revenue: { customerId, amount: 49.9, currency: "USD" },
  check_ai_visibility: { customerId, url: page },
  analyze_brand_url: { customerId, url: page }
})

/** One bad argument for every tool: the field the error must name. */
const badArgs = (customerId: string): Record<string, readonly [Record<string, unknown>, string]> => ({
  run_research: [{ customerId, topic: "" }, "topic"],
  run_content_creation: [{ customerId, type: "video", topic: "x" }, "type"],
  ask_cmo: [{ customerId }, "question"],
  schedule_content: [{ customerId, platform: "x", body: "Later", scheduledAt: "tomorrow" }, "scheduledAt"],
  publish_to_social: [{ customerId, platform: "myspace", body: "Hi" }, "platform"],
  generate_lead_magnet: [{ customerId, topic: "Guides", format: "video" }, "format"],
  ai_seo_audit: [{ customerId, url: "ftp://example.com/" }, "url"],
  cro_audit: [{ customerId, url: "not a url" }, "url"],
  query_ga4: [{ customerId, period: "yesterday" }, "period"],
  track_revenue: [{ customerId, amount: -5, currency: "USD" }, "amount"],
  check_ai_visibility: [{ customerId, url: "javascript:alert(1)" }, "url"],
  analyze_brand_url: [{ customerId, url: 42 }, "url"]
})

layer(testApp({ trustProxy: true, publishPollIntervalMs: 50, chromiumPath: undefined }), { timeout: 120_000 })(
  "the twelve MCP tools",
  (it) => {
    it.effect("both transports list all twelve tools, each described, with its annotations", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* provision()
        for (const client of [yield* sseClient(url, owner.apiKey), yield* httpClient(url, owner.apiKey)]) {
          const listed = yield* Effect.promise(() => client.listTools())
          assert.deepStrictEqual(listed.tools.map((t) => t.name), twelve)
          for (const tool of listed.tools) {
            assert.include(tool.inputSchema.required as Array<string>, "customerId")
            assert.isBoolean(tool.annotations?.readOnlyHint)
          }
          const revenue = listed.tools.find((t) => t.name === "track_revenue")!
          assert.sameMembers(Object.keys(revenue.inputSchema.properties!), [
            "customerId",
            "amount",
            "currency",
            "contentId",
            "link",
            "campaign"
          ])
          // The publish tools take the REST publish request's fields, and the piece of the queue to post instead of a new one.
          const publish = listed.tools.find((t) => t.name === "publish_to_social")!
          assert.sameMembers(Object.keys(publish.inputSchema.properties!), [
            "customerId",
            "platform",
            "body",
            "media",
            "scheduledAt",
            "spend",
            "contentId"
          ])
          assert.strictEqual((publish.inputSchema.properties as any).media.maxItems, 20)
        }
      }))

    it.effect("SSE: run_content_creation stores a piece; ask_cmo answers text from the brand profile, reads figures, creates nothing", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* provision()
        const confirmed = yield* call("POST", `/api/onboard/${owner.customerId}/confirm-profile`, {
          headers: bearer(owner.apiKey),
          body: { brandName: "Northwind Coffee", audience: ["home baristas"], products: ["Espresso beans"] }
        })
        assert.strictEqual(confirmed.status, 200, confirmed.text)
        const client = yield* sseClient(url, owner.apiKey)

        const created = yield* ok(client, "run_content_creation", validArgs(owner.customerId, "").run_content_creation)
        const piece = yield* get(owner, `/api/content/{c}/${created.data.id}`)
        assert.strictEqual(piece.status, 200, piece.text)
        assert.strictEqual(piece.json.status, "pending_approval")
        assert.strictEqual(piece.json.agentId, "mcp")

        const answer = yield* ok(client, "ask_cmo", {
          customerId: owner.customerId,
          question: "What should we post next week?"
        })
        assert.isString(answer.data.answer)
        assert.isAbove(answer.data.answer.length, 40)
        // Grounded in the brand profile (its audience).
        assert.include(answer.data.answer, "home baristas")
        // Post ideas for the brand itself: never a pitch of the brand to its own team.
        assert.include(answer.data.answer, "ideas for Northwind Coffee")
        assert.notMatch(answer.data.answer, /(?:see how|ask) Northwind Coffee/i)
        assert.deepStrictEqual(answer.data.toolCalls, [])
        assert.include(answer.text, answer.data.answer)

        // A read-only tool named in the question is called; the result goes back to the model.
        const figures = yield* ok(client, "ask_cmo", {
          customerId: owner.customerId,
          question: `Use query_ga4 {"customerId":"${owner.customerId}","period":"last_30_days"} and tell me how we did`
        })
        assert.strictEqual(figures.data.rounds, 2)
        assert.strictEqual(figures.data.toolCalls[0].name, "query_ga4")
        assert.strictEqual(figures.data.toolCalls[0].result.data.source, "herald")
        // Told in words from the tool's figures, not the raw result.
        assert.match(figures.data.answer, /^In the last 30 days Northwind Coffee created \d+ pieces?/)
        // A tool that changes things is not offered: naming it writes nothing.
        const asked = yield* ok(client, "ask_cmo", {
          customerId: owner.customerId,
          question: `Please run_content_creation {"customerId":"${owner.customerId}","type":"blog","topic":"Sneaky"}`
        })
        assert.deepStrictEqual(asked.data.toolCalls, [])
        const list = yield* get(owner, "/api/content/{c}")
        assert.deepStrictEqual(list.json.content.map((p: any) => p.id), [created.data.id])
      }))

    it.effect("Streamable HTTP: run_research and generate_lead_magnet start runs, answered with their outcome when they end in time", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* provision()
        const client = yield* httpClient(url, owner.apiKey)

        // Without competitors the research run has nothing to wait for: it ends within the call.
        const research = yield* ok(client, "run_research", validArgs(owner.customerId, "").run_research)
        assert.match(research.data.runId, /^run_/)
        assert.strictEqual(research.data.workflow, "competitor-research")
        assert.strictEqual(research.data.status, "succeeded", research.text)
        assert.isTrue(research.data.finished)
        assert.isObject(research.data.output)
        assert.include(research.text, "finished: succeeded")

        // With competitors it writes a competitor brief, a report: nothing waits for approval, the brief comes with the answer.
        const compared = yield* ok(client, "run_research", {
          customerId: owner.customerId,
          topic: "Agency tools",
          competitors: ["Asana", "Trello"]
        })
        assert.strictEqual(compared.data.status, "succeeded", compared.text)
        assert.isTrue(compared.data.finished)
        const brief = compared.data.report
        assert.strictEqual(brief.reportId, compared.data.output.reportId)
        assert.strictEqual(brief.kind, "competitor-brief")
        assert.strictEqual(brief.title, "Competitor brief: Asana and Trello")
        assert.strictEqual(brief.url, `/api/reports/${owner.customerId}/${brief.reportId}`)
        assert.include(brief.body, "Competitor watched: Trello")
        assert.include(compared.text, `It wrote the report "Competitor brief: Asana and Trello" (${brief.url})`)
        assert.include(compared.text, brief.body)
        // And as a resource link to the same report, for clients that follow links.
        const { config } = yield* TestServer
        assert.deepStrictEqual(
          compared.content.filter((c) => c.type === "resource_link").map((c) => [c.uri, c.title]),
          [[
            new URL(brief.url, config.baseUrl).toString(),
            brief.title
          ]]
        )
        const stored = yield* get(owner, `/api/reports/{c}/${brief.reportId}`)
        assert.strictEqual(stored.status, 200, stored.text)
        assert.deepStrictEqual([stored.json.body, stored.json.runId], [brief.body, compared.data.runId])
        assert.isUndefined(research.data.report)

        const magnet = yield* ok(client, "generate_lead_magnet", validArgs(owner.customerId, "").generate_lead_magnet)
        assert.strictEqual(magnet.data.workflow, "lead-magnet")
        assert.strictEqual(magnet.data.status, "suspended", magnet.text)

        const runs = yield* get(owner, "/api/runs/{c}")
        assert.strictEqual(runs.status, 200, runs.text)
        assert.sameMembers(runs.json.runs.map((r: any) => r.runId), [
          research.data.runId,
          compared.data.runId,
          magnet.data.runId
        ])
        const detail = yield* get(owner, `/api/runs/{c}/${magnet.data.runId}`)
        assert.strictEqual(detail.json.status, "suspended")
        // The lead magnet's pieces wait in the content queue, written for the run; the brief is not there.
        const waiting = (yield* get(owner, "/api/content/{c}?status=pending_approval")).json.content
        assert.deepStrictEqual(waiting.filter((p: any) => p.runId === compared.data.runId), [])
        const pieces = waiting.filter((p: any) => p.runId === magnet.data.runId)
        assert.sameMembers(pieces.map((p: any) => p.type), ["blog", "email"])
        assert.include(pieces.find((p: any) => p.type === "blog").metadata.topic, "Onboarding checklists")

        // With autonomy 4 for the workflow its pieces are approved and the run ends within the call.
        const set = yield* call("PUT", `/api/settings/${owner.customerId}/autonomy`, {
          headers: bearer(owner.apiKey),
          body: { skills: { "lead-magnet": 4 } }
        })
        assert.strictEqual(set.status, 200, set.text)
        const done = yield* ok(client, "generate_lead_magnet", { customerId: owner.customerId, topic: "Pricing" })
        assert.strictEqual(done.data.status, "succeeded", done.text)
        assert.isArray(done.data.output.steps["write-lead-magnet"].detail.pieces)
      }))

    it.effect("schedule_content and publish_to_social go through the publisher; its refusals are tool errors with their codes", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* provision()
        const client = yield* sseClient(url, owner.apiKey)
        yield* refused(
          client,
          "publish_to_social",
          { customerId: owner.customerId, platform: "x", body: "Too early" },
          "E_PLATFORM_NOT_CONNECTED"
        )
        yield* connectSandbox(owner, "x")

        const when = inAnHour()
        const scheduled = yield* ok(client, "schedule_content", {
          customerId: owner.customerId,
          platform: "x",
          body: "Launching soon",
          scheduledAt: when
        })
        const queued = yield* get(owner, `/api/content/{c}/${scheduled.data.id}`)
        assert.strictEqual(queued.json.status, "approved")
        assert.strictEqual(Date.parse(queued.json.scheduledAt), Date.parse(when))
        assert.strictEqual(queued.json.agentId, "mcp")

        const now = yield* ok(client, "publish_to_social", {
          customerId: owner.customerId,
          platform: "x",
          body: "We are live"
        })
        const published = yield* eventually(
          Effect.map(
            get(owner, `/api/content/{c}/${now.data.id}`),
            (res) => res.json.status === "published" ? res.json : undefined
          )
        )
        assert.isString(published.publishedUrl)
        assert.strictEqual(published.body, "We are live")

        const tooLong = yield* refused(client, "publish_to_social", {
          customerId: owner.customerId,
          platform: "x",
          body: "x".repeat(281)
        }, "E_VALIDATION")
        assert.include(tooLong, "body")
        yield* refused(client, "schedule_content", {
          customerId: owner.customerId,
          platform: "x",
          body: "Back then",
          scheduledAt: "2020-01-01T00:00:00Z"
        }, "E_VALIDATION")
        const cap = yield* call("PUT", `/api/settings/${owner.customerId}/budget`, {
          headers: bearer(owner.apiKey),
          body: { channels: { ads: 10 } }
        })
        assert.strictEqual(cap.status, 200, cap.text)
        yield* refused(client, "publish_to_social", {
          customerId: owner.customerId,
          platform: "x",
          body: "Sponsored",
          spend: 25
        }, "E_BUDGET_EXCEEDED")
        // Nothing was queued by the refusals.
        const all = yield* get(owner, "/api/content/{c}")
        assert.sameMembers(
          all.json.content.map((p: any) => p.id),
          [scheduled.data.id, now.data.id]
        )
      }))

    it.effect("schedule_content with contentId posts that piece of the queue: approved with the text given, scheduled, no second piece", () =>
      Effect.gen(function*() {
        const { url, sql } = yield* TestServer
        const owner = yield* provision()
        const other = yield* provision()
        const client = yield* httpClient(url, owner.apiKey)
        yield* connectSandbox(owner, "linkedin")
        const drafted = yield* ok(client, "run_content_creation", {
          customerId: owner.customerId,
          type: "social",
          platform: "linkedin",
          topic: "Our new roast"
        })
        assert.strictEqual(drafted.data.status, "pending_approval")
        const args = (extra: Record<string, unknown>) => ({
          customerId: owner.customerId,
          contentId: drafted.data.id,
          platform: "linkedin",
          body: "Our new roast is here.",
          scheduledAt: inAnHour(),
          ...extra
        })

        // Refusals leave the piece as it was: spend (a new post's), a past time, a viewer, another customer's piece.
        const spend = yield* refused(client, "schedule_content", args({ spend: 5 }), "E_VALIDATION")
        assert.include(spend, "spend")
        yield* refused(client, "schedule_content", args({ scheduledAt: "2020-01-01T00:00:00Z" }), "E_VALIDATION")
        const viewer = yield* invite(owner, "viewer")
        yield* refused(yield* httpClient(url, viewer.apiKey), "schedule_content", args({}), "E_FORBIDDEN")
        const theirs = yield* Effect.promise(() =>
          fetch(`${url}/api/content/${other.customerId}`, {
            method: "POST",
            headers: { ...bearer(other.apiKey), "content-type": "application/json" },
            body: JSON.stringify({ type: "social", platform: "linkedin", title: "Theirs", body: "Theirs" })
          }).then((r) => r.json() as Promise<any>)
        )
        yield* refused(client, "schedule_content", args({ contentId: theirs.id }), "E_NOT_FOUND")
        const untouched = yield* get(owner, `/api/content/{c}/${drafted.data.id}`)
        assert.deepStrictEqual([untouched.json.status, untouched.json.body, untouched.json.scheduledAt], [
          "pending_approval",
          drafted.data.body,
          null
        ])
        assert.strictEqual((yield* get(other, `/api/content/{c}/${theirs.id}`)).json.status, "draft")

        const when = inAnHour()
        const scheduled = yield* ok(client, "schedule_content", args({ scheduledAt: when }))
        assert.strictEqual(scheduled.data.id, drafted.data.id)
        assert.include(scheduled.text, `"${drafted.data.title}"`)
        const piece = yield* get(owner, `/api/content/{c}/${drafted.data.id}`)
        assert.deepStrictEqual([piece.json.status, piece.json.body], ["approved", "Our new roast is here."])
        assert.strictEqual(Date.parse(piece.json.scheduledAt), Date.parse(when))
        assert.deepStrictEqual((yield* get(owner, "/api/content/{c}")).json.content.map((p: any) => p.id), [
          drafted.data.id
        ])
        const jobs = yield* sql<
          { status: string }
        >`SELECT status FROM publish_jobs WHERE content_id = ${drafted.data.id}`
          .pipe(Effect.orDie)
        assert.deepStrictEqual(jobs.map((j) => j.status), ["queued"])

        // publish_to_social with a piece already approved (in the dashboard, say) and its text as it is: out now, no copy.
        const second = yield* ok(client, "run_content_creation", {
          customerId: owner.customerId,
          type: "social",
          platform: "linkedin",
          topic: "Tasting notes"
        })
        const approved = yield* call("POST", `/api/content/${owner.customerId}/${second.data.id}/review`, {
          headers: bearer(owner.apiKey),
          body: { action: "approve" }
        })
        assert.strictEqual(approved.status, 200, approved.text)
        const now = yield* ok(client, "publish_to_social", {
          customerId: owner.customerId,
          contentId: second.data.id,
          platform: "linkedin",
          body: second.data.body
        })
        assert.strictEqual(now.data.id, second.data.id)
        const published = yield* eventually(
          Effect.map(
            get(owner, `/api/content/{c}/${second.data.id}`),
            (res) => res.json.status === "published" ? res.json : undefined
          )
        )
        assert.strictEqual(published.body, second.data.body)
        assert.sameMembers((yield* get(owner, "/api/content/{c}")).json.content.map((p: any) => p.id), [
          drafted.data.id,
          second.data.id
        ])
      }))

    it.effect("the audits store scans; analyze_brand_url answers what auto-extract answers; track_revenue shows in analytics", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* provision()
        const site = yield* wellMarkedUp
        const page = `${site.origin}/`
        const client = yield* httpClient(url, owner.apiKey)

        const seo = yield* ok(client, "ai_seo_audit", { customerId: owner.customerId, url: page })
        assert.strictEqual(seo.data.status, "done", seo.text)
        const stored = yield* get(owner, `/api/scan/{c}/${seo.data.scanId}`)
        assert.strictEqual(stored.status, 200, stored.text)
        assert.deepStrictEqual(stored.json, seo.data)
        assert.sameMembers([...new Set(seo.data.checklist.map((i: any) => i.category))], ["seo", "geo", "cro"])

        const cro = yield* ok(client, "cro_audit", { customerId: owner.customerId, url: page })
        assert.strictEqual(cro.data.croScore, seo.data.croScore)
        assert.isNotEmpty(cro.data.checklist)
        assert.isTrue(cro.data.checklist.every((i: any) => i.category === "cro"))
        assert.notProperty(cro.data, "seoScore")
        // Each category audit's summary counts the checks of its own category that are left to fix.
        const toFix = (items: ReadonlyArray<any>) =>
          `${items.filter((i) => i.status !== "pass").length} of ${items.length} checks to fix`
        assert.include(cro.text, `CRO score ${cro.data.croScore}; ${toFix(cro.data.checklist)}`)

        const geo = yield* ok(client, "check_ai_visibility", { customerId: owner.customerId, url: page })
        assert.strictEqual(geo.data.geoScore, seo.data.geoScore)
        assert.strictEqual(geo.data.citabilityGrade, seo.data.citabilityGrade)
        assert.isTrue(geo.data.checklist.every((i: any) => i.category === "geo"))
        assert.isString(geo.data.llmsTxt)
        assert.include(
          geo.text,
          `GEO score ${geo.data.geoScore}, citability grade ${geo.data.citabilityGrade}; ${toFix(geo.data.checklist)}`
        )

        const scans = yield* get(owner, "/api/scan/{c}")
        assert.sameMembers(scans.json.scans.map((s: any) => s.scanId), [
          seo.data.scanId,
          cro.data.scanId,
          geo.data.scanId
        ])
        assert.isTrue(scans.json.scans.every((s: any) => s.status === "done"))

        const brand = yield* ok(client, "analyze_brand_url", { customerId: owner.customerId, url: page })
        const rest = yield* call("POST", `/api/onboard/${owner.customerId}/auto-extract`, {
          headers: bearer(owner.apiKey),
          body: { url: page }
        })
        assert.strictEqual(rest.status, 200, rest.text)
        assert.deepStrictEqual(brand.data, rest.json)
        assert.isString(brand.data.brandName)
        const closed = yield* Effect.promise(freePort)
        yield* refused(client, "analyze_brand_url", {
          customerId: owner.customerId,
          url: `http://127.0.0.1:${closed}/`
        }, "E_FETCH_FAILED")
        // An unreachable page is a stored failed scan, as over REST (200 with status failed), not a tool error.
        const unreachable = yield* ok(client, "cro_audit", {
          customerId: owner.customerId,
          url: `http://127.0.0.1:${closed}/`
        })
        assert.strictEqual(unreachable.data.status, "failed")
        assert.include(unreachable.text, "failed")
        assert.strictEqual((yield* get(owner, `/api/scan/{c}/${unreachable.data.scanId}`)).json.status, "failed")

        const before = yield* get(owner, "/api/analytics/{c}")
        assert.strictEqual(before.json.totals.revenue, 0)
        const revenue = yield* ok(client, "track_revenue", {
          customerId: owner.customerId,
          amount: 49.9,
          currency: "usd",
          campaign: "spring"
        })
        assert.strictEqual(revenue.data.currency, "USD")
        assert.strictEqual(revenue.data.campaign, "spring")
        const after = yield* get(owner, "/api/analytics/{c}")
        assert.strictEqual(after.json.totals.revenue, 49.9)
        // Each error is said once: its code, then its message naming what is wrong.
        assert.strictEqual(
          yield* refused(client, "track_revenue", {
            customerId: owner.customerId,
            amount: 10,
            currency: "USD",
            contentId: "cnt_missing"
          }, "E_NOT_FOUND"),
          "E_NOT_FOUND: Content not found"
        )
        assert.strictEqual(
          yield* refused(client, "track_revenue", {
            customerId: owner.customerId,
            amount: 10,
            currency: "USD",
            link: "nope"
          }, "E_NOT_FOUND"),
          "E_NOT_FOUND: Tracked link not found"
        )
        for (const wrong of [{ currency: "XYZ" }, { amount: 0 }, { amount: 1.0000001 }, { channel: "web" }]) {
          const text = yield* refused(client, "track_revenue", {
            customerId: owner.customerId,
            amount: 10,
            currency: "USD",
            ...wrong
          }, "E_VALIDATION")
          assert.strictEqual(text.split("arguments.").length, 2, text)
          assert.notInclude(text, "\n", text)
        }
        assert.strictEqual((yield* get(owner, "/api/analytics/{c}")).json.totals.revenue, 49.9)
      }))

    it.effect("another customer's id is a tool error for every tool over both transports, and nothing is created for either", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const b = yield* provision()
        const site = yield* wellMarkedUp
        const callers: Array<Provisioned> = []
        // One caller per transport: each customer's MCP limit (30 POSTs a minute) covers its twelve calls.
        for (const connect of [sseClient, httpClient]) {
          const a = yield* provision()
          callers.push(a)
          const client = yield* connect(url, a.apiKey)
          for (const [name, args] of Object.entries(validArgs(b.customerId, `${site.origin}/`))) {
            const text = yield* refused(client, name, args, "E_FORBIDDEN")
            assert.include(text, "customerId")
          }
        }
        for (const tenant of [...callers, b]) {
          assert.deepStrictEqual((yield* get(tenant, "/api/content/{c}")).json.content, [])
          assert.deepStrictEqual((yield* get(tenant, "/api/runs/{c}")).json.runs, [])
          assert.deepStrictEqual((yield* get(tenant, "/api/scan/{c}")).json.scans, [])
          assert.strictEqual((yield* get(tenant, "/api/analytics/{c}")).json.totals.revenue, 0)
        }
      }))

    it.effect("a bad argument is a tool error naming it, for every tool over both transports", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        for (const connect of [sseClient, httpClient]) {
          const owner = yield* provision()
          const client = yield* connect(url, owner.apiKey)
          for (const [name, [args, field]] of Object.entries(badArgs(owner.customerId))) {
            const text = yield* refused(client, name, args, "E_VALIDATION")
            assert.include(text, field, name)
          }
          assert.deepStrictEqual((yield* get(owner, "/api/content/{c}")).json.content, [])
          assert.deepStrictEqual((yield* get(owner, "/api/runs/{c}")).json.runs, [])
        }
      }))
  }
)

const AppWithModel = appWithModel(
  { trustProxy: true, chromiumPath: undefined },
  { kind: "text", chunks: ["Post the ", "espresso guide first."], usage: { prompt: 100, completion: 50 } }
)

layer(AppWithModel, { timeout: 120_000, excludeTestServices: true })("ask_cmo on a priced model", (it) => {
  it.effect("sends the brand profile and only read-only tools, charges the customer's model budget, and refuses past its cap", () =>
    Effect.gen(function*() {
      const { url, sql } = yield* TestServer
      const model = yield* ModelServer
      const owner = yield* provision()
      const confirmed = yield* call("POST", `/api/onboard/${owner.customerId}/confirm-profile`, {
        headers: bearer(owner.apiKey),
        body: { brandName: "Northwind Coffee", voice: ["warm"] }
      })
      assert.strictEqual(confirmed.status, 200, confirmed.text)
      const client = yield* httpClient(url, owner.apiKey)
      const answer = yield* ok(client, "ask_cmo", { customerId: owner.customerId, question: "What first?" })
      assert.strictEqual(answer.data.answer, "Post the espresso guide first.")
      assert.strictEqual(model.requests.length, 1)
      const sent = model.requests[0]!
      assert.sameMembers((sent.tools ?? []).map((t: any) => t.function.name), ["query_ga4"])
      const system = sent.messages.find((m: any) => m.role === "system").content as string
      assert.include(system, "Northwind Coffee")
      assert.include(system, "Autonomy: level 2")
      assert.deepStrictEqual(sent.messages.at(-1), { role: "user", content: "What first?" })
      const spent = yield* sql<
        { amount: string }
      >`SELECT amount::text AS amount FROM spend_ledger WHERE customer_id = ${owner.customerId} AND channel = 'model'`
      // 100 * 10 / 1e6 + 50 * 10 / 1e6
      assert.deepStrictEqual(spent.map((r) => Number(r.amount)), [0.0015])

      const cap = yield* call("PUT", `/api/settings/${owner.customerId}/budget`, {
        headers: bearer(owner.apiKey),
        body: { channels: { model: 0.001 } }
      })
      assert.strictEqual(cap.status, 200, cap.text)
      const over = yield* refused(
        client,
        "ask_cmo",
        { customerId: owner.customerId, question: "And then?" },
        "E_BUDGET_EXCEEDED"
      )
      assert.include(over, "budget")
      assert.strictEqual(model.requests.length, 1)
    }))
})
