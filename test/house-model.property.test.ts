import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import { LanguageModel, Prompt, Tool, Toolkit } from "effect/ai"
import fc from "fast-check"
import { platformBodyLimits } from "../src/domain/Content.ts"
import { type Brief, writeDraft } from "../src/domain/Copywriting.ts"
import { CustomerId } from "../src/domain/Ids.ts"
import { reportQuestionOf } from "../src/domain/Reports.ts"
import { charLength } from "../src/domain/Text.ts"
import { agentTurn, Writer } from "../src/features/agent/Agent.ts"
import {
  competitorsIn,
  followUpOf,
  houseTurn,
  intentOf,
  makeHouseModel,
  profileMarker,
  scheduledTime,
  shorten
} from "../src/features/agent/HouseModel.ts"
import { type ReportInPrompt, reportsLine } from "../src/features/agent/ReportAnswer.ts"

const platforms = Object.keys(platformBodyLimits)
const words = fc.string({ minLength: 0, maxLength: 400, unit: "grapheme" })

const brief: fc.Arbitrary<Brief> = fc.record({
  kind: fc.constantFrom("blog", "social", "email", "ad", "outreach", "report"),
  brandName: words,
  topic: words,
  platform: fc.option(fc.constantFrom(...platforms, "web", "newsletter"), { nil: undefined }),
  description: fc.option(words, { nil: undefined }),
  voice: fc.option(fc.constantFrom("playful", "formal", "warm"), { nil: undefined }),
  audience: fc.option(words, { nil: undefined }),
  products: fc.option(fc.array(words, { maxLength: 4 }), { nil: undefined }),
  keywords: fc.option(fc.array(words, { maxLength: 6 }), { nil: undefined }),
  url: fc.option(fc.webUrl(), { nil: undefined }),
  angle: fc.option(fc.nat(50), { nil: undefined }),
  facts: fc.option(fc.array(words, { maxLength: 30 }), { nil: undefined })
})

