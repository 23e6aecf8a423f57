import { Schema } from "effect"
import { CustomerId } from "./Ids.ts"
import { isMaxChars, storableText } from "./Text.ts"

export const CustomerStatus = Schema.Literals(["onboarding", "active", "suspended", "cancelled"])
export type CustomerStatus = typeof CustomerStatus.Type

export const Role = Schema.Literals(["owner", "admin", "editor", "viewer"])
export type Role = typeof Role.Type

/** Roles a member key may hold; `owner` is the customer's own key. */
export const MemberRole = Schema.Literals(["admin", "editor", "viewer"])
export type MemberRole = typeof MemberRole.Type

const rank: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 }

/** True when `role` carries at least the rights of `required`. */
export const roleAllows = (role: Role, required: Role): boolean => rank[role] >= rank[required]

const viewerScopes = ["read:content", "read:analytics", "read:workflows", "read:settings", "read:events"]
const editorScopes = [...viewerScopes, "write:content", "review:content", "publish:social"]
const adminScopes = [
  ...editorScopes,
  "write:settings",
  "write:workflows",
  "write:webhooks",
  "write:team",
  "run:scans",
  "use:chat"
]

/**
 * OAuth-style scopes published in the protected-resource metadata, by role.
 * Each role holds every scope of the role below it, then its own.
 */
export const scopesByRole: Record<Role, ReadonlyArray<string>> = {
  viewer: viewerScopes,
  editor: editorScopes,
  admin: adminScopes,
  owner: [...adminScopes, "rotate:key"]
}

export const Email = Schema.String.check(
  Schema.isMaxLength(254),
  storableText,
  // The HTML standard's valid e-mail address, with a dot required in the domain.
  Schema.isPattern(
    /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/,
    { message: "must be an email address" }
  )
).annotate({ format: "email" })

export const Customer = Schema.Struct({
  id: CustomerId.annotate({ format: "uuid" }),
  email: Schema.String.annotate({ format: "email" }),
  plan: Schema.Literal("pro"),
  status: CustomerStatus,
  brandName: Schema.NullOr(Schema.String),
  mcpEndpoint: Schema.String.annotate({ format: "uri" }),
  createdAt: Schema.String.annotate({ format: "date-time" }),
  trialEndsAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
}).annotate({ identifier: "Customer" })
export type Customer = typeof Customer.Type

/** A key shown once, with the MCP address that carries it. */
export const IssuedKey = Schema.Struct({
  apiKey: Schema.String,
  mcpEndpoint: Schema.String.annotate({ format: "uri" })
}).annotate({ identifier: "IssuedKey" })

export const ProvisionRequest = Schema.Struct({
  email: Email,
  brandName: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), isMaxChars(200), storableText)),
  status: Schema.optionalKey(CustomerStatus)
}).annotate({ identifier: "ProvisionRequest" })

export const ProvisionResult = Schema.Struct({
  customerId: CustomerId.annotate({ format: "uuid" }),
  email: Schema.String.annotate({ format: "email" }),
  apiKey: Schema.String,
  mcpEndpoint: Schema.String.annotate({ format: "uri" })
}).annotate({ identifier: "ProvisionResult" })

export const TeamInvite = Schema.Struct({
  email: Email,
  role: MemberRole
}).annotate({ identifier: "TeamInvite" })

export const TeamMember = Schema.Struct({
  memberId: Schema.String,
  email: Schema.String.annotate({ format: "email" }),
  role: MemberRole,
  createdAt: Schema.String.annotate({ format: "date-time" })
}).annotate({ identifier: "TeamMember" })
export type TeamMember = typeof TeamMember.Type

export const InvitedMember = Schema.Struct({
  ...TeamMember.fields,
  apiKey: Schema.String
}).annotate({ identifier: "InvitedMember" })

export const ActorType = Schema.Literals(["owner", "member", "admin", "agent", "workflow", "system"])

/**
 * Who caused an event: the customer's own key (`owner`, id = customer id), a
 * team member's key (`member`, id = member id), the operator (`admin`), an
 * agent or a workflow run (their ids), or the service itself (`system`).
 */
export const Actor = Schema.Struct({
  type: ActorType,
  id: Schema.NullOr(Schema.String)
}).annotate({ identifier: "EventActor" })
export type Actor = typeof Actor.Type

export const Event = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  timestamp: Schema.String.annotate({ format: "date-time" }),
  actor: Actor,
  data: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "Event" })
export type Event = typeof Event.Type
