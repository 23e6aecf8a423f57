import { afterAll, assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { rateLimitDefaults } from "../src/Config.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { type Tenant, tenant } from "./support/processes.ts"
import { type Served, serveSite, sites } from "./support/scan-sites.ts"

const served: Array<Served> = []
afterAll(() => Promise.all(served.map((s) => s.close())))

const hidden = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1]

/** Connects a platform through the sandbox's consent page, as a person would. */
const connect = (t: Tenant, platform: string) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    const links = yield* call("POST", `/api/connect/${t.id}`, { headers: t.h, body: { platforms: [platform] } })
    assert.strictEqual(links.status, 200, links.text)
    const consent = yield* Effect.promise(() => fetch(links.json.connectLinks[platform], { redirect: "manual" }))
    const page = yield* Effect.promise(() => consent.text())
    const cookie = (consent.headers.get("set-cookie") ?? "").split(";")[0]!
    const allowed = yield* Effect.promise(() =>
      fetch(`${url}/connect/sandbox`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ state: hidden(page, "state")!, _csrf: hidden(page, "_csrf")!, decision: "allow" })
          .toString()
      })
    )
    assert.strictEqual(allowed.status, 303)
    assert.strictEqual((yield* call("GET", allowed.headers.get("location")!)).status, 302)
  })

const pieceOf = (t: Tenant, id: string) =>
  Effect.map(call("GET", `/api/content/${t.id}/${id}`, { headers: t.h }), (r) => r.json)

/**
 * The report a finished run names in its output: listed by GET /api/reports under the run, read whole by
 * its id, and the same one the writing step names.
 */
const reportOf = (t: Tenant, run: any) =>
  Effect.gen(function*() {
    const reportId = run.output.reportId as string
    assert.match(reportId, /^rep_[0-9a-f]{32}$/, JSON.stringify(run.output))
    assert.strictEqual(run.steps.at(-1).detail.reportId, reportId)
    const listed = yield* call("GET", `/api/reports/${t.id}`, { headers: t.h })
    assert.strictEqual(listed.status, 200, listed.text)
    const summary = (listed.json.reports as Array<any>).find((r) => r.reportId === reportId)
    assert.isDefined(summary, listed.text)
    assert.strictEqual(summary.runId, run.runId)
    const whole = yield* call("GET", `/api/reports/${t.id}/${reportId}`, { headers: t.h })
    assert.strictEqual(whole.status, 200, whole.text)
    assert.strictEqual(whole.json.title, summary.title)
    return whole.json
  })

/** Reports stay out of the content queue and of the approval count (`published` pieces the test stored aside). */
const assertNoContent = (t: Tenant, published = 0) =>
  Effect.gen(function*() {
    const content = (yield* call("GET", `/api/content/${t.id}`, { headers: t.h })).json.content as Array<any>
    assert.deepStrictEqual(content.map((p) => p.status), Array.from({ length: published }, () => "published"))
    const pending = yield* call("GET", `/api/content/${t.id}?status=pending_approval`, { headers: t.h })
    assert.deepStrictEqual(pending.json.content, [])
  })

/**
 * Polls the run until `done` says so (the engine polls its storage every 1 s at most). The status is
 * polled in the database (the API's REST limit is 60 a minute per customer), the run read once through the API.
 */
const waitForRun = (t: Tenant, runId: string, done: (run: any) => boolean, seconds = 20) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    for (let i = 0; i < seconds * 10; i++) {
      const [row] = yield* sql<{ status: string }>`SELECT status FROM workflow_runs WHERE id = ${runId}`
      if (row !== undefined && done({ status: row.status })) {
        const res = yield* call("GET", `/api/runs/${t.id}/${runId}`, { headers: t.h })
        if (done(res.json)) return res.json
      }
      yield* Effect.sleep("100 millis")
    }
    const last = yield* call("GET", `/api/runs/${t.id}/${runId}`, { headers: t.h })
    return assert.fail(`run did not reach the expected state: ${last.text}`)
  })

const eventTypes = (t: Tenant) =>
  Effect.map(
    call("GET", `/api/events/${t.id}?limit=200`, { headers: t.h }),
    (r) => (r.json.events as Array<any>).map((e) => e.type).reverse()
  )

