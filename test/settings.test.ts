import { assert, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { Customers } from "../src/features/customers/Customers.ts"
import { Budget } from "../src/features/settings/Budget.ts"
import { Settings } from "../src/features/settings/Settings.ts"
import { call, testApp } from "./support/harness.ts"
import { tenant } from "./support/processes.ts"
import { testServices } from "./support/services.ts"

const defaults = {
  autonomy: { globalDefault: 2, categories: {}, skills: {} },
  budget: { daily: null, weekly: null, monthly: null, channels: {} },
  tracking: { links: true }
}

layer(testApp(), { timeout: 60_000 })("settings over HTTP", (it) => {
  it.effect("defaults, merges and null removal, with events", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "settings@x.co" })
      const get = () => Effect.map(call("GET", `/api/settings/${t.id}`, { headers: t.h }), (r) => r.json)
      const put = (section: string, body: unknown) =>
        call("PUT", `/api/settings/${t.id}/${section}`, { headers: t.h, body })
      assert.deepStrictEqual(yield* get(), defaults)
      const first = yield* put("autonomy", {
        categories: { blog: 4 },
        skills: { ask_cmo: 5, "weekly-content-plan": 1 }
      })
      assert.strictEqual(first.status, 200)
      const second = yield* put("autonomy", { globalDefault: 3, categories: { social: 1 }, skills: { ask_cmo: null } })
      const autonomy = { globalDefault: 3, categories: { blog: 4, social: 1 }, skills: { "weekly-content-plan": 1 } }
      assert.deepStrictEqual(second.json, { ...defaults, autonomy })
      const budget = yield* put("budget", { daily: 10, monthly: 100.5, channels: { ads: 50, model: 0 } })
      assert.deepStrictEqual(budget.json.budget, {
        daily: 10,
        weekly: null,
        monthly: 100.5,
        channels: { ads: 50, model: 0 }
      })
      yield* put("budget", { daily: null, weekly: 20, channels: { ads: null, x: 5 } })
      const all = yield* get()
      assert.deepStrictEqual(all, {
        autonomy,
        budget: { daily: null, weekly: 20, monthly: 100.5, channels: { model: 0, x: 5 } },
        tracking: { links: true }
      })
      const events = (yield* call("GET", `/api/events/${t.id}`, { headers: t.h })).json.events.map((e: any) => e.type)
      assert.deepStrictEqual(events.filter((e: string) => e.startsWith("settings.")), [
        "settings.budget_updated",
        "settings.budget_updated",
        "settings.autonomy_updated",
        "settings.autonomy_updated"
      ])
    }))

  it.effect("bounds and unknown keys are 400 with details, and change nothing", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "bounds@x.co" })
      const cases: ReadonlyArray<readonly [string, unknown, string]> = [
        ["autonomy", { globalDefault: 0 }, "body.globalDefault"],
        ["autonomy", { globalDefault: 6 }, "body.globalDefault"],
        ["autonomy", { globalDefault: 2.5 }, "body.globalDefault"],
        ["autonomy", { globalDefault: "3" }, "body.globalDefault"],
        ["autonomy", { categories: { video: 3 } }, "body.categories.video"],
        ["autonomy", { skills: { hack: 3 } }, "body.skills.hack"],
        ["autonomy", { skills: { ask_cmo: 9 } }, "body.skills.ask_cmo"],
        ["autonomy", { mode: "yolo" }, "body.mode"],
        ["budget", { daily: -1 }, "body.daily"],
        ["budget", { weekly: "10" }, "body.weekly"],
        ["budget", { channels: { youtube: 5 } }, "body.channels.youtube"],
        ["budget", { channels: { ads: -0.01 } }, "body.channels.ads"],
        ["budget", { yearly: 5 }, "body.yearly"]
      ]
      for (const [section, body, path] of cases) {
        const res = yield* call("PUT", `/api/settings/${t.id}/${section}`, { headers: t.h, body })
        assert.strictEqual(res.status, 400, JSON.stringify(body))
        assert.strictEqual(res.json.code, "E_VALIDATION")
        assert.include(res.json.details.map((d: any) => d.path), path, JSON.stringify(res.json))
      }
      assert.deepStrictEqual((yield* call("GET", `/api/settings/${t.id}`, { headers: t.h })).json, defaults)
    }))

  it.effect("reading needs viewer, changing needs admin", () =>
    Effect.gen(function*() {
      const t = yield* tenant({ email: "roles@x.co" })
      const key = (role: string) =>
        Effect.map(
          call("POST", `/api/team/${t.id}/members`, { headers: t.h, body: { email: `${role}@x.co`, role } }),
          (r) => ({ authorization: `Bearer ${r.json.apiKey}` })
        )
      const viewer = yield* key("viewer")
      const editor = yield* key("editor")
      const admin = yield* key("admin")
      assert.strictEqual((yield* call("GET", `/api/settings/${t.id}`, { headers: viewer })).status, 200)
      for (const headers of [viewer, editor]) {
        for (const section of ["autonomy", "budget"]) {
          const res = yield* call("PUT", `/api/settings/${t.id}/${section}`, { headers, body: {} })
          assert.strictEqual(res.status, 403)
          assert.strictEqual(res.json.code, "E_FORBIDDEN")
        }
      }
      const ok = yield* call("PUT", `/api/settings/${t.id}/autonomy`, { headers: admin, body: { globalDefault: 5 } })
      assert.strictEqual(ok.json.autonomy.globalDefault, 5)
      const other = yield* tenant({ email: "other@x.co" })
      assert.strictEqual((yield* call("GET", `/api/settings/${other.id}`, { headers: t.h })).status, 403)
    }))
})

