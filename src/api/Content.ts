import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ContentPiece, ContentStatus, ContentType, ContentUpdate, NewContent, Review } from "../domain/Content.ts"
import { InvalidCursor, InvalidTransition, ValidationError } from "../domain/Errors.ts"
import { ContentIdPath } from "../domain/Ids.ts"
import { isMaxChars, storableText } from "../domain/Text.ts"
import { Authentication, RequiredRole } from "./Security.ts"
import { CustomerIdParam, EmptyObject, intQuery, NotFoundError, strictParse, StrictPayload } from "./Shared.ts"

const ContentIdParams = { ...CustomerIdParam, contentId: ContentIdPath }

const transitions =
  "Moves: (new) → draft | pending_approval | approved; draft → pending_approval (submit); draft, pending_approval → approved | rejected (review); rejected → draft (edit); approved → published. Any other move is 409 `E_INVALID_TRANSITION`."

export class ContentApi extends HttpApiGroup.make("content")
  .add(
    HttpApiEndpoint.get("list", "/api/content/:customerId", {
      params: CustomerIdParam,
      query: {
        status: Schema.optional(ContentStatus),
        type: Schema.optional(ContentType),
        // Any name filters (one no piece has finds nothing); only creation holds platforms to their pattern.
        platform: Schema.optional(Schema.String.check(isMaxChars(100), storableText)),
        limit: Schema.optional(intQuery(1, 100, 25)),
        cursor: Schema.optional(Schema.String.check(Schema.isMaxLength(1000)))
      },
      success: Schema.Struct({ content: Schema.Array(ContentPiece), nextCursor: Schema.NullOr(Schema.String) }),
      error: InvalidCursor
    }).annotateMerge(OpenApi.annotations({
      summary: "List content",
      description:
        "Newest first. Filters combine. `limit` 1-100 (default 25). Pass `nextCursor` as `cursor` for the next page; it is null on the last page. Cursors are opaque and signed: an altered one is 400 `E_INVALID_CURSOR`. Rows created while paging never shift a page."
    })),
    HttpApiEndpoint.post("create", "/api/content/:customerId", {
      params: CustomerIdParam,
      payload: NewContent,
      success: ContentPiece
    }).annotate(RequiredRole, "editor").annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Create a piece",
      description:
        "A person's piece starts as `draft`, or `pending_approval` with `submit: true`. Bodies for x, linkedin, instagram, facebook, tiktok and pinterest must fit the platform's length. `metadata` keeps the key order it was given. Any property not named here is 400 `E_VALIDATION`. Emits `content.created`. Editor role."
    })),
    HttpApiEndpoint.get("get", "/api/content/:customerId/:contentId", {
      params: ContentIdParams,
      success: ContentPiece,
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Get a piece",
      description: "One piece of the customer's content by id; an id that names none of them is 404 `E_NOT_FOUND`."
    })),
    HttpApiEndpoint.put("update", "/api/content/:customerId/:contentId", {
      params: ContentIdParams,
      payload: ContentUpdate,
      success: ContentPiece,
      error: [NotFoundError, InvalidTransition, ValidationError]
    }).annotate(RequiredRole, "editor").annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Edit a piece",
      description:
        `Replaces the given fields; no other properties. Allowed in draft, pending_approval and rejected; an edited rejected piece returns to draft. Editing an approved or published piece is 409 (\`approved content cannot be edited\`). Writes \`content.updated\` to the event log. ${transitions} Editor role.`
    })),
    HttpApiEndpoint.delete("remove", "/api/content/:customerId/:contentId", {
      params: ContentIdParams,
      success: Schema.Struct({ deleted: Schema.Boolean }),
      error: [NotFoundError, InvalidTransition]
    }).annotate(RequiredRole, "editor").annotateMerge(OpenApi.annotations({
      summary: "Delete a piece",
      description:
        "Deletes a draft or rejected piece and answers `{deleted: true}`; an approved, pending or published piece is 409 `E_INVALID_TRANSITION`. Writes `content.deleted` to the event log. Editor role."
    })),
    HttpApiEndpoint.post("submit", "/api/content/:customerId/:contentId/submit", {
      params: ContentIdParams,
      payload: EmptyObject,
      success: ContentPiece,
      error: [NotFoundError, InvalidTransition]
    }).annotate(RequiredRole, "editor").annotateMerge(OpenApi.annotations({
      summary: "Submit a draft for approval",
      description:
        `Moves a draft to \`pending_approval\`; any other status is 409 \`E_INVALID_TRANSITION\`. Writes \`content.submitted\` to the event log. ${transitions} Editor role.`
    })),
    HttpApiEndpoint.post("review", "/api/content/:customerId/:contentId/review", {
      params: ContentIdParams,
      payload: Review,
      success: ContentPiece,
      error: [NotFoundError, InvalidTransition]
    }).annotate(RequiredRole, "editor").annotateMerge(OpenApi.annotations({
      summary: "Approve or reject a piece",
      description:
        `\`approve\` or \`reject\` a draft or pending piece; the note is kept as \`reviewNote\`. Emits \`content.approved\` or \`content.rejected\`. Of concurrent reviews of one piece exactly one succeeds. ${transitions} Editor role.`
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Content", description: "Content pieces and their approval" }))
{}