// Every test provisions its own customer: more than the admin limit's 10 a minute from one address.
layer(testApp({ rateLimits: { ...rateLimitDefaults, admin: 100 } }), { timeout: 120_000, excludeTestServices: true })(
  "workflows over HTTP",
  (it) => {
    it.effect("every new customer has the six catalog workflows, disabled, with their schedules", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "catalog@x.co", brandName: "Acme Bakery" })
        const res = yield* call("GET", `/api/workflows/${t.id}`, { headers: t.h })
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(res.json.workflows.map((w: any) => w.id), [
          "weekly-content-plan",
          "daily-social-posts",
          "monthly-seo-audit",
          "competitor-research",
          "lead-magnet",
          "performance-report"
        ])
        const weekly = res.json.workflows[0]
        assert.deepStrictEqual(
          {
            enabled: weekly.enabled,
            schedule: weekly.schedule,
            timezone: weekly.timezone,
            nextRunAt: weekly.nextRunAt
          },
          { enabled: false, schedule: "0 9 * * 1", timezone: "UTC", nextRunAt: null }
        )
        assert.strictEqual(res.json.workflows[4].schedule, null)
      }))

    it.effect("PUT validates cron, time zone and unknown properties; toggle registers the next tick at once", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "put@x.co", brandName: "Acme Bakery" })
        const put = (body: unknown) => call("PUT", `/api/workflows/${t.id}/daily-social-posts`, { headers: t.h, body })
        const bad = yield* put({ schedule: "0 9 * *" })
        assert.strictEqual(bad.status, 400)
        assert.strictEqual(bad.json.code, "E_VALIDATION")
        assert.include(bad.text, "schedule")
        assert.strictEqual((yield* put({ schedule: "61 9 * * *" })).status, 400)
        assert.strictEqual((yield* put({ timezone: "Mars/Olympus" })).status, 400)
        const typo = yield* put({ schedul: "0 9 * * *" })
        assert.strictEqual(typo.status, 400)
        assert.include(typo.text, "schedul")
        // Each workflow's options are a schema: an unknown option or a wrong value is refused, naming it.
        const typoOption = yield* put({ config: { platfroms: ["x"] } })
        assert.strictEqual(typoOption.status, 400)
        assert.deepStrictEqual([typoOption.json.code, typoOption.json.error], [
          "E_VALIDATION",
          "Invalid body.config.platfroms: is not an allowed property"
        ])
        const wrong = yield* put({ config: { platforms: ["myspace"], postsPerDay: -3 } })
        assert.strictEqual(wrong.status, 400)
        assert.deepStrictEqual(wrong.json.details.map((d: any) => d.path).sort(), [
          "body.config.platforms.0",
          "body.config.postsPerDay"
        ])
        // postsPerWeek belongs to the weekly plan, not to the daily posts.
        assert.include((yield* put({ config: { postsPerWeek: 3 } })).json.error, "body.config.postsPerWeek")
        const weekly = yield* call("PUT", `/api/workflows/${t.id}/weekly-content-plan`, {
          headers: t.h,
          body: { config: { postsPerWeek: 22 } }
        })
        assert.deepStrictEqual([weekly.status, weekly.json.error], [
          400,
          "Invalid body.config.postsPerWeek: must be an integer between 1 and 21"
        ])
        const rivals = yield* call("PUT", `/api/workflows/${t.id}/competitor-research`, {
          headers: t.h,
          body: { config: { competitors: ["Rival Co"] } }
        })
        assert.deepStrictEqual([rivals.status, rivals.json.error], [
          400,
          "Invalid body.config.competitors.0: must be an absolute http or https URL"
        ])
        const badRun = yield* call("POST", `/api/workflows/${t.id}/performance-report/run`, {
          headers: t.h,
          body: { input: { period: "fortnight" } }
        })
        assert.strictEqual(badRun.status, 400)
        assert.strictEqual(badRun.json.details[0].path, "body.input.period")
        assert.strictEqual((yield* call("GET", `/api/runs/${t.id}`, { headers: t.h })).json.runs.length, 0)
        const ok = yield* put({
          schedule: "30 2 * * *",
          timezone: "Europe/Berlin",
          config: { platforms: ["x"], topics: ["bread"] },
          name: "Daily bread"
        })
        assert.strictEqual(ok.status, 200)
        assert.deepStrictEqual(
          {
            schedule: ok.json.schedule,
            timezone: ok.json.timezone,
            config: ok.json.config,
            name: ok.json.name,
            nextRunAt: ok.json.nextRunAt
          },
          {
            schedule: "30 2 * * *",
            timezone: "Europe/Berlin",
            config: { platforms: ["x"], topics: ["bread"] },
            name: "Daily bread",
            nextRunAt: null
          }
        )
        const on = yield* call("POST", `/api/workflows/${t.id}/daily-social-posts/toggle`, {
          headers: t.h,
          body: { enabled: true }
        })
        assert.strictEqual(on.status, 200)
        assert.isTrue(on.json.enabled)
        const next = new Date(on.json.nextRunAt)
        assert.isAbove(next.getTime(), Date.now())
        assert.isAtMost(next.getTime() - Date.now(), 25 * 3600_000)
        // 02:30 in Berlin is 00:30 or 01:30 UTC.
        assert.include(["00:30", "01:30"], next.toISOString().slice(11, 16))
        const off = yield* call("POST", `/api/workflows/${t.id}/daily-social-posts/toggle`, {
          headers: t.h,
          body: { enabled: false }
        })
        assert.strictEqual(off.json.nextRunAt, null)
        assert.strictEqual((yield* call("PUT", `/api/workflows/${t.id}/nope`, { headers: t.h, body: {} })).status, 404)
      }))

    it.effect("a run writes pieces through the house model, suspends for approval, resumes when reviewed; unconnected platforms skip the hand-off", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "run@x.co", brandName: "Acme Bakery" })
        yield* call("PUT", `/api/workflows/${t.id}/daily-social-posts`, {
          headers: t.h,
          body: { config: { platforms: ["x", "linkedin"], topics: ["sourdough"] } }
        })
        const started = yield* call("POST", `/api/workflows/${t.id}/daily-social-posts/run`, { headers: t.h, body: {} })
        assert.strictEqual(started.status, 200)
        assert.strictEqual(started.json.workflow, "daily-social-posts")
        assert.strictEqual(started.json.status, "pending")
        const runId = started.json.runId as string
        const suspended = yield* waitForRun(t, runId, (r) => r.status === "suspended")
        assert.deepStrictEqual(suspended.steps.map((s: any) => [s.name, s.status]), [
          ["write-social-posts", "succeeded"],
          ["await-approval", "running"]
        ])
        const pieces = (yield* call("GET", `/api/content/${t.id}`, { headers: t.h })).json.content as Array<any>
        assert.strictEqual(pieces.length, 2)
        for (const piece of pieces) {
          assert.strictEqual(piece.runId, runId)
          assert.strictEqual(piece.status, "pending_approval")
          assert.include(piece.body.toLowerCase(), "sourdough")
        }
        assert.isAtMost([...pieces.find((p) => p.platform === "x").body].length, 280)
        for (const piece of pieces) {
          const reviewed = yield* call("POST", `/api/content/${t.id}/${piece.id}/review`, {
            headers: t.h,
            body: { action: "approve" }
          })
          assert.strictEqual(reviewed.status, 200)
        }
        // Neither platform is connected: the hand-off is skipped with that reason, the pieces stay approved, nothing is queued.
        const done = yield* waitForRun(t, runId, (r) => r.status === "succeeded")
        assert.deepStrictEqual(done.steps.map((s: any) => [s.name, s.status]), [
          ["write-social-posts", "succeeded"],
          ["await-approval", "succeeded"],
          ["hand-to-publisher", "skipped"]
        ])
        assert.match(
          done.steps[2].detail.reason,
          /^no connected platform for the approved pieces: connect (x, linkedin|linkedin, x) first$/
        )
        assert.deepStrictEqual(
          done.steps[2].detail.handed.map((h: any) => [h.contentId, h.queue]).sort(),
          pieces.map((p) => [p.id, "not_connected"]).sort()
        )
        assert.isNotNull(done.completedAt)
        const types = (yield* eventTypes(t)).filter((e: string) => e.startsWith("workflow."))
        assert.deepStrictEqual(types.filter((e: string) => e !== "workflow.updated"), [
          "workflow.started",
          "workflow.suspended",
          "workflow.resumed",
          "workflow.completed"
        ])
        const { sql } = yield* TestServer
        assert.strictEqual(
          (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM publish_jobs WHERE customer_id = ${t.id}`)[0]!.n,
          0
        )
        assert.strictEqual(
          (yield* sql<
            { n: number }
          >`SELECT count(*)::int AS n FROM workflow_effects WHERE run_id = ${runId} AND key LIKE 'publish-%'`)[0]!.n,
          0
        )
        for (const piece of pieces) assert.strictEqual((yield* pieceOf(t, piece.id)).status, "approved")
        const hooks = yield* sql<
          { data: any }
        >`SELECT data FROM webhook_events WHERE customer_id = ${t.id} AND type = 'workflow.completed'`
        assert.strictEqual(hooks.length, 1)
        const data = typeof hooks[0]!.data === "string" ? JSON.parse(hooks[0]!.data) : hooks[0]!.data
        assert.strictEqual(data.status, "succeeded")
        assert.strictEqual(data.runId, runId)
        const list = yield* call("GET", `/api/runs/${t.id}?workflow=daily-social-posts&status=succeeded`, {
          headers: t.h
        })
        assert.deepStrictEqual(list.json.runs.map((r: any) => r.runId), [runId])
        // One start instant everywhere: the run's answer, its later reads, its events and its webhook.
        assert.deepStrictEqual(
          [suspended.startedAt, done.startedAt, list.json.runs[0].startedAt, data.startedAt],
          Array(4).fill(started.json.startedAt)
        )
        const runEvents =
          ((yield* call("GET", `/api/events/${t.id}?limit=200`, { headers: t.h })).json.events as Array<any>).filter((
            e
          ) => e.type.startsWith("workflow.") && e.data?.runId === runId)
        assert.isAbove(runEvents.length, 3)
        for (const event of runEvents) assert.strictEqual(event.data.startedAt, started.json.startedAt, event.type)
        assert.strictEqual((yield* call("POST", `/api/runs/${t.id}/${runId}/cancel`, { headers: t.h })).status, 409)
      }))

    it.effect("the agent writes from the confirmed brand profile: its description, audience and voice reach the pieces", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "profile@x.co", brandName: "Crumb" })
        const profile = {
          brandName: "Crumb Bakery",
          description: "Small-batch sourdough baked in Leeds every morning.",
          voice: ["warm", "playful"],
          audience: ["home bakers"],
          products: ["Rye starter kit"],
          sourceUrl: "https://crumb.example/"
        }
        assert.strictEqual(
          (yield* call("POST", `/api/onboard/${t.id}/confirm-profile`, { headers: t.h, body: profile })).status,
          200
        )
        yield* call("PUT", `/api/workflows/${t.id}/weekly-content-plan`, {
          headers: t.h,
          body: { config: { platforms: ["linkedin"], topics: ["sourdough"], postsPerWeek: 1 } }
        })
        const started = yield* call("POST", `/api/workflows/${t.id}/weekly-content-plan/run`, {
          headers: t.h,
          body: {}
        })
        yield* waitForRun(t, started.json.runId, (r) => r.status === "suspended")
        const pieces = (yield* call("GET", `/api/content/${t.id}`, { headers: t.h })).json.content as Array<any>
        const blog = pieces.find((p) => p.type === "blog")
        assert.include(blog.body, profile.description, "the blog opens with the profile's description")
        const all = pieces.map((p) => `${p.title}\n${p.body}`).join("\n")
        assert.include(all, "Crumb Bakery")
        assert.include(all, "home bakers")
      }))

    it.effect("a run goes on with its approved pieces once every piece is decided, fails only when all are rejected; cancelling rejects its waiting pieces; steps without a service are skipped", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "reject@x.co", brandName: "Acme Bakery" })
        const { sql } = yield* TestServer
        const runPieces = (runId: string) =>
          Effect.map(
            call("GET", `/api/content/${t.id}?limit=100`, { headers: t.h }),
            (r) => (r.json.content as Array<any>).filter((p) => p.runId === runId)
          )
        const review = (id: string, action: string, note?: string) =>
          call("POST", `/api/content/${t.id}/${id}/review`, {
            headers: t.h,
            body: { action, ...(note === undefined ? {} : { note }) }
          })
        const completedHook = (runId: string) =>
          Effect.map(
            sql<
              { data: any }
            >`SELECT data FROM webhook_events WHERE customer_id = ${t.id} AND type = 'workflow.completed'`,
            (rows) =>
              rows.map((r) => typeof r.data === "string" ? JSON.parse(r.data) : r.data).find((d) => d.runId === runId)
          )

        // One of two pieces rejected: the run waits for the other, then succeeds with the counts.
        const started = yield* call("POST", `/api/workflows/${t.id}/lead-magnet/run`, {
          headers: t.h,
          body: { input: { topics: ["bread"] } }
        })
        const runId = started.json.runId as string
        yield* waitForRun(t, runId, (r) => r.status === "suspended")
        const pieces = yield* runPieces(runId)
        assert.deepStrictEqual(pieces.map((p) => p.type).sort(), ["blog", "email"])
        assert.strictEqual((yield* review(pieces[0].id, "reject", "off brand")).status, 200)
        yield* Effect.sleep("1500 millis")
        assert.strictEqual(
          (yield* call("GET", `/api/runs/${t.id}/${runId}`, { headers: t.h })).json.status,
          "suspended",
          "a piece still awaits review"
        )
        assert.strictEqual((yield* review(pieces[1].id, "approve")).status, 200)
        const done = yield* waitForRun(t, runId, (r) => r.status === "succeeded" || r.status === "failed")
        assert.strictEqual(done.status, "succeeded", JSON.stringify(done))
        assert.deepStrictEqual([done.output.approved, done.output.rejected], [1, 1])
        assert.deepStrictEqual(done.steps.map((s: any) => [s.name, s.status]), [["write-lead-magnet", "succeeded"], [
          "await-approval",
          "succeeded"
        ]])
        assert.strictEqual((yield* completedHook(runId)).status, "succeeded")

        // Every piece rejected: the run fails.
        const second = yield* call("POST", `/api/workflows/${t.id}/lead-magnet/run`, {
          headers: t.h,
          body: { input: { topics: ["rye"] } }
        })
        yield* waitForRun(t, second.json.runId, (r) => r.status === "suspended")
        for (const piece of yield* runPieces(second.json.runId)) yield* review(piece.id, "reject", "no")
        const failed = yield* waitForRun(t, second.json.runId, (r) => r.status === "failed")
        assert.strictEqual(failed.error, "rejected in review")
        assert.strictEqual((yield* completedHook(second.json.runId)).status, "failed")

        // Cancelling a suspended run rejects its pieces still awaiting approval, noting why.
        const third = yield* call("POST", `/api/workflows/${t.id}/weekly-content-plan/run`, { headers: t.h, body: {} })
        yield* waitForRun(t, third.json.runId, (r) => r.status === "suspended")
        const waiting = yield* runPieces(third.json.runId)
        assert.isAbove(waiting.length, 1)
        yield* review(waiting[0].id, "approve")
        const cancelled = yield* call("POST", `/api/runs/${t.id}/${third.json.runId}/cancel`, { headers: t.h })
        assert.strictEqual(cancelled.status, 200)
        assert.deepStrictEqual([cancelled.json.status, cancelled.json.error], ["failed", "cancelled"])
        const after = yield* runPieces(third.json.runId)
        assert.deepStrictEqual(
          after.map((p) => [p.id, p.status, p.reviewNote]).sort(),
          waiting.map((p, i) => i === 0 ? [p.id, "approved", null] : [p.id, "rejected", "run cancelled"]).sort()
        )
        const rejectedHooks = yield* sql<
          { data: any }
        >`SELECT data FROM webhook_events WHERE customer_id = ${t.id} AND type = 'content.rejected'`
        const rejectedIds = rejectedHooks.map((r) => (typeof r.data === "string" ? JSON.parse(r.data) : r.data).id)
        for (const piece of waiting.slice(1)) assert.include(rejectedIds, piece.id)
        const events = (yield* call("GET", `/api/events/${t.id}?limit=200`, { headers: t.h })).json.events as Array<any>
        assert.strictEqual(
          events.filter((e) => e.type === "content.rejected" && e.data.reviewNote === "run cancelled").length,
          waiting.length - 1
        )

        const audit = yield* call("POST", `/api/workflows/${t.id}/monthly-seo-audit/run`, { headers: t.h, body: {} })
        const audited = yield* waitForRun(t, audit.json.runId, (r) => r.status === "succeeded")
        assert.deepStrictEqual(audited.steps.map((s: any) => [s.name, s.status]), [["scan-site", "skipped"], [
          "write-audit-report",
          "skipped"
        ]])
        assert.include(audited.steps[0].detail.reason, "no site to scan")
        assert.strictEqual((yield* call("GET", `/api/runs/${t.id}/run_nope`, { headers: t.h })).status, 404)
      }))

    it.effect("media platforms are planned only with an image to attach: left out (and said so) without one, given the site's og:image without a logo, the logo with one", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "media@x.co", brandName: "Acme Bakery" })
        const run = (customerId: string, h: Record<string, string>) =>
          Effect.gen(function*() {
            const started = yield* call("POST", `/api/workflows/${customerId}/daily-social-posts/run`, {
              headers: h,
              body: { input: { platforms: ["x", "instagram"], postsPerDay: 2 } }
            })
            return yield* waitForRun(t, started.json.runId, (r) => r.status === "suspended" || r.status === "failed")
          })
        const without = yield* run(t.id, t.h)
        assert.deepStrictEqual(without.steps[0].detail.leftOut, ["instagram"])
        assert.include(without.steps[0].detail.leftOutReason, "instagram left out")
        const first = (yield* call("GET", `/api/content/${t.id}`, { headers: t.h })).json.content as Array<any>
        assert.deepStrictEqual(first.map((p) => p.platform), ["x", "x"])
        const ogImage = "https://acme.example/share.jpg"
        assert.strictEqual(
          (yield* call("POST", `/api/onboard/${t.id}/confirm-profile`, {
            headers: t.h,
            body: { brandName: "Acme Bakery", ogImage }
          })).status,
          200
        )
        const withOg = yield* run(t.id, t.h)
        assert.isUndefined(withOg.steps[0].detail.leftOut)
        const ogPieces =
          ((yield* call("GET", `/api/content/${t.id}?limit=100`, { headers: t.h })).json.content as Array<any>).filter((
            p
          ) => p.runId === withOg.runId)
        assert.deepStrictEqual(ogPieces.find((p) => p.platform === "instagram").metadata.media, [ogImage])
        assert.strictEqual(
          (yield* call("POST", `/api/onboard/${t.id}/confirm-profile`, {
            headers: t.h,
            body: { brandName: "Acme Bakery", logoUrl: "https://acme.example/logo.png", ogImage }
          })).status,
          200
        )
        const withLogo = yield* run(t.id, t.h)
        assert.isUndefined(withLogo.steps[0].detail.leftOut)
        const pieces =
          ((yield* call("GET", `/api/content/${t.id}?limit=100`, { headers: t.h })).json.content as Array<any>).filter((
            p
          ) => p.runId === withLogo.runId)
        const instagram = pieces.find((p) => p.platform === "instagram")
        assert.deepStrictEqual(instagram.metadata.media, ["https://acme.example/logo.png"])
        assert.isUndefined(pieces.find((p) => p.platform === "x").metadata.media)
      }))

    it.effect("cron: a tick missed while down fires once at the next poll, a disabled workflow never fires", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "cron@x.co", brandName: "Acme Bakery" })
        const { sql } = yield* TestServer
        yield* call("PUT", `/api/workflows/${t.id}/performance-report`, {
          headers: t.h,
          body: { schedule: "0 8 * * 1", timezone: "America/New_York" }
        })
        const on = yield* call("POST", `/api/workflows/${t.id}/performance-report/toggle`, {
          headers: t.h,
          body: { enabled: true }
        })
        assert.isNotNull(on.json.nextRunAt)
        // As if the service had been down over several ticks: the stored tick is long past.
        yield* sql`UPDATE workflows SET next_run_at = now() - interval '3 weeks' WHERE customer_id = ${t.id} AND id = 'performance-report'`
        // A disabled workflow with a past tick (set behind the API's back) must not fire.
        yield* sql`UPDATE workflows SET next_run_at = now() - interval '1 hour' WHERE customer_id = ${t.id} AND id = 'monthly-seo-audit'`
        // Nor does an enabled one of a suspended account.
        const other = yield* tenant({ email: "cron-suspended@x.co", brandName: "Acme Bakery" })
        yield* call("POST", `/api/workflows/${other.id}/performance-report/toggle`, {
          headers: other.h,
          body: { enabled: true }
        })
        yield* sql`UPDATE customers SET status = 'suspended' WHERE id = ${other.id}`
        yield* sql`UPDATE workflows SET next_run_at = now() - interval '1 hour' WHERE customer_id = ${other.id} AND id = 'performance-report'`
        let runs: Array<any> = []
        for (let i = 0; i < 50 && runs.length === 0; i++) {
          yield* Effect.sleep("100 millis")
          runs = (yield* call("GET", `/api/runs/${t.id}`, { headers: t.h })).json.runs
        }
        yield* Effect.sleep("2500 millis")
        runs = (yield* call("GET", `/api/runs/${t.id}`, { headers: t.h })).json.runs
        assert.deepStrictEqual(runs.map((r: any) => r.workflow), ["performance-report"])
        assert.strictEqual(
          (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM workflow_runs WHERE customer_id = ${other.id}`)[0]!
            .n,
          0
        )
        const [row] = yield* sql<
          { nextRunAt: Date; triggeredBy: string }
        >`SELECT w.next_run_at, r.triggered_by FROM workflows w
        JOIN workflow_runs r ON r.customer_id = w.customer_id AND r.workflow_id = w.id WHERE w.customer_id = ${t.id} AND w.id = 'performance-report'`
        assert.strictEqual(row!.triggeredBy, "cron")
        assert.isAbove(new Date(row!.nextRunAt).getTime(), Date.now())
        // Mondays 08:00 in New York.
        assert.strictEqual(
          new Intl.DateTimeFormat("en-US", {
            timeZone: "America/New_York",
            weekday: "short",
            hour: "2-digit",
            hourCycle: "h23",
            minute: "2-digit"
          }).format(new Date(row!.nextRunAt)),
          "Mon 08:00"
        )
        yield* waitForRun(t, runs[0].runId, (r) => r.status === "succeeded")
      }))
    it.effect("monthly-seo-audit scans the site of the config (or the brand profile) and writes a report from the findings", () =>
      Effect.gen(function*() {
        const site = yield* Effect.promise(() => serveSite(sites.flawed))
        served.push(site)
        const t = yield* tenant({ email: "audit@x.co", brandName: "Acme Bakery" })
        const { sql } = yield* TestServer
        // The url comes from the confirmed brand profile when the config has none.
        yield* sql`INSERT INTO brand_profiles (customer_id, profile) VALUES (${t.id}, ${
          JSON.stringify({ brandName: "Acme Bakery", sourceUrl: `${site.origin}/` })
        }::jsonb)`
        const started = yield* call("POST", `/api/workflows/${t.id}/monthly-seo-audit/run`, { headers: t.h, body: {} })
        assert.strictEqual(started.status, 200, started.text)
        const done = yield* waitForRun(
          t,
          started.json.runId,
          (r) => r.status === "succeeded" || r.status === "failed",
          60
        )
        assert.strictEqual(done.status, "succeeded", JSON.stringify(done))
        assert.deepStrictEqual(done.steps.map((s: any) => [s.name, s.status]), [["scan-site", "succeeded"], [
          "write-audit-report",
          "succeeded"
        ]])
        const { scanId, scores } = done.steps[0].detail
        assert.match(scanId, /^scan_/)
        const scan = yield* call("GET", `/api/scan/${t.id}/${scanId}`, { headers: t.h })
        assert.strictEqual(scan.status, 200)
        assert.strictEqual(scan.json.url, `${site.origin}/`)
        assert.strictEqual(scan.json.status, "done")
        assert.deepStrictEqual([scores.seo, scores.geo, scores.cro], [
          scan.json.seoScore,
          scan.json.geoScore,
          scan.json.croScore
        ])
        // The audit is a report, linked from the run's output, never a piece of content.
        const report = yield* reportOf(t, done)
        assert.strictEqual(report.kind, "seo-audit")
        assert.strictEqual(report.workflow, "monthly-seo-audit")
        assert.strictEqual(report.title, `SEO audit of ${new URL(site.origin).hostname}`)
        // Written from the scan's own findings: its score and a failed check of the flawed page.
        assert.include(report.body, `SEO score: ${scan.json.seoScore}/100`)
        const failed = (scan.json.checklist as Array<any>).filter((c) => c.status === "fail")
        assert.isAbove(failed.length, 0)
        assert.isTrue(failed.some((c) => report.body.includes(c.title)), report.body)
        assert.deepInclude(report.figures, { label: "SEO score", value: scan.json.seoScore })
        assert.deepInclude(report.figures, { label: "Checks to fix", value: failed.length })
        assert.include(report.body, "## Recommendations\n\n- Start with the")
        yield* assertNoContent(t)
        assert.strictEqual(
          (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM scans WHERE customer_id = ${t.id}`)[0]!.n,
          1
        )

        // A url that is not http(s) is refused before any run starts.
        const bad = yield* call("POST", `/api/workflows/${t.id}/monthly-seo-audit/run`, {
          headers: t.h,
          body: { input: { url: "ftp://example.com/" } }
        })
        assert.deepStrictEqual([bad.status, bad.json.error], [
          400,
          "Invalid body.input.url: must be an absolute http or https URL"
        ])
        // An unreachable site: the scan is stored as failed and the run fails saying why.
        const down = yield* call("POST", `/api/workflows/${t.id}/monthly-seo-audit/run`, {
          headers: t.h,
          body: { input: { url: "http://127.0.0.1:9/" } }
        })
        const unreachable = yield* waitForRun(t, down.json.runId, (r) => r.status === "failed", 60)
        assert.match(
          unreachable.error,
          /^scan-site: the scan of http:\/\/127\.0\.0\.1:9\/ failed: .+ \(scan scan_\w+\)$/
        )
        assert.deepStrictEqual(unreachable.steps.map((s: any) => [s.name, s.status]), [["scan-site", "failed"]])
      }))

    it.effect("competitor-research scans each competitor url of the config and briefs from the scores", () =>
      Effect.gen(function*() {
        const site = yield* Effect.promise(() => serveSite(sites.bare))
        served.push(site)
        const t = yield* tenant({ email: "rivals@x.co", brandName: "Acme Bakery" })
        yield* call("PUT", `/api/workflows/${t.id}/competitor-research`, {
          headers: t.h,
          body: { config: { competitors: [`${site.origin}/`], competitorNames: ["Rival Co"] } }
        })
        const started = yield* call("POST", `/api/workflows/${t.id}/competitor-research/run`, {
          headers: t.h,
          body: {}
        })
        // The brief is a report: nothing waits for approval, the run ends on its own.
        const done = yield* waitForRun(
          t,
          started.json.runId,
          (r) => r.status === "succeeded" || r.status === "failed",
          60
        )
        assert.strictEqual(done.status, "succeeded", JSON.stringify(done))
        assert.deepStrictEqual(done.steps.map((s: any) => [s.name, s.status]), [["scan-competitors", "succeeded"], [
          "write-positioning-brief",
          "succeeded"
        ]])
        const [scanned] = done.steps[0].detail.scans
        assert.strictEqual(done.steps[0].detail.scans.length, 1)
        assert.strictEqual(scanned.url, `${site.origin}/`)
        assert.strictEqual(scanned.status, "done")
        const brief = yield* reportOf(t, done)
        assert.strictEqual(brief.kind, "competitor-brief")
        assert.strictEqual(brief.title, `Competitor brief: Rival Co and ${new URL(site.origin).hostname}`)
        assert.include(brief.body, "Rival Co")
        assert.include(brief.body, `Competitor ${site.origin}/: SEO ${scanned.scores.seo}/100`)
        assert.deepInclude(brief.figures, { label: "Competitors watched", value: 2 })
        yield* assertNoContent(t)
      }))

    it.effect("daily-social-posts hands the approved pieces to the publisher once; they end published once", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "publish@x.co", brandName: "Acme Bakery" })
        const { sql } = yield* TestServer
        yield* connect(t, "x")
        yield* connect(t, "linkedin")
        yield* call("PUT", `/api/workflows/${t.id}/daily-social-posts`, {
          headers: t.h,
          body: { config: { platforms: ["x", "linkedin"], topics: ["rye"] } }
        })
        const started = yield* call("POST", `/api/workflows/${t.id}/daily-social-posts/run`, { headers: t.h, body: {} })
        const runId = started.json.runId as string
        yield* waitForRun(t, runId, (r) => r.status === "suspended")
        const pieces = (yield* call("GET", `/api/content/${t.id}`, { headers: t.h })).json.content as Array<any>
        assert.strictEqual(pieces.length, 2)
        for (const piece of pieces) {
          yield* call("POST", `/api/content/${t.id}/${piece.id}/review`, { headers: t.h, body: { action: "approve" } })
        }
        const done = yield* waitForRun(t, runId, (r) => r.status === "succeeded" || r.status === "failed")
        assert.strictEqual(done.status, "succeeded", JSON.stringify(done))
        const handOff = done.steps[2]
        assert.deepStrictEqual([handOff.name, handOff.status], ["hand-to-publisher", "succeeded"])
        assert.deepStrictEqual(
          handOff.detail.handed.map((h: any) => [h.contentId, h.queue]).sort(),
          pieces.map((p) => [p.id, "queued"]).sort()
        )
        for (const piece of pieces) {
          for (let i = 0; i < 100; i++) {
            const [row] = yield* sql<{ status: string }>`SELECT status FROM content WHERE id = ${piece.id}`
            if (row!.status === "published") break
            yield* Effect.sleep("100 millis")
          }
          const now = yield* pieceOf(t, piece.id)
          assert.strictEqual(now.status, "published")
          assert.isString(now.publishedUrl)
        }
        const sent = yield* sql<
          { contentId: string; n: number }
        >`SELECT content_id, count(*)::int AS n FROM publish_attempts
        WHERE customer_id = ${t.id} GROUP BY content_id`
        assert.deepStrictEqual(sent.map((r) => [r.contentId, r.n]).sort(), pieces.map((p) => [p.id, 1]).sort())
        const keys = yield* sql<
          { key: string }
        >`SELECT key FROM workflow_effects WHERE run_id = ${runId} AND key LIKE 'publish-%' ORDER BY key`
        assert.deepStrictEqual(keys.map((k) => k.key), pieces.map((p) => `publish-${p.id}`).sort())

        // At level 5 the pieces are queued as they are written: the hand-off never queues them a second time.
        yield* call("PUT", `/api/settings/${t.id}/autonomy`, {
          headers: t.h,
          body: { skills: { "daily-social-posts": 5 } }
        })
        const auto = yield* call("POST", `/api/workflows/${t.id}/daily-social-posts/run`, { headers: t.h, body: {} })
        const autoDone = yield* waitForRun(t, auto.json.runId, (r) => r.status === "succeeded" || r.status === "failed")
        assert.strictEqual(autoDone.status, "succeeded", JSON.stringify(autoDone))
        const autoPieces = autoDone.steps[0].detail.pieces as Array<any>
        for (const handed of autoDone.steps[2].detail.handed ?? []) assert.strictEqual(handed.queue, "already")
        yield* Effect.sleep("1500 millis")
        for (const p of autoPieces) {
          const attempts = yield* sql<
            { n: number }
          >`SELECT count(*)::int AS n FROM publish_attempts WHERE content_id = ${p.contentId}`
          assert.strictEqual(attempts[0]!.n, 1)
          assert.strictEqual((yield* pieceOf(t, p.contentId)).status, "published")
        }
      }))

    it.effect("performance-report reads the period's analytics and writes a report with the figures", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "report@x.co", brandName: "Acme Bakery" })
        const { sql } = yield* TestServer
        // Two published posts on x and one on linkedin in the period, with the provider's figures.
        for (
          const [id, platform, impressions] of [["cnt_rep1", "x", 120], ["cnt_rep2", "x", 30], [
            "cnt_rep3",
            "linkedin",
            400
          ]] as const
        ) {
          yield* sql`INSERT INTO content (id, customer_id, type, platform, status, body, published_at)
          VALUES (${id}, ${t.id}, 'social', ${platform}, 'published', 'A post', now() - interval '1 day')`
          yield* sql`INSERT INTO post_metrics (content_id, customer_id, platform, impressions, engagements)
          VALUES (${id}, ${t.id}, ${platform}, ${impressions}, 7)`
        }
        // Revenue recorded in the customer's currency, under LinkedIn.
        yield* sql`INSERT INTO revenue (id, customer_id, amount, currency, channel) VALUES ('rev_rep1', ${t.id}, 36.5, 'EUR', 'linkedin')`
        const report = yield* call("GET", `/api/analytics/${t.id}?period=last_30_days`, { headers: t.h })
        assert.strictEqual(report.status, 200, report.text)
        const started = yield* call("POST", `/api/workflows/${t.id}/performance-report/run`, {
          headers: t.h,
          body: { input: { period: "30d" } }
        })
        const done = yield* waitForRun(t, started.json.runId, (r) => r.status === "succeeded" || r.status === "failed")
        assert.strictEqual(done.status, "succeeded", JSON.stringify(done))
        assert.deepStrictEqual(done.steps.map((s: any) => [s.name, s.status]), [["read-analytics", "succeeded"], [
          "write-performance-report",
          "succeeded"
        ]])
        assert.deepStrictEqual(done.steps[0].detail.totals, report.json.totals)
        assert.deepStrictEqual(Object.keys(done.steps[0].detail.channels).sort(), ["linkedin", "x"])
        assert.strictEqual(done.steps[0].detail.totals.impressions, 550)
        const piece = yield* reportOf(t, done)
        assert.strictEqual(piece.kind, "performance-report")
        assert.match(piece.title, /^Performance report, last 30 days to \d{1,2} [A-Z][a-z]+ \d{4}$/)
        assert.include(piece.body, "3 posts published, 550 impressions, 21 engagements, 0 clicks, €36.50 revenue")
        assert.include(piece.body, "X: 2 posts published, 150 impressions")
        assert.include(
          piece.body,
          "LinkedIn: 1 post published, 400 impressions, 7 engagements, 0 clicks, €36.50 revenue"
        )
        assert.include(piece.body, "Revenue: €36.50")
        assert.notInclude(piece.body, "36.5 revenue")
        assert.deepStrictEqual(piece.figures, [
          { label: "Posts published", value: 3 },
          { label: "Impressions", value: 550 },
          { label: "Engagements", value: 21 },
          { label: "Clicks", value: 0 },
          { label: "Revenue", value: 36.5, currency: "EUR" }
        ])
        yield* assertNoContent(t, 3)
        const wrong = yield* call("POST", `/api/workflows/${t.id}/performance-report/run`, {
          headers: t.h,
          body: { input: { period: "fortnight" } }
        })
        assert.deepStrictEqual([wrong.status, wrong.json.error], [
          400,
          "Invalid body.input.period: must be one of: 7d, 30d, 90d, last_7_days, last_30_days, last_90_days"
        ])
      }))
  }
)