describe("house writer", () => {
  it("is deterministic: the same brief gives the same piece", () => {
    fc.assert(fc.property(brief, (b) => {
      assert.deepStrictEqual(writeDraft(b), writeDraft(structuredClone(b)))
    }))
  })

  it("fits every platform's length limit, with a non-empty title and body", () => {
    fc.assert(
      fc.property(brief, (b) => {
        const draft = writeDraft(b)
        // A report is read in Herald, never posted: no platform limit applies to it.
        const limit = b.platform == null || b.kind === "report" ? undefined : platformBodyLimits[b.platform]
        if (limit !== undefined) assert.isAtMost(charLength(draft.body), limit)
        assert.isAtMost(charLength(draft.title), 300)
        assert.isAbove(draft.body.trim().length, 0)
        assert.isAbove(draft.title.trim().length, 0)
      }),
      { numRuns: 300 }
    )
  })

  it("writes the brand, topic, CTA and hashtags into a social post", () => {
    const draft = writeDraft({
      kind: "social",
      platform: "linkedin",
      brandName: "Acme Bakery",
      topic: "Sourdough starters",
      url: "https://acme.example"
    })
    assert.include(draft.body, draft.hook)
    assert.include(draft.body.toLowerCase(), "sourdough starters")
    assert.include(draft.body, draft.cta)
    assert.deepStrictEqual(draft.hashtags.slice(0, 1), ["#SourdoughStarters"])
    for (const tag of draft.hashtags) assert.include(draft.body, tag)
    assert.notDeepEqual(
      writeDraft({
        kind: "social",
        platform: "linkedin",
        brandName: "Acme Bakery",
        topic: "Sourdough starters",
        angle: 1
      }).body,
      draft.body
    )
  })

  it.effect("as a LanguageModel: streams deltas that add up to generateText's answer, and the Writer keeps limits", () =>
    Effect.gen(function*() {
      const model = yield* makeHouseModel
      const prompt = "Write an x post about spring sales for shoppers"
      const streamed = yield* Stream.runCollect(model.streamText({ prompt }))
      const deltas = streamed.filter((p) => p.type === "text-delta").map((p) => (p as { delta: string }).delta)
      assert.isAbove(deltas.length, 3)
      const generated = yield* model.generateText({ prompt })
      assert.strictEqual(deltas.join(""), generated.text)
      assert.isAtMost(charLength(generated.text.split("\n\n").slice(1).join("\n\n")), 280)
      const writer = yield* Writer.pipe(
        Effect.provide(Writer.layer),
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      for (const platform of platforms) {
        const written = yield* writer.write(CustomerId.make("c"), { brandName: "Acme", audience: "bakers" }, {
          kind: "social",
          platform,
          topic: "flour"
        })
        assert.isAtMost(charLength(written.body), platformBodyLimits[platform]!)
        assert.include(written.body.toLowerCase(), "flour")
      }
    }))

  it("calls an offered tool the request names, with the request's JSON as params, then summarises its result", () => {
    const tool = Tool.make("scan_site", { parameters: Schema.Struct({ url: Schema.String }), success: Schema.Unknown })
    const prompt = Prompt.make([{ role: "user", content: "Please scan_site {\"url\":\"https://a.example\"}" }])
    assert.deepStrictEqual(houseTurn({ prompt, tools: [tool], toolChoice: "auto" }), {
      _tag: "tool",
      name: "scan_site",
      params: { url: "https://a.example" }
    })
    assert.strictEqual(houseTurn({ prompt, tools: [tool], toolChoice: "none" })._tag, "text")
    const after = Prompt.make([
      { role: "user", content: "scan_site" },
      { role: "assistant", content: [{ type: "tool-call", id: "1", name: "scan_site", params: {} }] },
      {
        role: "tool",
        content: [{ type: "tool-result", id: "1", name: "scan_site", isFailure: false, result: { score: 91 } }]
      }
    ])
    const turn = houseTurn({ prompt: after, tools: [tool], toolChoice: "auto" })
    assert.deepStrictEqual(turn, { _tag: "text", text: "scan_site returned: {\"score\":91}" })
    const summarised = Prompt.make([
      { role: "user", content: "scan_site" },
      { role: "assistant", content: [{ type: "tool-call", id: "1", name: "scan_site", params: {} }] },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          id: "1",
          name: "scan_site",
          isFailure: false,
          result: { summary: "SEO 91.", data: {} }
        }]
      }
    ])
    assert.deepStrictEqual(houseTurn({ prompt: summarised, tools: [tool], toolChoice: "auto" }), {
      _tag: "text",
      text: "SEO 91."
    })
  })

  it.effect("an agent turn loops tool rounds until the model answers, within the bound", () =>
    Effect.gen(function*() {
      const Lookup = Tool.make("lookup_brand", {
        parameters: Schema.Struct({ name: Schema.String }),
        success: Schema.Struct({ name: Schema.String, voice: Schema.String })
      })
      const Tools = Toolkit.make(Lookup)
      const toolkit = yield* Tools.pipe(Effect.provide(Tools.toLayer(Tools.of({
        lookup_brand: ({ name }) => Effect.succeed({ name, voice: "warm" })
      }))))
      const model = yield* makeHouseModel
      const prompt = "Please lookup_brand {\"name\":\"Acme\"}"
      const turn = yield* agentTurn({ customerId: CustomerId.make("c"), prompt, toolkit, maxRounds: 5 }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      assert.strictEqual(turn.rounds, 2)
      assert.deepStrictEqual(turn.toolCalls, [{
        name: "lookup_brand",
        params: { name: "Acme" },
        result: { name: "Acme", voice: "warm" }
      }])
      assert.strictEqual(turn.text, "lookup_brand returned: {\"name\":\"Acme\",\"voice\":\"warm\"}")
      const bounded = yield* agentTurn({ customerId: CustomerId.make("c"), prompt, toolkit, maxRounds: 1 }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      assert.strictEqual(bounded.rounds, 1)
      assert.strictEqual(bounded.toolCalls.length, 1)
    }))

  it("reads what a request asks for as a marketer would", () => {
    const cases: ReadonlyArray<readonly [string, ReturnType<typeof intentOf>]> = [
      ["What should we post on LinkedIn this week to grow our coffee subscriptions? Give me 3 ideas.", "ideas"],
      ["How did our posts perform this week?", "performance"],
      ["What is waiting for my approval?", "approvals"],
      ["Run an SEO audit of https://a.example", "audit"],
      ["Schedule it for Monday", "publish"],
      ["Draft a blog post about cold brew", "draft"],
      ["What does our brand profile say?", "profile"],
      ["What can you do?", "capabilities"],
      ["Compare us with Asana and Trello", "research"],
      ["Who won the football?", "unknown"],
      // Reading a stored report is not running a new audit or brief.
      ["What did our last SEO audit find?", "reports"],
      ["Show me the latest performance report", "reports"],
      ["List our reports", "reports"],
      ["Which audits have we run?", "reports"],
      ["What did the competitor brief say about pricing?", "reports"],
      ["Can you run an SEO audit?", "audit"],
      ["Audit our site", "audit"],
      ["Give me a performance report", "performance"]
    ]
    for (const [text, intent] of cases) assert.strictEqual(intentOf(text), intent, text)
  })

  it("answers a report question from the reports line alone: a subject it does not name, a kind missing, no line at all", () => {
    const answer = (question: string, reports?: ReadonlyArray<ReportInPrompt>) => {
      const asked = reportQuestionOf(question)!
      const turn = houseTurn({
        prompt: Prompt.make([
          {
            role: "system",
            content: [
              `${profileMarker}{"brandName":"Crumb Bakery"}`,
              ...(reports === undefined ? [] : [reportsLine(asked, reports)])
            ].join("\n")
          },
          { role: "user", content: question }
        ]),
        tools: [],
        toolChoice: "auto"
      })
      assert.strictEqual(turn._tag, "text")
      return turn._tag === "text" ? turn.text : ""
    }
    const audit: ReportInPrompt = {
      reportId: "rep_1",
      kind: "seo-audit",
      title: "SEO audit of crumb.example",
      createdAt: "2026-11-20T08:00:00.000Z",
      url: "/api/reports/c/rep_1",
      figures: [{ label: "SEO score", value: 71 }, { label: "Revenue", value: 1250, currency: "USD" }],
      body: "# SEO audit\n\n## Findings\n\n- SEO score: 71/100\n\n- Fix (SEO): Missing title."
    }
    assert.strictEqual(
      answer("What did the last audit say about pricing?", [audit]),
      `The latest SEO audit is "SEO audit of crumb.example" (20 November 2026). It says nothing about pricing.\n\nKey figures: SEO score 71, Revenue $1,250.00.\n\nRead it whole: /api/reports/c/rep_1`
    )
    assert.strictEqual(
      answer("What did the last audit find?", [audit]),
      `The latest SEO audit is "SEO audit of crumb.example" (20 November 2026).\n\nKey figures: SEO score 71, Revenue $1,250.00.\n\nWhat it found:\n- Fix (SEO): Missing title.\n\nRead it whole: /api/reports/c/rep_1`
    )
    const both = answer("What did our last SEO audit and competitor brief find?", [audit])
    assert.include(both, "SEO audit of crumb.example")
    assert.match(both, /No competitor brief is stored yet: ask me to compare you with your competitors/)
    assert.match(answer("What did our last SEO audit find?"), /^Which report do you mean\?/)
  })

  it("reads which stored reports a question asks for: kinds, a list or one, and its subject", () => {
    assert.deepStrictEqual(reportQuestionOf("What did our last SEO audit find?"), { kinds: ["seo-audit"], list: false })
    assert.deepStrictEqual(reportQuestionOf("what did the competitor brief say about Pricing?"), {
      kinds: ["competitor-brief"],
      list: false,
      about: "pricing"
    })
    assert.deepStrictEqual(reportQuestionOf("list our reports"), {
      kinds: ["seo-audit", "competitor-brief", "performance-report"],
      list: true
    })
    assert.deepStrictEqual(reportQuestionOf("Which audits have we run?"), { kinds: ["seo-audit"], list: true })
    for (
      const text of ["Run an SEO audit of https://a.example", "Write a report about cold brew", "Compare us with Asana"]
    ) {
      assert.isUndefined(reportQuestionOf(text), text)
    }
  })

  it("never pastes an unknown question into a template: it says what it can do", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 12, maxLength: 80 }).filter((q) => intentOf(q) === "unknown" && /\p{L}{4}/u.test(q)),
        (question) => {
          const turn = houseTurn({
            prompt: Prompt.make([{ role: "user", content: question }]),
            tools: [],
            toolChoice: "auto"
          })
          assert.strictEqual(turn._tag, "text")
          if (turn._tag === "text") {
            assert.notInclude(turn.text, question.trim())
            assert.include(turn.text, "language model")
          }
        }
      )
    )
  })

  it("reads a follow-up against the request it follows, and leaves a request that stands alone", () => {
    const previous = { text: "Give me 3 LinkedIn ideas", offset: 0 }
    assert.deepStrictEqual(followUpOf("make the second one shorter", previous), { _tag: "shorter", item: 1 })
    assert.deepStrictEqual(followUpOf("Make it shorter please", previous), { _tag: "shorter", item: undefined })
    assert.deepStrictEqual(followUpOf("shorten the last one", previous), { _tag: "shorter", item: -1 })
    assert.deepStrictEqual(followUpOf("another one for X", previous), {
      _tag: "ask",
      ask: { ...previous, count: 1, offset: 3, platform: "x" }
    })
    assert.deepStrictEqual(followUpOf("What about Instagram?", previous), {
      _tag: "ask",
      ask: { ...previous, platform: "instagram" }
    })
    assert.deepStrictEqual(followUpOf("what about cold brew?", previous), {
      _tag: "ask",
      ask: { ...previous, topic: "cold brew" }
    })
    assert.deepStrictEqual(followUpOf("yes, schedule it", previous), { _tag: "schedule", now: false })
    assert.deepStrictEqual(followUpOf("publish it now", previous), { _tag: "schedule", now: true })
    assert.deepStrictEqual(followUpOf("draft idea 3", previous), { _tag: "draft", item: 2 })
    // Requests that stand on their own are not follow-ups, whatever words they share with one.
    assert.isUndefined(followUpOf("Draft a post about the first day of spring", previous))
    assert.isUndefined(followUpOf("What about Instagram?", undefined))
    assert.isUndefined(followUpOf("How did our posts perform this week?", previous))
  })

  it("a shorter text keeps its opening, its close and its hashtags, by whole paragraphs or sentences", () => {
    fc.assert(
      fc.property(
        fc.array(fc.lorem({ maxCount: 30 }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (paragraphs, tagged) => {
          const body = [...paragraphs, ...(tagged ? ["#Coffee #ColdBrew"] : [])].join("\n\n")
          const shorter = shorten(body)
          assert.isAtMost(shorter.length, body.length)
          if (tagged) assert.isTrue(shorter.endsWith("\n\n#Coffee #ColdBrew"))
          assert.notInclude(shorter, "…")
          if (paragraphs.length > 2) {
            assert.deepStrictEqual(shorter.split("\n\n").slice(0, 2), [paragraphs[0], paragraphs.at(-1)])
          }
        }
      )
    )
    const body = "Fresh beans weekly. We roast on Mondays. Brewline ships on Tuesdays. Try a bag today!\n\n#Coffee"
    assert.strictEqual(
      shorten(body, "Brewline"),
      "Fresh beans weekly. Brewline ships on Tuesdays. Try a bag today!\n\n#Coffee"
    )
    assert.strictEqual(shorten("One line only.", "Brewline"), "One line only.")
  })

  it("reads the competitors a request names, never a phrase of the request", () => {
    assert.deepStrictEqual(competitorsIn("Compare us with Asana and Trello"), ["Asana", "Trello"])
    assert.deepStrictEqual(competitorsIn("Research our competitors: https://a.example, Rival Co"), [
      "https://a.example",
      "Rival Co"
    ])
    assert.deepStrictEqual(competitorsIn("What are our competitors doing with their pricing?"), [])
    assert.deepStrictEqual(competitorsIn("I'd like a competitor brief"), [])
    const research = Tool.make("run_research", {
      parameters: Schema.Struct({ topic: Schema.String }),
      success: Schema.Unknown
    })
    const system = `Brand profile (JSON): ${
      JSON.stringify({ brandName: "Brewline", products: ["coffee subscriptions"] })
    }`
    const turn = houseTurn({
      prompt: Prompt.make([{ role: "system", content: system }, {
        role: "user",
        content: "Compare us with Asana and Trello"
      }]),
      tools: [research],
      toolChoice: "auto"
    })
    assert.deepStrictEqual(turn, {
      _tag: "tool",
      name: "run_research",
      params: { topic: "coffee subscriptions", competitors: ["Asana", "Trello"] }
    })
  })

  it("'schedule it' at the day and time it names, in UTC, never in the past; tomorrow at 09:00 when it names none", () => {
    const now = new Date("2026-11-26T10:00:00Z") // a Thursday
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["yes, schedule it", "2026-11-27T09:00:00Z"],
      ["schedule it at 3pm", "2026-11-26T15:00:00Z"],
      ["schedule it at 9 am", "2026-11-27T09:00:00Z"],
      ["schedule it for Monday at 10:30", "2026-11-30T10:30:00Z"],
      ["schedule it today at 18:00", "2026-11-26T18:00:00Z"],
      ["schedule it tomorrow at 12am", "2026-11-27T00:00:00Z"],
      ["schedule it for Thursday", "2026-12-03T09:00:00Z"],
      // A time without "at" that says it is one.
      ["yes, schedule it for tomorrow 9am", "2026-11-27T09:00:00Z"],
      ["schedule it friday 3 pm", "2026-11-27T15:00:00Z"],
      ["schedule it today 15:30", "2026-11-26T15:30:00Z"],
      ["schedule it for the 2 of us", "2026-11-27T09:00:00Z"]
    ]
    for (const [text, at] of cases) assert.strictEqual(scheduledTime(text, now), at, text)
  })
})
