import { assert, layer } from "@effect/vitest"
import { Context, Effect } from "effect"
import { Reports } from "../src/features/reports/Reports.ts"
import { chat, type ChatReply, deltaText, names } from "./support/chat.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { httpClient } from "./support/mcp-clients.ts"
import { appWithModel, ModelServer } from "./support/model-app.ts"
import { tenant } from "./support/processes.ts"

/** A text as a regular expression that matches it literally. */
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

// Proxy headers trusted: each provisioning comes from its own address, under the admin limit.
layer(testApp({ trustProxy: true }), { timeout: 60_000, excludeTestServices: true })(
  "chat with the house model",
  (it) => {
    it.effect("streams thread, deltas, done in order, every data JSON; stores the thread", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "chat-order@x.co" })
        const reply = yield* chat(t, { message: "Write a linkedin post about our spring launch" })
        assert.strictEqual(reply.status, 200)
        assert.match(reply.contentType ?? "", /^text\/event-stream/)
        const order = names(reply)
        assert.strictEqual(order[0], "thread")
        assert.strictEqual(order.at(-1), "done")
        assert.isAbove(order.filter((e) => e === "delta").length, 1)
        // A draft request is answered through the content tool: the piece waits in the queue, the answer shows it.
        assert.deepStrictEqual([...new Set(order.slice(1, -1))], ["tool_call", "tool_result", "delta"])
        assert.strictEqual(reply.events[1]!.data.name, "run_content_creation")
        assert.strictEqual(reply.events[1]!.data.arguments.platform, "linkedin")
        const threadId = reply.events[0]!.data.threadId as string
        assert.match(threadId, /^thr_/)
        const done = reply.events.at(-1)!.data
        assert.strictEqual(done.threadId, threadId)
        const text = reply.events.filter((e) => e.event === "delta").map((e) => e.data.text).join("")
        assert.include(text.toLowerCase(), "spring launch")

        const thread = yield* call("GET", `/api/chat/${t.id}/threads/${threadId}`, { headers: t.h })
        assert.strictEqual(thread.status, 200)
        assert.strictEqual(thread.json.threadId, threadId)
        assert.deepStrictEqual(thread.json.messages.map((m: any) => m.role), ["user", "tool", "assistant"])
        assert.strictEqual(thread.json.messages[0].content, "Write a linkedin post about our spring launch")
        assert.strictEqual(thread.json.messages[2].content, text)
        assert.strictEqual(thread.json.messages[2].messageId, done.messageId)
      }))

    it.effect("a second message continues the thread; the list counts messages, newest first", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "chat-continue@x.co" })
        const first = yield* chat(t, { message: "Write an email about pricing" })
        const threadId = first.events[0]!.data.threadId as string
        const other = yield* chat(t, { message: "Write a blog about hiring" })
        const otherId = other.events[0]!.data.threadId as string
        assert.notStrictEqual(otherId, threadId)
        const second = yield* chat(t, { message: "Now a shorter one about pricing", threadId })
        assert.deepStrictEqual([second.events[0]!.event, second.events[0]!.data], ["thread", { threadId }])
        assert.strictEqual(second.events.at(-1)!.event, "done")

        const list = yield* call("GET", `/api/chat/${t.id}/threads`, { headers: t.h })
        assert.strictEqual(list.status, 200)
        assert.deepStrictEqual(list.json.threads.map((th: any) => [th.threadId, th.messageCount, th.title]), [
          [threadId, 5, "Write an email about pricing"],
          [otherId, 3, "Write a blog about hiring"]
        ])
        assert.isAtLeast(Date.parse(list.json.threads[0].updatedAt), Date.parse(list.json.threads[0].createdAt))
        const limited = yield* call("GET", `/api/chat/${t.id}/threads?limit=1`, { headers: t.h })
        assert.strictEqual(limited.json.threads.length, 1)
        const thread = yield* call("GET", `/api/chat/${t.id}/threads/${threadId}`, { headers: t.h })
        assert.deepStrictEqual(thread.json.messages.map((m: any) => m.role), [
          "user",
          "tool",
          "assistant",
          "user",
          "assistant"
        ])
      }))

    it.effect("a tool named in the message is called inside the chat, and its piece exists", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "chat-tool@x.co" })
        const args = { customerId: t.id, type: "blog", topic: "Chat-made launch notes" }
        const reply = yield* chat(t, { message: `Please use run_content_creation with ${JSON.stringify(args)}` })
        assert.strictEqual(reply.status, 200)
        const order = names(reply)
        assert.deepStrictEqual(order.slice(0, 3), ["thread", "tool_call", "tool_result"])
        assert.strictEqual(order.at(-1), "done")
        assert.include(order, "delta")
        const toolCall = reply.events[1]!.data
        assert.strictEqual(toolCall.name, "run_content_creation")
        assert.deepStrictEqual(toolCall.arguments, args)
        const toolResult = reply.events[2]!.data
        assert.strictEqual(toolResult.name, "run_content_creation")
        const pieceId = toolResult.result.data.id as string
        assert.isString(pieceId)

        const content = yield* call("GET", `/api/content/${t.id}`, { headers: t.h })
        assert.strictEqual(content.status, 200)
        assert.deepStrictEqual(content.json.content.map((p: any) => [p.id, p.type, p.agentId]), [[
          pieceId,
          "blog",
          "chat"
        ]])
        const thread = yield* call("GET", `/api/chat/${t.id}/threads/${reply.events[0]!.data.threadId}`, {
          headers: t.h
        })
        assert.deepStrictEqual(thread.json.messages.map((m: any) => m.role), ["user", "tool", "assistant"])
        const stored = JSON.parse(thread.json.messages[1].content)
        assert.strictEqual(stored.name, "run_content_creation")
        assert.deepStrictEqual(stored.arguments, args)
        assert.strictEqual(stored.result.data.id, pieceId)
      }))

    it.effect(
      "a message of thousands of nested openings is answered at once, its tool given the object after them",
      () =>
        Effect.gen(function*() {
          const t = yield* tenant({ email: "chat-nested@x.co" })
          const message = "query_ga4 " + "{\"a\":".repeat(600) + "}".repeat(1000) + " {\"metrics\":[\"sessions\"]}"
          const reply = yield* chat(t, { message })
          assert.strictEqual(reply.status, 200)
          const order = names(reply)
          assert.deepStrictEqual(order.slice(0, 3), ["thread", "tool_call", "tool_result"])
          assert.strictEqual(order.at(-1), "done")
          assert.strictEqual(reply.events[1]!.data.name, "query_ga4")
          assert.deepStrictEqual(reply.events[1]!.data.arguments, { metrics: ["sessions"] })
        }),
      5_000
    )

    it.effect("the house model answers like a marketer who knows the account: ideas, figures, approvals, profile, limits", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "chat-brewline@x.co" })
        const confirmed = yield* call("POST", `/api/onboard/${t.id}/confirm-profile`, {
          headers: t.h,
          body: {
            brandName: "Brewline Coffee Roasters",
            audience: ["home coffee brewers", "specialty coffee enthusiasts"],
            products: ["coffee subscriptions", "single-origin beans"],
            voice: ["warm"],
            sourceUrl: "https://brewline.example/"
          }
        })
        assert.strictEqual(confirmed.status, 200)
        const textOf = (reply: ChatReply) =>
          reply.events.filter((e) => e.event === "delta").map((e) => e.data.text).join("")

        const question = "What should we post on LinkedIn this week to grow our coffee subscriptions? Give me 3 ideas."
        const ideas = yield* chat(t, { message: question })
        assert.deepStrictEqual([...new Set(names(ideas))], ["thread", "delta", "done"])
        const ideasText = textOf(ideas)
        assert.include(
          ideasText,
          "3 ideas for Brewline Coffee Roasters on LinkedIn, for home coffee brewers and specialty coffee enthusiasts"
        )
        assert.include(ideasText, "single-origin beans")
        assert.include(ideasText, "\n3. ")
        assert.notInclude(ideasText.toLowerCase(), "what should we post")
        assert.notInclude(ideasText, "busy teams")
        assert.notInclude(ideasText, "#")

        const performed = yield* chat(t, { message: "How did our posts perform this week?" })
        assert.deepStrictEqual(performed.events.filter((e) => e.event === "tool_call").map((e) => e.data), [{
          name: "query_ga4",
          arguments: { period: "last_7_days" }
        }])
        assert.match(
          textOf(performed),
          /^In the last 7 days Brewline Coffee Roasters created \d+ pieces? .*published 0/
        )

        const queued = yield* chat(t, { message: "Draft an Instagram post about our cold brew launch" })
        assert.strictEqual(queued.events.find((e) => e.event === "tool_call")!.data.name, "run_content_creation")
        const waiting = yield* chat(t, { message: "What is waiting for my approval?" })
        assert.strictEqual(waiting.events.find((e) => e.event === "tool_call")!.data.name, "query_ga4")
        assert.include(textOf(waiting), "1 piece waits for your approval")

        const profile = textOf(yield* chat(t, { message: "What does our brand profile say?" }))
        assert.include(profile, "Audience: home coffee brewers and specialty coffee enthusiasts")
        assert.include(profile, "Products: coffee subscriptions and single-origin beans")

        const unknown = textOf(yield* chat(t, { message: "Who won the football last night?" }))
        assert.match(unknown, /^I can't answer that one on my own/)
        assert.include(unknown, "language model")
        assert.notInclude(unknown.toLowerCase(), "football")

        const audit = yield* chat(t, { message: "Please audit our site" })
        assert.deepStrictEqual(audit.events.find((e) => e.event === "tool_call")!.data, {
          name: "ai_seo_audit",
          arguments: { url: "https://brewline.example/" }
        })

        // Competitor research writes a brief to the reports and tells it in the chat; nothing joins the content queue.
        const research = yield* chat(t, { message: "Compare us with Asana and Trello" })
        assert.deepStrictEqual(research.events.find((e) => e.event === "tool_call")!.data, {
          name: "run_research",
          arguments: { topic: "coffee subscriptions", competitors: ["Asana", "Trello"] }
        })
        const brief = research.events.find((e) => e.event === "tool_result")!.data.result.data.report
        assert.strictEqual(brief.title, "Competitor brief: Asana and Trello")
        assert.include(
          textOf(research),
          `It wrote the report "Competitor brief: Asana and Trello" (/api/reports/${t.id}/${brief.reportId})`
        )
        const listed = yield* call("GET", `/api/reports/${t.id}`, { headers: t.h })
        assert.deepStrictEqual(listed.json.reports.map((r: any) => r.reportId), [brief.reportId])
        const pending = yield* call("GET", `/api/content/${t.id}?status=pending_approval`, { headers: t.h })
        assert.strictEqual(pending.json.content.length, 1, "only the Instagram draft waits")
      }))

    it.effect("follow-ups are read from the thread: a shorter one, another one, what about a platform, draft it, yes schedule it", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "chat-followups@x.co" })
        const { sql } = yield* TestServer
        const confirmed = yield* call("POST", `/api/onboard/${t.id}/confirm-profile`, {
          headers: t.h,
          body: {
            brandName: "Brewline Coffee Roasters",
            audience: ["home coffee brewers"],
            products: ["coffee subscriptions", "single-origin beans"]
          }
        })
        assert.strictEqual(confirmed.status, 200)
        const textOf = (reply: ChatReply) =>
          reply.events.filter((e) => e.event === "delta").map((e) => e.data.text).join("")
        const fallback = "I can't answer that one on my own"

        const ideas = yield* chat(t, { message: "Give me 3 LinkedIn ideas to grow our coffee subscriptions" })
        const threadId = ideas.events[0]!.data.threadId as string
        assert.include(textOf(ideas), "3 ideas for Brewline Coffee Roasters on LinkedIn")
        const second = /^2\. A LinkedIn post: (.+)\.$/m.exec(textOf(ideas))![1]!
        assert.include(second, "single-origin beans")

        const shorter = textOf(yield* chat(t, { message: "make the second one shorter", threadId }))
        assert.notInclude(shorter, fallback)
        assert.match(shorter, /^Idea 2, shorter: .*single-origin beans\./)
        assert.isBelow(/^Idea 2, shorter: (.+?)\./.exec(shorter)![1]!.length, second.length)

        const another = textOf(yield* chat(t, { message: "another one for X", threadId }))
        assert.notInclude(another, fallback)
        assert.match(
          another,
          /^One more idea for Brewline Coffee Roasters on X, for home coffee brewers:\n\n1\. A short post: /
        )
        // A new idea, not one of the three already given.
        const newIdea = /^1\. A short post: (.+)$/m.exec(another)![1]!
        assert.notInclude(textOf(ideas), newIdea.replace(/\.$/, ""))

        const instagram = textOf(yield* chat(t, { message: "What about Instagram?", threadId }))
        assert.notInclude(instagram, fallback)
        assert.match(
          instagram,
          /^One more idea for Brewline Coffee Roasters on Instagram, for home coffee brewers:\n\n1\. A carousel: /
        )
        const draftIt = yield* chat(t, { message: "Draft the first one", threadId })
        const draftCall = draftIt.events.find((e) => e.event === "tool_call")!.data
        assert.deepStrictEqual([draftCall.name, draftCall.arguments.platform, draftCall.arguments.type], [
          "run_content_creation",
          "instagram",
          "social"
        ])
        assert.include(
          draftIt.events.find((e) => e.event === "tool_result")!.data.result.data.body,
          "Brewline Coffee Roasters"
        )
        if (process.env["SHOW_CHAT"] !== undefined) {
          console.log([textOf(ideas), shorter, another, instagram, textOf(draftIt)].join("\n----\n"))
        }

        // A draft, then "yes, schedule it": the drafted text is queued for its platform at a time given back.
        yield* sql`INSERT INTO social_connections (customer_id, platform, account_name) VALUES (${t.id}, 'linkedin', 'Brewline')`
        const drafted = yield* chat(t, { message: "Draft a LinkedIn post about our single-origin beans" })
        const draftThread = drafted.events[0]!.data.threadId as string
        const created = drafted.events.find((e) => e.event === "tool_result")!.data.result.data
        assert.strictEqual(created.platform, "linkedin")
        assert.include(textOf(drafted), `Say "schedule it"`)
        const shortened = textOf(yield* chat(t, { message: "Make it shorter", threadId: draftThread }))
        assert.match(shortened, /^A shorter version of "/)
        const shortBody = shortened.split("\n\n").slice(1, -1).join("\n\n")
        assert.isBelow(shortBody.length, created.body.length)
        assert.include(created.body, shortBody.split("\n\n")[0]!.replace(/…$/, ""))

        const piecesBefore = (yield* call("GET", `/api/content/${t.id}`, { headers: t.h })).json.content.length
        const scheduled = yield* chat(t, { message: "yes, schedule it", threadId: draftThread })
        const callEvent = scheduled.events.find((e) => e.event === "tool_call")!.data
        assert.strictEqual(callEvent.name, "schedule_content")
        // The drafted piece itself, with the shorter text.
        assert.deepStrictEqual(
          [callEvent.arguments.contentId, callEvent.arguments.platform, callEvent.arguments.body],
          [
            created.id,
            "linkedin",
            shortBody
          ]
        )
        assert.isAbove(Date.parse(callEvent.arguments.scheduledAt), Date.now())
        assert.deepStrictEqual(names(scheduled).filter((n) => n !== "delta"), [
          "thread",
          "tool_call",
          "tool_result",
          "done"
        ])
        const post = scheduled.events.find((e) => e.event === "tool_result")!.data.result.data
        assert.strictEqual(post.id, created.id)
        const stored = yield* call("GET", `/api/content/${t.id}/${post.id}`, { headers: t.h })
        assert.deepStrictEqual([stored.json.status, stored.json.platform, stored.json.body, stored.json.scheduledAt], [
          "approved",
          "linkedin",
          shortBody,
          callEvent.arguments.scheduledAt.replace("Z", ".000Z")
        ])
        // No second piece: the draft was scheduled, not copied.
        assert.strictEqual(
          (yield* call("GET", `/api/content/${t.id}`, { headers: t.h })).json.content.length,
          piecesBefore
        )
        assert.match(
          textOf(scheduled),
          new RegExp(
            `^"${
              escaped(created.title)
            }" is approved and queued for LinkedIn on \\w+ \\d+ \\w+ at 09:00 UTC \\(piece ${post.id}\\); the publisher posts it then for Brewline Coffee Roasters\\.$`
          )
        )
        if (process.env["SHOW_CHAT"] !== undefined) {
          console.log([textOf(drafted), shortened, textOf(scheduled)].join("\n----\n"))
        }

        // Without anything in the thread to lean on, a follow-up is answered for its own words.
        const alone = textOf(yield* chat(t, { message: "make the second one shorter" }))
        assert.include(alone, "Which text should I shorten?")
      }))

    it.effect("'yes, schedule it for tomorrow 9am' schedules the drafted piece itself: one piece, approved, its time set, a publish job queued", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "chat-schedule-draft@x.co" })
        const { sql } = yield* TestServer
        yield* call("POST", `/api/onboard/${t.id}/confirm-profile`, {
          headers: t.h,
          body: { brandName: "Brewline Coffee Roasters", audience: ["home coffee brewers"], products: ["cold brew"] }
        })
        const pieces = () =>
          Effect.map(call("GET", `/api/content/${t.id}`, { headers: t.h }), (r) => r.json.content as Array<any>)
        const jobs = () =>
          sql<{ contentId: string; status: string; dueAt: Date | null }>`SELECT content_id, status, due_at
            FROM publish_jobs WHERE customer_id = ${t.id}`.pipe(Effect.orDie)

        const drafted = yield* chat(t, { message: "Draft a LinkedIn post about our cold brew" })
        const threadId = drafted.events[0]!.data.threadId as string
        const draft = drafted.events.find((e) => e.event === "tool_result")!.data.result.data
        assert.strictEqual(draft.status, "pending_approval")

        // Not connected yet: the tool's refusal, and the draft is left exactly as it was (nothing approved).
        const refused = yield* chat(t, { message: "yes, schedule it for tomorrow 9am", threadId })
        assert.deepStrictEqual(names(refused), ["thread", "tool_call", "error"])
        assert.strictEqual(refused.events[2]!.data.code, "E_PLATFORM_NOT_CONNECTED")
        assert.deepStrictEqual((yield* pieces()).map((p) => [p.id, p.status, p.scheduledAt]), [[
          draft.id,
          "pending_approval",
          null
        ]])
        assert.deepStrictEqual(yield* jobs(), [])

        yield* sql`INSERT INTO social_connections (customer_id, platform, account_name) VALUES (${t.id}, 'linkedin', 'Brewline')`
        const scheduled = yield* chat(t, { message: "yes, schedule it for tomorrow 9am", threadId })
        assert.deepStrictEqual(names(scheduled).filter((n) => n !== "delta"), [
          "thread",
          "tool_call",
          "tool_result",
          "done"
        ])
        const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
        const at = `${tomorrow}T09:00:00.000Z`
        const after = yield* pieces()
        assert.deepStrictEqual(after.map((p) => [p.id, p.status, p.platform, p.body, p.scheduledAt]), [[
          draft.id,
          "approved",
          "linkedin",
          draft.body,
          at
        ]])
        const queued = yield* jobs()
        assert.deepStrictEqual(queued.map((j) => [j.contentId, j.status, new Date(j.dueAt!).toISOString()]), [[
          draft.id,
          "queued",
          at
        ]])
        const answer = deltaText(scheduled)
        const day = new Date(at).toLocaleDateString("en-GB", {
          weekday: "long",
          day: "numeric",
          month: "long",
          timeZone: "UTC"
        })
        assert.strictEqual(
          answer,
          `"${draft.title}" is approved and queued for LinkedIn on ${day} at 09:00 UTC (piece ${draft.id}); the publisher posts it then for Brewline Coffee Roasters.`
        )
        assert.notInclude(answer, "reject")
      }))

    it.effect("ask_cmo over MCP answers from the account and never pitches the brand to itself", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* tenant({ email: "cmo-brewline@x.co" })
        yield* call("POST", `/api/onboard/${owner.id}/confirm-profile`, {
          headers: owner.h,
          body: {
            brandName: "Brewline Coffee Roasters",
            audience: ["home coffee brewers"],
            products: ["cold brew"],
            sourceUrl: "https://brewline.example/"
          }
        })
        const client = yield* httpClient(url, owner.key)
        const ask = (question: string) =>
          Effect.promise(async () =>
            (await client.callTool({ name: "ask_cmo", arguments: { customerId: owner.id, question } })) as any
          )
        const ideas = yield* ask("Give me 2 post ideas for Instagram")
        assert.notStrictEqual(ideas.isError, true)
        const answer = ideas.structuredContent.answer as string
        assert.include(answer, "2 ideas for Brewline Coffee Roasters on Instagram")
        assert.notMatch(answer, /see (?:how|what) Brewline Coffee Roasters/i)
        assert.notMatch(answer, /ask Brewline Coffee Roasters/i)
        const figures = yield* ask("How are we doing this month?")
        assert.deepStrictEqual(figures.structuredContent.toolCalls.map((c: any) => [c.name, c.params]), [["query_ga4", {
          period: "last_30_days"
        }]])
        assert.include(figures.structuredContent.answer, "In the last 30 days Brewline Coffee Roasters created")
        assert.notInclude(JSON.stringify(figures.structuredContent), "_tag")
      }))

    it.effect("tools run for the session's customer: another customer's id in the arguments does not count", () =>
      Effect.gen(function*() {
        const a = yield* tenant({ email: "chat-tool-a@x.co" })
        const b = yield* tenant({ email: "chat-tool-b@x.co" })
        const reply = yield* chat(a, {
          message: `run_content_creation ${JSON.stringify({ customerId: b.id, type: "blog", topic: "Theirs" })}`
        })
        assert.strictEqual(names(reply).at(-1), "done")
        const result = reply.events.find((e) => e.event === "tool_result")!.data
        assert.strictEqual((yield* call("GET", `/api/content/${b.id}`, { headers: b.h })).json.content.length, 0)
        const mine = (yield* call("GET", `/api/content/${a.id}`, { headers: a.h })).json.content
        assert.deepStrictEqual(mine.map((p: any) => p.id), [result.result.data.id])
      }))

    it.effect("a tool the model calls with missing arguments is an error event {error, code}, stored as such, with no internals", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "chat-tool-bad@x.co" })
        const reply = yield* chat(t, { message: "Please run cro_audit {\"depth\": 3}" })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(names(reply), ["thread", "tool_call", "error"])
        const error = reply.events[2]!.data
        assert.deepStrictEqual(Object.keys(error).sort(), ["code", "error"])
        assert.strictEqual(error.code, "E_VALIDATION")
        // The first thing wrong is named: an argument the tool does not take.
        assert.match(error.error, /depth: is not an allowed property/)
        assert.notInclude(reply.raw, "_tag")
        assert.notInclude(reply.raw, "AiError")
        const thread = yield* call("GET", `/api/chat/${t.id}/threads/${reply.events[0]!.data.threadId}`, {
          headers: t.h
        })
        assert.deepStrictEqual(thread.json.messages.map((m: any) => m.role), ["user", "tool"])
        const stored = JSON.parse(thread.json.messages[1].content)
        assert.deepStrictEqual(stored, {
          name: "cro_audit",
          arguments: { depth: 3 },
          error: error.error,
          code: "E_VALIDATION"
        })
      }))

    it.effect("another customer's or an unknown threadId is 404 JSON before any stream; reads too", () =>
      Effect.gen(function*() {
        const a = yield* tenant({ email: "chat-own-a@x.co" })
        const b = yield* tenant({ email: "chat-own-b@x.co" })
        const theirs = (yield* chat(a, { message: "What can you do?" })).events[0]!.data.threadId as string
        for (const threadId of [theirs, "thr_unknown", ""]) {
          const reply = yield* chat(b, { message: "Continue", threadId })
          assert.strictEqual(reply.status, 404, threadId)
          assert.match(reply.contentType ?? "", /^application\/json/)
          assert.strictEqual(reply.json.code, "E_NOT_FOUND")
          assert.deepStrictEqual(reply.events, [])
        }
        const read = yield* call("GET", `/api/chat/${b.id}/threads/${theirs}`, { headers: b.h })
        assert.strictEqual(read.status, 404)
        assert.strictEqual(read.json.code, "E_NOT_FOUND")
        assert.deepStrictEqual((yield* call("GET", `/api/chat/${b.id}/threads`, { headers: b.h })).json.threads, [])
        // Nothing was added to A's thread.
        const own = yield* call("GET", `/api/chat/${a.id}/threads/${theirs}`, { headers: a.h })
        assert.strictEqual(own.json.messages.length, 2)
      }))

    it.effect("validation errors are 400 JSON before any stream", () =>
      Effect.gen(function*() {
        const t = yield* tenant({ email: "chat-valid@x.co" })
        for (
          const body of [
            { message: "" },
            { message: "x".repeat(10_001) },
            { message: "hi", threadId: "t".repeat(201) },
            {},
            { message: "hi", extra: 1 }
          ]
        ) {
          const reply = yield* chat(t, body)
          assert.strictEqual(reply.status, 400, JSON.stringify(body).slice(0, 60))
          assert.strictEqual(reply.json.code, "E_VALIDATION")
        }
        assert.deepStrictEqual((yield* call("GET", `/api/chat/${t.id}/threads`, { headers: t.h })).json.threads, [])
      }))
  }
)

