import { assert, layer } from "@effect/vitest"
import { Context, Effect } from "effect"
import { RunId } from "../src/domain/Ids.ts"
import { Reports } from "../src/features/reports/Reports.ts"
import { chat, deltaText, names } from "./support/chat.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { httpClient } from "./support/mcp-clients.ts"
import { bearer, type Tenant, tenant } from "./support/processes.ts"

/** The app's own Reports service: what a workflow step calls to record a report. */
const ReportsOfApp = Effect.map(TestServer, (server) => Context.get(server.services, Reports))

const brewline = {
  brandName: "Brewline Coffee Roasters",
  audience: ["home coffee brewers"],
  products: ["coffee subscriptions"],
  sourceUrl: "https://brewline.example/"
}

const auditBody = (host: string, finding: string) =>
  [
    `# SEO audit of ${host}`,
    "Prepared by Herald for Brewline Coffee Roasters.",
    "## Findings",
    `- Site audited: https://${host}/`,
    "- SEO score: 62/100",
    `- Fix (SEO): ${finding}`,
    "- Improve (GEO): No llms.txt. Publish one so assistants can cite the site.",
    "## Recommendations",
    "- Start with the fix above, the heaviest first: each one says what to change."
  ].join("\n\n")

/** A customer with a confirmed profile and an older and a newer SEO audit, a competitor brief and a performance report. */
const withReports = (email: string) =>
  Effect.gen(function*() {
    const t = yield* tenant({ email })
    const confirmed = yield* call("POST", `/api/onboard/${t.id}/confirm-profile`, { headers: t.h, body: brewline })
    assert.strictEqual(confirmed.status, 200, confirmed.text)
    const reports = yield* ReportsOfApp
    const record = (
      kind: "seo-audit" | "competitor-brief" | "performance-report",
      title: string,
      body: string,
      figures: any
    ) =>
      // A few milliseconds apart, so newest-first is decided by the time each was stored (PGlite's clock
      // counts milliseconds; two reports of the same millisecond would be ordered by their random ids).
      reports.record({ customerId: t.id, kind, title, body, figures, runId: RunId.make(`run_${kind}`), workflow: kind })
        .pipe(Effect.tap(() => Effect.sleep("3 millis")))
    const oldAudit = yield* record(
      "seo-audit",
      "SEO audit of old.brewline.example",
      auditBody("old.brewline.example", "Broken canonical tag."),
      []
    )
    const audit = yield* record(
      "seo-audit",
      "SEO audit of brewline.example",
      auditBody("brewline.example", "Missing meta description. Add one of 120 to 160 characters."),
      [
        { label: "SEO score", value: 62 },
        { label: "Checks to fix", value: 3 }
      ]
    )
    const brief = yield* record(
      "competitor-brief",
      "Competitor brief: Rival Roasters",
      "# Competitor brief: Rival Roasters\n\n## Findings\n\n- Competitor watched: Rival Roasters\n\n- Rival Roasters leads on subscription pricing: the first bag is free.\n\n- Their brewing guides rank above ours.",
      [{ label: "Competitors watched", value: 1 }]
    )
    const performance = yield* record(
      "performance-report",
      "Performance report, last 7 days to 26 November 2026",
      "# Performance report\n\n## Findings\n\n- Total over the last 7 days: 4 posts published, 1,200 impressions, 80 engagements, 12 clicks, €36.00 revenue",
      [{ label: "Posts published", value: 4 }, { label: "Revenue", value: 36, currency: "EUR" }]
    )
    return { t, oldAudit, audit, brief, performance }
  })

const urlOf = (t: Tenant, reportId: string) => `/api/reports/${t.id}/${reportId}`

