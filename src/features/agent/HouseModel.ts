import { Effect, Stream } from "effect"
import { LanguageModel, Prompt, Response, Tool } from "effect/ai"
import { type Brief, type CopyKind, stableHash, writeDraft } from "../../domain/Copywriting.ts"
import { platformBodyLimits } from "../../domain/Content.ts"
import { charLength, lastLineStart } from "../../domain/Text.ts"
import { firstJsonObject } from "./firstJsonObject.ts"

/** The marker before the JSON brief in a system message (the Writer puts it there). */
export const briefMarker = "Brief (JSON): "

const kinds: ReadonlyArray<CopyKind> = ["blog", "social", "email", "ad", "outreach", "report"]

const systemText = (prompt: Prompt.Prompt): string =>
  prompt.content.filter((m): m is Prompt.SystemMessage => m.role === "system").map((m) => m.content).join("\n")

const userText = (message: Prompt.Message | undefined): string =>
  message?.role === "user"
    ? message.content.filter((p): p is Prompt.TextPart => p.type === "text").map((p) => p.text).join("\n")
    : ""

const parseBrief = (system: string): Brief | undefined => {
  const line = system.split("\n").find((l) => l.startsWith(briefMarker))
  if (line === undefined) return undefined
  try {
    const value = JSON.parse(line.slice(briefMarker.length)) as Partial<Brief>
    if (typeof value !== "object" || value === null) return undefined
    return {
      ...value,
      kind: kinds.includes(value.kind as CopyKind) ? value.kind as CopyKind : "social",
      brandName: typeof value.brandName === "string" ? value.brandName : "",
      topic: typeof value.topic === "string" ? value.topic : ""
    }
  } catch {
    return undefined
  }
}

/**
 * The words after the first "about" that runs on to the end of the text on
 * one line (what `/\babout\s+(.+)$/i` captures, without retrying the rest of
 * the line from every "about" before a line break).
 */
const aboutTopic = (text: string): string | undefined => {
  const lastLine = lastLineStart(text)
  for (const about of text.matchAll(/\babout\s+(?=\S)/gi)) {
    const start = about.index + about[0].length
    if (start >= lastLine) return text.slice(start)
  }
  return undefined
}

/** A brief from a free request ("a linkedin post about onboarding"): platform and kind from its words. */
const briefFromRequest = (text: string): Brief => {
  const lower = text.toLowerCase()
  const platform = Object.keys(platformBodyLimits).find((p) => new RegExp(`\\b${p}\\b`).test(lower))
  const kind: CopyKind = platform !== undefined || /\b(?:post|tweet)\b/.test(lower)
    ? "social"
    : /\bemail\b/.test(lower)
    ? "email"
    : /\b(?:ad|advert)\b/.test(lower)
    ? "ad"
    : /\breport\b/.test(lower)
    ? "report"
    : "blog"
  const topic = (aboutTopic(text.trim()) ?? text).replace(/(?<![.?!])[.?!]+$/, "").slice(0, 120)
  return { kind, brandName: "", topic, platform }
}

const toolNamed = (tools: ReadonlyArray<Tool.Any>, text: string): Tool.Any | undefined => {
  const lower = text.toLowerCase()
  return tools.find((t) => lower.includes(t.name.toLowerCase()) || lower.includes(t.name.toLowerCase().replaceAll("_", " ")))
}

export type HouseTurn =
  | { readonly _tag: "text"; readonly text: string }
  | { readonly _tag: "tool"; readonly name: string; readonly params: Record<string, unknown> }

/**
 * What the house model answers to a prompt (pure, so tests can assert it):
 * a tool call when the last user message names an offered tool (its params the
 * first JSON object in the message), a summary after tool results, else a
 * piece written from the brief: the title, a blank line, the body.
 */
export const houseTurn = (options: Pick<LanguageModel.ProviderOptions, "prompt" | "tools" | "toolChoice">): HouseTurn => {
  const messages = options.prompt.content
  const last = messages[messages.length - 1]
  if (last?.role === "tool") {
    const results = last.content.filter((p): p is Prompt.ToolResultPart => p.type === "tool-result")
    const lines = results.map((r) => {
      const json = JSON.stringify(r.result) ?? "null"
      const shown = charLength(json) > 1500 ? `${Array.from(json).slice(0, 1500).join("")}…` : json
      return r.isFailure ? `${r.name} failed: ${shown}` : `${r.name} returned: ${shown}`
    })
    return { _tag: "text", text: lines.length === 0 ? "Done." : `Here is what I found.\n\n${lines.join("\n")}` }
  }
  const request = userText(last)
  const choice = options.toolChoice
  if (options.tools.length > 0 && choice !== "none" && last?.role === "user") {
    const forced = typeof choice === "object" && "tool" in choice
      ? options.tools.find((t) => t.name === choice.tool)
      : undefined
    const tool = forced ?? toolNamed(options.tools, request) ?? (choice === "required" ? options.tools[0] : undefined)
    if (tool !== undefined) return { _tag: "tool", name: tool.name, params: firstJsonObject(request) }
  }
  const brief = parseBrief(systemText(options.prompt)) ?? briefFromRequest(request)
  const draft = writeDraft(brief)
  return { _tag: "text", text: `${draft.title}\n\n${draft.body}` }
}

/** About four characters a token, as the usage figures of a local writer. */
const tokens = (text: string) => Math.ceil(charLength(text) / 4)

const promptTokens = (prompt: Prompt.Prompt) =>
  tokens(prompt.content.map((m) => typeof m.content === "string" ? m.content : JSON.stringify(m.content)).join("\n"))

/** Deltas of a few words each, as a model streams them. */
export const deltas = (text: string): ReadonlyArray<string> => text.match(/\S+\s*|\s+/g)?.reduce<Array<string>>((acc, word, i) => {
  if (i % 3 === 0) acc.push(word)
  else acc[acc.length - 1] += word
  return acc
}, []) ?? []

const parts = (options: LanguageModel.ProviderOptions, turn = houseTurn(options)): Array<Response.StreamPartEncoded> => {
  const inputTokens = promptTokens(options.prompt)
  if (turn._tag === "tool") {
    const id = `call_${stableHash(`${turn.name}:${JSON.stringify(turn.params)}`).toString(36)}`
    return [
      { type: "tool-call", id, name: turn.name, params: turn.params },
      { type: "finish", reason: "tool-calls", usage: { inputTokens: { total: inputTokens }, outputTokens: { total: tokens(JSON.stringify(turn.params)) } } }
    ]
  }
  return [
    { type: "text-start", id: "text_0" },
    ...deltas(turn.text).map((delta): Response.StreamPartEncoded => ({ type: "text-delta", id: "text_0", delta })),
    { type: "text-end", id: "text_0" },
    { type: "finish", reason: "stop", usage: { inputTokens: { total: inputTokens }, outputTokens: { total: tokens(turn.text) } } }
  ]
}

/** The house provider: local, free, deterministic. */
export const makeHouseModel = LanguageModel.make({
  generateText: (options) =>
    Effect.sync(() => {
      const turn = houseTurn(options)
      const streamed = parts(options, turn)
      const finish = streamed[streamed.length - 1]!
      return turn._tag === "text"
        ? [{ type: "text", text: turn.text } as Response.PartEncoded, finish as Response.PartEncoded]
        : (streamed as Array<Response.PartEncoded>)
    }),
  streamText: (options) => Stream.suspend(() => Stream.fromIterable(parts(options)))
})