/** The app with the priced OpenAI-compatible provider, keep-alives every 100 ms. */
const AppWithModel = appWithModel({ chatKeepAliveMs: 100 })

layer(AppWithModel, { timeout: 60_000, excludeTestServices: true })("chat with an OpenAI-compatible model", (it) => {
  it.effect("the second message sends the thread's history and the brand profile to the model", () =>
    Effect.gen(function*() {
      const model = yield* ModelServer
      const t = yield* tenant({ email: "chat-history@x.co" })
      yield* call("POST", `/api/onboard/${t.id}/confirm-profile`, {
        headers: t.h,
        body: { brandName: "Crumb Bakery", voice: ["warm"] }
      })
      model.script({ kind: "text", chunks: ["Sourdough ", "every morning."], usage: { prompt: 10, completion: 5 } })
      const first = yield* chat(t, { message: "Give me a slogan" })
      assert.deepStrictEqual(first.events.filter((e) => e.event === "delta").map((e) => e.data.text), [
        "Sourdough ",
        "every morning."
      ])
      const threadId = first.events[0]!.data.threadId as string
      const before = model.requests.length
      yield* chat(t, { message: "Shorter please", threadId })
      const sent = model.requests[before]!.messages as Array<{ role: string; content: string }>
      assert.strictEqual(sent[0]!.role, "system")
      assert.include(sent[0]!.content, "Crumb Bakery")
      // The tools act for the session's customer: the model is given no id to pass on.
      assert.notInclude(sent[0]!.content, t.id)
      assert.deepStrictEqual(sent.slice(1).map((m) => [m.role, m.content]), [
        ["user", "Give me a slogan"],
        ["assistant", "Sourdough every morning."],
        ["user", "Shorter please"]
      ])
      const tools = model.requests[before]!.tools as Array<
        { function: { name: string; parameters: { properties?: object; required?: Array<string> } } }
      >
      assert.isAbove(tools.length, 0)
      for (const tool of tools) {
        assert.notProperty(tool.function.parameters.properties ?? {}, "customerId", tool.function.name)
        assert.notInclude(tool.function.parameters.required ?? [], "customerId", tool.function.name)
      }
    }))

  it.effect("a question about stored reports gives the model that customer's reports in the system prompt; other messages none", () =>
    Effect.gen(function*() {
      const model = yield* ModelServer
      const { services } = yield* TestServer
      const reports = Context.get(services, Reports)
      const [t, other] = [
        yield* tenant({ email: "chat-model-reports@x.co" }),
        yield* tenant({ email: "chat-model-reports-b@x.co" })
      ]
      const mine = yield* reports.record({
        customerId: t.id,
        kind: "seo-audit",
        title: "SEO audit of crumb.example",
        body: "# SEO audit\n\n- Fix (SEO): Missing title."
      })
      const theirs = yield* reports.record({
        customerId: other.id,
        kind: "seo-audit",
        title: "SEO audit of theirs.example",
        body: "# Theirs"
      })
      model.script({ kind: "text", chunks: ["It found a missing title."], usage: { prompt: 10, completion: 5 } })
      const before = model.requests.length
      yield* chat(t, { message: "What did our last SEO audit find?" })
      const system = (model.requests[before]!.messages as Array<{ role: string; content: string }>)[0]!.content
      const line = system.split("\n").find((l) => l.startsWith("Reports (JSON): "))!
      const sent = JSON.parse(line.slice("Reports (JSON): ".length))
      assert.deepStrictEqual(sent.reports.map((r: any) => [r.reportId, r.title, r.url, r.body]), [[
        mine.reportId,
        mine.title,
        `/api/reports/${t.id}/${mine.reportId}`,
        mine.body
      ]])
      assert.notInclude(system, theirs.reportId)
      const next = model.requests.length
      yield* chat(t, { message: "Give me a slogan" })
      assert.notInclude((model.requests[next]!.messages as Array<{ content: string }>)[0]!.content, "Reports (JSON)")
    }))

  it.effect("a client that goes away stops the model call: no more tokens are served", () =>
    Effect.gen(function*() {
      const model = yield* ModelServer
      const { url } = yield* TestServer
      const t = yield* tenant({ email: "chat-disconnect@x.co" })
      const total = 400
      model.script({
        kind: "text",
        chunks: Array.from({ length: total }, (_, i) => `w${i} `),
        usage: { prompt: 10, completion: total },
        intervalMs: 15
      })
      const startServed = model.textChunksServed()
      const startGone = model.clientsGone()
      const seen = yield* Effect.promise(async () => {
        const controller = new AbortController()
        const response = await fetch(`${url}/api/chat/${t.id}`, {
          method: "POST",
          headers: { ...t.h, "content-type": "application/json" },
          body: JSON.stringify({ message: "Write a very long essay" }),
          signal: controller.signal
        })
        const reader = response.body!.getReader()
        const decoder = new TextDecoder()
        let raw = ""
        while ((raw.match(/event: delta/g) ?? []).length < 20) {
          const { value, done } = await reader.read()
          if (done) break
          raw += decoder.decode(value, { stream: true })
        }
        controller.abort()
        await reader.cancel().catch(() => undefined)
        return raw
      })
      assert.isAtLeast((seen.match(/event: delta/g) ?? []).length, 20)
      // The stream carried keep-alive comments while the model was slow.
      assert.include(seen, ": keep-alive\n\n")
      yield* Effect.sleep("400 millis")
      const afterDisconnect = model.textChunksServed() - startServed
      yield* Effect.sleep("600 millis")
      // Nothing more after the disconnect (at 15 ms a chunk, 40 more would have come in 600 ms).
      assert.strictEqual(model.textChunksServed() - startServed, afterDisconnect)
      assert.isBelow(afterDisconnect, 40)
      assert.strictEqual(model.clientsGone() - startGone, 1)
    }))

  it.effect("a budget refusal mid-chat is an error event, and nothing is sent to the model", () =>
    Effect.gen(function*() {
      const model = yield* ModelServer
      const t = yield* tenant({ email: "chat-budget@x.co" })
      // The worst case of one call is at least 1000 output tokens * 10 / 1e6 = 0.01: a cap of 0.005 refuses it.
      assert.strictEqual(
        (yield* call("PUT", `/api/settings/${t.id}/budget`, { headers: t.h, body: { channels: { model: 0.005 } } }))
          .status,
        200
      )
      model.script({ kind: "text", chunks: ["never"], usage: { prompt: 1, completion: 1 } })
      const before = model.requests.length
      const reply = yield* chat(t, { message: "Write a tweet" })
      assert.strictEqual(reply.status, 200)
      assert.deepStrictEqual(names(reply), ["thread", "error"])
      assert.strictEqual(reply.events[1]!.data.code, "E_BUDGET_EXCEEDED")
      assert.include(reply.events[1]!.data.error, "budget")
      assert.strictEqual(model.requests.length, before)
    }))

  it.effect("a model failure after the stream began is an error event, without the provider's words", () =>
    Effect.gen(function*() {
      const model = yield* ModelServer
      const t = yield* tenant({ email: "chat-model-down@x.co" })
      model.script({ kind: "status", status: 500, message: "upstream secret detail" })
      const reply = yield* chat(t, { message: "Write a tweet" })
      assert.strictEqual(reply.status, 200)
      assert.deepStrictEqual(names(reply), ["thread", "error"])
      assert.strictEqual(reply.events[1]!.data.code, "E_UNAVAILABLE")
      assert.notInclude(reply.raw, "upstream secret detail")
      // The user's message is kept; no answer was stored.
      const thread = yield* call("GET", `/api/chat/${t.id}/threads/${reply.events[0]!.data.threadId}`, { headers: t.h })
      assert.deepStrictEqual(thread.json.messages.map((m: any) => m.role), ["user"])
    }))

  it.effect("the OpenAPI document describes the chat answer as an event stream", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/openapi.json")).json
      const post = doc.paths["/api/chat/{customerId}"].post
      assert.deepStrictEqual(Object.keys(post.responses["200"].content), ["text/event-stream"])
      assert.deepStrictEqual(Object.keys(post.requestBody.content), ["application/json"])
      assert.property(doc.paths, "/api/chat/{customerId}/threads/{threadId}")
    }))
})
