import { Result, Schema } from "effect"
import { ContentId, RunId } from "./Ids.ts"
import { charLength, isMaxChars, nestedAtMost, storableJson, storableText } from "./Text.ts"

export const ContentType = Schema.Literals(["blog", "social", "email", "ad", "outreach"])
export type ContentType = typeof ContentType.Type

export const ContentStatus = Schema.Literals(["draft", "pending_approval", "approved", "published", "rejected"])
export type ContentStatus = typeof ContentStatus.Type

/** What a caller does to a piece; the state machine decides the resulting status. */
export type ContentAction = "approve" | "reject" | "edit" | "publish" | "submit"

export const ReviewAction = Schema.Literals(["approve", "reject"])
export type ReviewAction = typeof ReviewAction.Type

/**
 * Every allowed move (docs/api-rules.md, "Content, autonomy and budget"). Edits keep draft and
 * pending_approval where they are; an edited rejected piece goes back to draft.
 */
export const allowedMoves: Readonly<Record<ContentStatus, ReadonlyArray<ContentStatus>>> = {
  draft: ["draft", "pending_approval", "approved", "rejected"],
  pending_approval: ["pending_approval", "approved", "rejected"],
  rejected: ["draft"],
  approved: ["published"],
  published: []
}

/** The statuses a new piece may start in. */
export const initialStatuses: ReadonlyArray<ContentStatus> = ["draft", "pending_approval", "approved"]

const targetOf = (from: ContentStatus, action: ContentAction): ContentStatus => {
  switch (action) {
    case "approve":
      return "approved"
    case "reject":
      return "rejected"
    case "publish":
      return "published"
    case "submit":
      return "pending_approval"
    case "edit":
      return from === "rejected" ? "draft" : from
  }
}

export interface ForbiddenMove {
  readonly from: ContentStatus
  readonly to: ContentStatus
  readonly action: ContentAction
}

const label = (status: ContentStatus) => status.replace("_", " ")

export const describeForbiddenMove = ({ action, from, to }: ForbiddenMove): string =>
  action === "edit"
    ? `${label(from)} content cannot be edited (only draft, pending_approval and rejected pieces can)`
    : action === "submit"
    ? `Only a draft can be submitted for approval; this piece is ${
      label(from)
    } (the move from ${from} to ${to} is not allowed)`
    : `Cannot ${action} content: the move from ${from} to ${to} is not allowed`

/** The one state machine every change of a piece goes through. Submitting is the draft's own move. */
export const transition = (from: ContentStatus, action: ContentAction): Result.Result<ContentStatus, ForbiddenMove> => {
  const to = targetOf(from, action)
  const allowed = allowedMoves[from].includes(to) && (action !== "submit" || from === "draft")
  return allowed ? Result.succeed(to) : Result.fail({ from, to, action })
}

/** Pieces in these statuses may be deleted; approved and published ones are kept. */
export const deletableStatuses: ReadonlyArray<ContentStatus> = ["draft", "rejected"]

/** Why a piece in `status` cannot be deleted, or undefined when it can. */
export const deleteRefusal = (status: ContentStatus): string | undefined =>
  deletableStatuses.includes(status)
    ? undefined
    : `${label(status)} content cannot be deleted (only draft and rejected pieces can)`

/** Body length limits by platform; other platforms have none. */
export const platformBodyLimits: Readonly<Record<string, number>> = {
  x: 280,
  linkedin: 3000,
  instagram: 2200,
  facebook: 63206,
  tiktok: 2200,
  pinterest: 500
}

/** A message when `body` is too long for `platform`, else undefined. */
export const bodyLimitViolation = (platform: string | null | undefined, body: string | null | undefined) => {
  const limit = platform == null ? undefined : platformBodyLimits[platform]
  return limit !== undefined && body != null && charLength(body) > limit
    ? `must be at most ${limit} characters for ${platform}`
    : undefined
}

export const Platform = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9_.-]{0,39}$/, {
    message: "must be 1 to 40 lowercase letters, digits, '_', '.' or '-'"
  })
).annotate({
  description: "Where the piece goes: x, linkedin, instagram, facebook, tiktok, pinterest, or another channel name"
})

export const Title = Schema.String.check(Schema.isMinLength(1), isMaxChars(300), storableText)
export const Body = Schema.String.check(Schema.isMinLength(1), isMaxChars(100_000), storableText)
export const ReviewNote = Schema.String.check(isMaxChars(1000), storableText)

/** Free-form data kept with a piece (e.g. `spend` of an ad); at most 50 keys of up to 40 characters, 16 levels deep. */
export const Metadata = Schema.Record(Schema.String, Schema.Unknown).check(
  Schema.isMaxProperties(50, { message: "must have at most 50 keys" }),
  Schema.isPropertyNames(Schema.String.check(isMaxChars(40)), { message: "keys must be at most 40 characters" }),
  nestedAtMost(16),
  storableJson
).annotate({ description: "Free-form object, at most 50 keys of up to 40 characters, nested at most 16 levels" })

const nullableDateTime = Schema.NullOr(Schema.String.annotate({ format: "date-time" }))

export const ContentPiece = Schema.Struct({
  id: ContentId,
  type: ContentType,
  status: ContentStatus,
  platform: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String),
  metadata: Schema.Record(Schema.String, Schema.Unknown),
  publishedUrl: Schema.NullOr(Schema.String.annotate({ format: "uri" })),
  publishedAt: nullableDateTime,
  scheduledAt: nullableDateTime,
  reviewNote: Schema.NullOr(Schema.String),
  agentId: Schema.NullOr(Schema.String),
  runId: Schema.NullOr(RunId),
  createdAt: Schema.String.annotate({ format: "date-time" })
}).annotate({ identifier: "ContentPiece" })
export type ContentPiece = typeof ContentPiece.Type

/** A body too long for its platform fails the schema, so the 400 names `body`. */
const withinPlatformLimit = Schema.makeFilter(
  (input: { readonly platform?: string | undefined; readonly body: string }) => {
    const message = bodyLimitViolation(input.platform, input.body)
    return message === undefined ? undefined : { path: ["body"], issue: message }
  }
)

export const NewContent = Schema.Struct({
  type: ContentType,
  platform: Schema.optionalKey(Platform),
  title: Schema.optionalKey(Title),
  body: Body,
  metadata: Schema.optionalKey(Metadata),
  submit: Schema.optionalKey(Schema.Boolean)
}).check(withinPlatformLimit).annotate({ identifier: "NewContent" })
export type NewContent = typeof NewContent.Type

export const ContentUpdate = Schema.Struct({
  title: Schema.optionalKey(Title),
  body: Schema.optionalKey(Body),
  metadata: Schema.optionalKey(Metadata)
}).annotate({ identifier: "ContentUpdate", description: "Only `title`, `body` and `metadata`; no other properties" })
export type ContentUpdate = typeof ContentUpdate.Type

export const Review = Schema.Struct({
  action: ReviewAction,
  note: Schema.optionalKey(ReviewNote)
}).annotate({ identifier: "ContentReview" })