layer(testServices, { timeout: 60_000 })("budget ledger", (it) => {
  const customer = (email: string) =>
    Effect.gen(function*() {
      const { customer } = yield* (yield* Customers).provision({ email })
      return customer.id
    })

  const refused = (effect: Effect.Effect<unknown, unknown>) =>
    Effect.map(Effect.exit(effect), (exit) => {
      assert.isTrue(Exit.isFailure(exit))
      const text = JSON.stringify(exit)
      assert.include(text, "E_BUDGET_EXCEEDED")
      return text
    })

  it.effect("charges fit under caps up to exactly the cap; the next cent is refused", () =>
    Effect.gen(function*() {
      const budget = yield* Budget
      const sql = yield* SqlClient.SqlClient
      const id = yield* customer("budget@x.co")
      yield* budget.charge(id, "ads", 1000)
      yield* (yield* Settings).updateBudget(id, { channels: { ads: 4 } })
      // Spend before the cap was set still counts: the ads channel is already past 4.
      assert.include(yield* refused(budget.charge(id, "ads", 0.01)), "ads channel")
      yield* (yield* Settings).updateBudget(id, { channels: { ads: null, x: 4 } })
      yield* (yield* Settings).updateBudget(id, { daily: 1000.3 })
      yield* budget.charge(id, "x", 0.1)
      yield* budget.charge(id, "x", 0.2)
      assert.include(yield* refused(budget.charge(id, "x", 0.01)), "daily")
      yield* (yield* Settings).updateBudget(id, { daily: null, monthly: 1014 })
      yield* budget.charge(id, "x", 3.7)
      assert.include(yield* refused(budget.charge(id, "x", 0.000001)), "x channel")
      yield* budget.charge(id, "model", 0)
      const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM spend_ledger WHERE customer_id = ${id}`
      assert.strictEqual(rows[0].n, 5)
    }))

  it.effect("concurrent charges never pass a cap together", () =>
    Effect.gen(function*() {
      const budget = yield* Budget
      const id = yield* customer("race@x.co")
      yield* (yield* Settings).updateBudget(id, { weekly: 10 })
      const exits = yield* Effect.all(
        Array.from({ length: 15 }, () => Effect.exit(budget.charge(id, "model", 1))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(exits.filter(Exit.isSuccess).length, 10)
    }))
})