// Proxy headers trusted: each provisioning comes from its own address, under the admin limit.
layer(testApp({ trustProxy: true }), { timeout: 90_000, excludeTestServices: true })(
  "reports read back by the agent",
  (it) => {
    it.effect("MCP ask_cmo answers about stored reports from them, with the report in its data, one customer's only", () =>
      Effect.gen(function*() {
        const { config: { baseUrl }, url } = yield* TestServer
        const a = yield* withReports("reports-agent-a@x.co")
        const b = yield* withReports("reports-agent-b@x.co")
        const empty = yield* tenant({ email: "reports-agent-none@x.co" })
        yield* call("POST", `/api/onboard/${empty.id}/confirm-profile`, { headers: empty.h, body: brewline })
        const client = yield* httpClient(url, a.t.key)
        const ask = (t: Tenant, question: string, via = client) =>
          Effect.promise(async () =>
            (await via.callTool({ name: "ask_cmo", arguments: { customerId: t.id, question } })) as any
          )

        // The latest SEO audit, read: its title, date, key figures, findings and url; the older one is not it.
        const audit = yield* ask(a.t, "What did our last SEO audit find?")
        assert.notStrictEqual(audit.isError, true)
        const answer = audit.structuredContent.answer as string
        assert.include(answer, `"${a.audit.title}"`)
        assert.include(answer, urlOf(a.t, a.audit.reportId))
        assert.include(answer, "SEO score 62, Checks to fix 3")
        assert.include(answer, "Missing meta description")
        assert.notInclude(answer, a.oldAudit.title)
        assert.include(audit.content[0].text, urlOf(a.t, a.audit.reportId))
        assert.deepStrictEqual(audit.structuredContent.toolCalls, [])
        const report = audit.structuredContent.report
        assert.deepStrictEqual([report.reportId, report.title, report.url, report.kind], [
          a.audit.reportId,
          a.audit.title,
          urlOf(a.t, a.audit.reportId),
          "seo-audit"
        ])
        assert.strictEqual(report.body, a.audit.body)
        assert.deepStrictEqual(audit.structuredContent.reports.map((r: any) => r.reportId), [a.audit.reportId])
        // MCP clients also get the report as a resource link: its absolute url on this server.
        const links = audit.content.filter((c: any) => c.type === "resource_link")
        assert.deepStrictEqual(links.map((l: any) => [l.uri, l.name, l.title, l.mimeType]), [[
          new URL(urlOf(a.t, a.audit.reportId), baseUrl).toString(),
          a.audit.reportId,
          a.audit.title,
          "application/json"
        ]])
        // The url answers the same report.
        const read = yield* call("GET", report.url, { headers: a.t.h })
        assert.strictEqual(read.json.title, a.audit.title)

        // What the brief says about one subject.
        const pricing = yield* ask(a.t, "What did the competitor brief say about pricing?")
        assert.include(pricing.structuredContent.answer, `"${a.brief.title}"`)
        assert.include(
          pricing.structuredContent.answer,
          "Rival Roasters leads on subscription pricing: the first bag is free."
        )
        assert.notInclude(pricing.structuredContent.answer, "brewing guides")
        assert.strictEqual(pricing.structuredContent.report.reportId, a.brief.reportId)

        // The performance report's money is in its currency.
        const performance = yield* ask(a.t, "Show me the latest performance report")
        assert.include(performance.structuredContent.answer, `"${a.performance.title}"`)
        assert.include(performance.structuredContent.answer, "Revenue €36.00")
        assert.include(performance.structuredContent.answer, urlOf(a.t, a.performance.reportId))

        // A list: every one of the customer's reports, newest first, each with its url.
        const listed = yield* ask(a.t, "List our reports")
        const mine = [a.performance, a.brief, a.audit, a.oldAudit]
        assert.deepStrictEqual(
          listed.structuredContent.reports.map((r: any) => [r.reportId, r.url]),
          mine.map((r) => [
            r.reportId,
            urlOf(a.t, r.reportId)
          ])
        )
        for (const r of mine) {
          assert.include(listed.structuredContent.answer, `"${r.title}"`)
          assert.include(listed.structuredContent.answer, urlOf(a.t, r.reportId))
        }
        assert.isUndefined(listed.structuredContent.report)
        assert.deepStrictEqual(
          listed.content.filter((c: any) => c.type === "resource_link").map((l: any) => l.name),
          mine.map((r) => r.reportId)
        )

        if (process.env["SHOW_CHAT"] !== undefined) {
          console.log([audit, pricing, performance, listed].map((r) => r.structuredContent.answer).join("\n----\n"))
        }
        // Another customer's reports never come back, in the answer or the data.
        for (const result of [audit, pricing, performance, listed]) {
          const whole = JSON.stringify(result)
          for (const r of [b.audit, b.oldAudit, b.brief, b.performance]) assert.notInclude(whole, r.reportId)
          assert.notInclude(whole, b.t.id)
        }
        // Nor may one customer's key ask about another's.
        const foreign = yield* ask(b.t, "List our reports")
        assert.strictEqual(foreign.isError, true)
        assert.strictEqual(foreign.structuredContent.code, "E_FORBIDDEN")
        const own = yield* ask(b.t, "List our reports", yield* httpClient(url, b.t.key))
        assert.deepStrictEqual(own.structuredContent.reports.map((r: any) => r.reportId), [
          b.performance.reportId,
          b.brief.reportId,
          b.audit.reportId,
          b.oldAudit.reportId
        ])

        // With no report stored, the answer says so and how to get one; nothing is made up.
        const emptyClient = yield* httpClient(url, empty.key)
        const none = yield* ask(empty, "What did our last SEO audit find?", emptyClient)
        assert.match(
          none.structuredContent.answer,
          /^No SEO audit is stored for Brewline Coffee Roasters yet, so I have nothing to read from\. To get an SEO audit, ask me to audit your site/
        )
        assert.deepStrictEqual(none.structuredContent.reports, [])
        assert.deepStrictEqual(none.content.map((c: any) => c.type), ["text"])
        assert.isUndefined(none.structuredContent.report)
        const noList = yield* ask(empty, "Which reports do we have?", emptyClient)
        assert.match(noList.structuredContent.answer, /^No report is stored for Brewline Coffee Roasters yet/)
        // A performance question reads the figures, and points at the latest performance report when there is one.
        const figures = yield* ask(a.t, "How are we doing this month?")
        const [ga4] = figures.structuredContent.toolCalls
        assert.strictEqual(ga4.name, "query_ga4")
        assert.deepStrictEqual(ga4.result.data.latestReport, {
          reportId: a.performance.reportId,
          title: a.performance.title,
          createdAt: a.performance.createdAt,
          url: urlOf(a.t, a.performance.reportId)
        })
        assert.include(
          figures.structuredContent.answer,
          `"${a.performance.title}", is at ${urlOf(a.t, a.performance.reportId)}.`
        )
        const noFigures = yield* ask(empty, "How are we doing this month?", emptyClient)
        assert.isUndefined(noFigures.structuredContent.toolCalls[0].result.data.latestReport)
        assert.notInclude(noFigures.structuredContent.answer, "performance report")
        // Asking for a new audit is not reading a stored one.
        const run = yield* ask(empty, "Can you run an SEO audit?", emptyClient)
        assert.isUndefined(run.structuredContent.reports)
      }))

    it.effect("resource links go to clients of 2025-06-18 on; an older session gets the text and data alone", () =>
      Effect.gen(function*() {
        const a = yield* withReports("reports-agent-versions@x.co")
        const accept = { accept: "application/json, text/event-stream" }
        const kinds = (version: string) =>
          Effect.gen(function*() {
            const init = yield* call("POST", "/mcp", {
              headers: bearer(a.t.key, accept),
              body: {
                jsonrpc: "2.0",
                id: 1,
                method: "initialize",
                params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } }
              }
            })
            const res = yield* call("POST", "/mcp", {
              headers: bearer(a.t.key, {
                ...accept,
                "mcp-session-id": init.headers.get("mcp-session-id")!,
                "mcp-protocol-version": version
              }),
              body: {
                jsonrpc: "2.0",
                id: 2,
                method: "tools/call",
                params: {
                  name: "ask_cmo",
                  arguments: { customerId: a.t.id, question: "What did our last SEO audit find?" }
                }
              }
            })
            const result = JSON.parse(/data: (.*)/.exec(res.text)?.[1] ?? res.text).result
            assert.strictEqual(result.structuredContent.report.reportId, a.audit.reportId, version)
            return result.content.map((c: any) => c.type)
          })
        assert.deepStrictEqual(yield* kinds("2025-03-26"), ["text"])
        assert.deepStrictEqual(yield* kinds("2025-06-18"), ["text", "resource_link"])
      }))

    it.effect("the chat answers about stored reports the same way, one customer's only, and honestly when there are none", () =>
      Effect.gen(function*() {
        const a = yield* withReports("reports-chat-a@x.co")
        const b = yield* withReports("reports-chat-b@x.co")
        const reply = yield* chat(a.t, { message: "What did our last SEO audit find?" })
        assert.strictEqual(reply.status, 200)
        // Answered from the stored report: no tool runs (no new audit is started).
        assert.deepStrictEqual([...new Set(names(reply))], ["thread", "delta", "done"])
        const text = deltaText(reply)
        assert.include(text, `The latest SEO audit is "${a.audit.title}"`)
        assert.include(text, urlOf(a.t, a.audit.reportId))
        assert.include(text, "Missing meta description")
        assert.notInclude(reply.raw, b.audit.reportId)
        // The answer is stored in the thread as it was streamed.
        const thread = yield* call("GET", `/api/chat/${a.t.id}/threads/${reply.events[0]!.data.threadId}`, {
          headers: a.t.h
        })
        assert.strictEqual(thread.json.messages.at(-1).content, text)

        // A follow-up in the same thread reads another report.
        const brief = deltaText(
          yield* chat(a.t, {
            message: "And what did the competitor brief say about pricing?",
            threadId: reply.events[0]!.data.threadId
          })
        )
        assert.include(brief, `"${a.brief.title}"`)
        assert.include(brief, "subscription pricing")

        const listed = yield* chat(b.t, { message: "list our reports" })
        const listText = deltaText(listed)
        for (const r of [b.performance, b.brief, b.audit, b.oldAudit]) {
          assert.include(listText, `"${r.title}"`)
          assert.include(listText, urlOf(b.t, r.reportId))
        }
        for (const r of [a.performance, a.brief, a.audit, a.oldAudit]) assert.notInclude(listed.raw, r.reportId)

        const empty = yield* tenant({ email: "reports-chat-none@x.co" })
        const none = deltaText(yield* chat(empty, { message: "Show me the latest performance report" }))
        assert.match(none, /^No performance report is stored for your brand yet/)
        assert.include(none, "run the performance-report workflow")
        assert.notInclude(none, "/api/reports/")
        if (process.env["SHOW_CHAT"] !== undefined) console.log([text, brief, listText, none].join("\n----\n"))
      }))
  }
)
