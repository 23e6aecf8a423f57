import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict as ConflictError } from "../domain/Errors.ts"
import { InvitedMember, TeamInvite, TeamMember } from "../domain/Identity.ts"
import { PathId } from "../domain/Text.ts"
import { Authentication, RequiredRole } from "./Security.ts"
import { CustomerIdParam, NoStore, NotFoundError, strictParse, StrictPayload } from "./Shared.ts"

export class TeamApi extends HttpApiGroup.make("team")
  .add(
    HttpApiEndpoint.post("invite", "/api/team/:customerId/members", {
      params: CustomerIdParam,
      payload: TeamInvite,
      success: InvitedMember,
      error: ConflictError
    }).annotate(StrictPayload, strictParse).annotate(NoStore, true).annotateMerge(OpenApi.annotations({
      summary: "Invite a team member",
      description:
        "Issues a member key with the given role (admin, editor or viewer), shown once. Emits `team.invited`. " +
        "An address that already has a live membership is 409 E_CONFLICT. Admin role."
    })),
    HttpApiEndpoint.get("list", "/api/team/:customerId/members", {
      params: CustomerIdParam,
      success: Schema.Struct({ members: Schema.Array(TeamMember) })
    }).annotate(RequiredRole, "admin").annotateMerge(OpenApi.annotations({
      summary: "List team members",
      description:
        "Live memberships, oldest first. Member keys are never listed. Admin role: member lists are personal data."
    })),
    HttpApiEndpoint.delete("remove", "/api/team/:customerId/members/:memberId", {
      params: { ...CustomerIdParam, memberId: PathId },
      success: Schema.Struct({ deleted: Schema.Boolean }),
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({
      summary: "Revoke a team member and its key",
      description: "The member's key stops working at once. Emits `team.removed`."
    }))
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Team", description: "Team-member keys restricted by role" }))
{}
