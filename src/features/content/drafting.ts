import type { RunContentCreationInput } from "../../api/tools/inputs.ts"
import { platformBodyLimits } from "../../domain/Content.ts"
import { capitalize, fitWords, hashtag, withoutDoubledWords } from "../../domain/Copywriting.ts"
import { charLength } from "../../domain/Text.ts"

export interface Draft {
  readonly title: string
  readonly body: string
}

/** The brief's points: its lines, or its sentences when it is one line. */
export const briefPoints = (brief: string | undefined): ReadonlyArray<string> => {
  if (brief === undefined) return []
  const lines = brief.split(/\r?\n/).map((line) => line.replace(/^\s*[-*•\d.)]+\s*/, "").trim()).filter((l) =>
    l.length > 0
  )
  if (lines.length > 1) return lines
  return brief.split(/(?<=[.!?])\s+/).map((s) => s.trim()).filter((s) => s.length > 0)
}

const link = (input: typeof RunContentCreationInput.Type) => input.url === undefined ? "" : input.url

const closing = (input: typeof RunContentCreationInput.Type) =>
  [input.callToAction, link(input)].filter((part) => part !== undefined && part.length > 0).join(" ")

/**
 * A piece written from the request by fixed rules: the topic as title, the
 * brief's points as the body's substance, the keywords as sections or
 * hashtags, the call to action and link at the end. Nothing is invented
 * (no figures, quotes or claims the request did not make); a social body is
 * fitted to its platform's length.
 */
export const draftPiece = (input: typeof RunContentCreationInput.Type): Draft => {
  const draft = writePiece(input)
  return { title: draft.title, body: fitForPlatform(withoutDoubledWords(draft.body), input.platform) }
}

const writePiece = (input: typeof RunContentCreationInput.Type): Draft => {
  // The topic is the title: a title starts with a capital.
  const topic = capitalize(input.topic.trim().length > 0 ? input.topic.trim() : input.topic)
  const points = briefPoints(input.brief)
  const keywords = input.keywords ?? []
  const end = closing(input)
  switch (input.type) {
    case "blog": {
      const intro = points[0] ?? `This article covers ${topic}.`
      const sections = keywords.length > 0
        ? keywords.map((keyword, i) => `## ${keyword}\n\n${points[i + 1] ?? `How ${keyword} relates to ${topic}.`}`)
        : points.length > 1
        ? [`## Key points\n\n${points.slice(1).map((p) => `- ${p}`).join("\n")}`]
        : []
      const rest = keywords.length > 0 && points.length > keywords.length + 1
        ? [`## More to know\n\n${points.slice(keywords.length + 1).map((p) => `- ${p}`).join("\n")}`]
        : []
      const next = end.length > 0 ? [`## Next step\n\n${end}`] : []
      return { title: topic, body: [`# ${topic}`, intro, ...sections, ...rest, ...next].join("\n\n") }
    }
    case "email": {
      const paragraphs = points.length > 0 ? points : [`A short note about ${topic}.`]
      return {
        title: topic,
        body: ["Hi,", ...paragraphs, ...(end.length > 0 ? [end] : []), "Thanks for reading."].join("\n\n")
      }
    }
    case "outreach": {
      const paragraphs = points.length > 0 ? points : [`I'm reaching out about ${topic}.`]
      return {
        title: topic,
        body: ["Hello,", ...paragraphs, ...(end.length > 0 ? [end] : []), "Best regards"].join("\n\n")
      }
    }
    case "ad": {
      const line = points[0] ?? topic
      const body = [topic, ...(line === topic ? [] : [line]), ...(end.length > 0 ? [end] : [])].join("\n")
      return { title: topic, body: fitForPlatform(body, input.platform) }
    }
    case "social": {
      const tags = keywords.map(hashtag).filter((tag) => tag !== undefined).join(" ")
      const parts = [topic, ...points.slice(0, 2), end, tags].filter((part) => part.length > 0)
      return { title: topic, body: fitForPlatform(socialBody(parts, input.platform), input.platform) }
    }
  }
}

/** Drops trailing points before cutting, so a short platform keeps the topic, the link and the tags whole when it can. */
const socialBody = (parts: ReadonlyArray<string>, platform: string | undefined): string => {
  const limit = platform === undefined ? undefined : platformBodyLimits[platform]
  const full = parts.join("\n\n")
  if (limit === undefined || charLength(full) <= limit) return full
  const [head, ...others] = parts
  const kept = [...others]
  while (kept.length > 0 && charLength([head, ...kept].join("\n\n")) > limit) {
    // The middle points go first; the closing (link) and tags last.
    kept.splice(kept.length > 2 ? 0 : kept.length - 1, 1)
  }
  return [head, ...kept].join("\n\n")
}

const fitForPlatform = (body: string, platform: string | undefined): string => {
  const limit = platform === undefined ? undefined : platformBodyLimits[platform]
  return limit === undefined ? body : fitWords(body, limit)
}
