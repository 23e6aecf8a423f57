import { assert, layer } from "@effect/vitest"
import { Context, Effect } from "effect"
import { RunId } from "../src/domain/Ids.ts"
import { Reports } from "../src/features/reports/Reports.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { assertError, bearer, provision } from "./support/processes.ts"

/** The app's own Reports service: what a workflow step calls to record a report. */
const ReportsOfApp = Effect.map(TestServer, (server) => Context.get(server.services, Reports))

layer(testApp(), { timeout: 60_000, excludeTestServices: true })("reports", (it) => {
  it.effect("a recorded report is listed newest first, paged with signed cursors, read whole; never content", () =>
    Effect.gen(function*() {
      const owner = yield* provision({ email: "reports-owner@x.co" })
      const h = bearer(owner.apiKey)
      const reports = yield* ReportsOfApp
      const recorded = []
      for (const [i, kind] of (["seo-audit", "competitor-brief", "performance-report"] as const).entries()) {
        recorded.push(
          yield* reports.record({
            customerId: owner.customerId,
            kind,
            title: `Report ${i}`,
            body: `# Report ${i}`,
            runId: i === 0 ? undefined : RunId.make(`run_${i}`),
            workflow: i === 0 ? undefined : "performance-report",
            figures: [{ label: "Revenue", value: 36, currency: "EUR" }, { label: "Posts published", value: 4 }]
          })
        )
      }
      assert.match(recorded[0]!.reportId, /^rep_[0-9a-f]{32}$/)

      const first = yield* call("GET", `/api/reports/${owner.customerId}?limit=2`, { headers: h })
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual(first.json.reports.map((r: any) => r.title), ["Report 2", "Report 1"])
      assert.deepStrictEqual(Object.keys(first.json.reports[0]).sort(), [
        "createdAt",
        "kind",
        "reportId",
        "runId",
        "title",
        "workflow"
      ])
      assert.deepStrictEqual(
        [first.json.reports[0].runId, first.json.reports[0].workflow, first.json.reports[0].kind],
        ["run_2", "performance-report", "performance-report"]
      )
      const second = yield* call(
        "GET",
        `/api/reports/${owner.customerId}?limit=2&cursor=${encodeURIComponent(first.json.nextCursor)}`,
        { headers: h }
      )
      assert.deepStrictEqual(second.json.reports.map((r: any) => [r.title, r.runId, r.workflow]), [[
        "Report 0",
        null,
        null
      ]])
      assert.isNull(second.json.nextCursor)
      assertError(
        yield* call("GET", `/api/reports/${owner.customerId}?cursor=${first.json.nextCursor}x`, { headers: h }),
        400,
        "E_INVALID_CURSOR"
      )
      assertError(yield* call("GET", `/api/reports/${owner.customerId}?limit=101`, { headers: h }), 400, "E_VALIDATION")

      const whole = yield* call("GET", `/api/reports/${owner.customerId}/${recorded[1]!.reportId}`, { headers: h })
      assert.strictEqual(whole.status, 200)
      assert.strictEqual(whole.json.body, "# Report 1")
      assert.deepStrictEqual(whole.json.figures, [{ label: "Revenue", value: 36, currency: "EUR" }, {
        label: "Posts published",
        value: 4
      }])

      // Reports are not content: the queue and the approval count do not see them.
      assert.deepStrictEqual((yield* call("GET", `/api/content/${owner.customerId}`, { headers: h })).json.content, [])
    }))

  it.effect("another customer's reports are neither listed nor readable; an unknown id is 404", () =>
    Effect.gen(function*() {
      const a = yield* provision({ email: "reports-a@x.co" })
      const b = yield* provision({ email: "reports-b@x.co" })
      const theirs = yield* (yield* ReportsOfApp).record({
        customerId: a.customerId,
        kind: "seo-audit",
        title: "SEO audit of https://a.example",
        body: "…"
      })
      assertError(yield* call("GET", `/api/reports/${a.customerId}`, { headers: bearer(b.apiKey) }), 403, "E_FORBIDDEN")
      assertError(
        yield* call("GET", `/api/reports/${a.customerId}/${theirs.reportId}`, { headers: bearer(b.apiKey) }),
        403,
        "E_FORBIDDEN"
      )
      assertError(
        yield* call("GET", `/api/reports/${b.customerId}/${theirs.reportId}`, { headers: bearer(b.apiKey) }),
        404,
        "E_NOT_FOUND"
      )
      assert.deepStrictEqual((yield* call("GET", `/api/reports/${b.customerId}`, { headers: bearer(b.apiKey) })).json, {
        reports: [],
        nextCursor: null
      })
      // A cursor of A's list is refused on B's.
      yield* (yield* ReportsOfApp).record({ customerId: a.customerId, kind: "seo-audit", title: "Second", body: "…" })
      const page = yield* call("GET", `/api/reports/${a.customerId}?limit=1`, { headers: bearer(a.apiKey) })
      assertError(
        yield* call("GET", `/api/reports/${b.customerId}?cursor=${encodeURIComponent(page.json.nextCursor)}`, {
          headers: bearer(b.apiKey)
        }),
        400,
        "E_INVALID_CURSOR"
      )
    }))

  it.effect("the dashboard shows the reports section, titled as reports, money in its currency, escaped", () =>
    Effect.gen(function*() {
      const owner = yield* provision({ email: "reports-dash@x.co" })
      yield* (yield* ReportsOfApp).record({
        customerId: owner.customerId,
        kind: "performance-report",
        title: "Performance report <this week>",
        body: "…",
        figures: [{ label: "Revenue", value: 1250, currency: "EUR" }, { label: "Clicks", value: 310 }]
      })
      const page = yield* call("GET", `/api/dashboard/${owner.customerId}`, {
        headers: { ...bearer(owner.apiKey), accept: "text/html" }
      })
      assert.strictEqual(page.status, 200)
      assert.include(page.text, "Reports")
      assert.include(page.text, "Performance report &lt;this week&gt;")
      assert.include(page.text, "€1,250.00")
      assert.include(page.text, "Performance report · ")
    }))
})
