import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { Conflict, NotFound } from "../../domain/Errors.ts"
import type { MemberRole, TeamMember } from "../../domain/Identity.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import { Events } from "../../platform/Events.ts"
import { Keys } from "../../platform/Keys.ts"
import { Outbox } from "../../platform/Outbox.ts"
import { Customers } from "../customers/Customers.ts"

interface MemberRow {
  readonly id: string
  readonly email: string
  readonly role: MemberRole
  readonly createdAt: Date
}

const toMember = (row: MemberRow): TeamMember => ({
  memberId: row.id,
  email: row.email,
  role: row.role,
  createdAt: new Date(row.createdAt).toISOString()
})

/** Team members: each holds its own key, restricted by role, revocable on its own. */
export class Team extends Context.Service<Team, {
  readonly invite: (
    customerId: CustomerId,
    email: string,
    role: MemberRole
  ) => Effect.Effect<TeamMember & { apiKey: string }, Conflict>
  /** Live members, oldest first; at most `limit` of them when given (the dashboard shows a bounded list). */
  readonly list: (customerId: CustomerId, limit?: number) => Effect.Effect<ReadonlyArray<TeamMember>>
  readonly remove: (customerId: CustomerId, memberId: string) => Effect.Effect<void, NotFound>
}>()("herald/features/team/Team") {
  static readonly layer = Layer.effect(
    Team,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const customers = yield* Customers
      const events = yield* Events
      const keys = yield* Keys
      const outbox = yield* Outbox

      const invite = Effect.fn("Team.invite")(function*(customerId: CustomerId, email: string, role: MemberRole) {
        return yield* Effect.gen(function*() {
          const id = `mem_${randomUUID().replaceAll("-", "").slice(0, 24)}`
          const rows = yield* sql<MemberRow>`
          INSERT INTO team_members (id, customer_id, email, role) VALUES (${id}, ${customerId}, ${email}, ${role})
          ON CONFLICT (customer_id, lower(email)) WHERE revoked_at IS NULL DO NOTHING
          RETURNING id, email, role, created_at`
          if (rows.length === 0) return yield* new Conflict({ error: "A member with this email already exists" })
          const apiKey = yield* customers.issueKey(customerId, role, id)
          const member = toMember(rows[0])
          yield* events.record(customerId, "team.invited", member)
          yield* outbox.emit(customerId, "team.invited", member)
          return { ...member, apiKey }
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      })

      // A read on the GET path: untraced (docs/design/http-core.md, "What the fast paths cost").
      const list = Effect.fnUntraced(function*(customerId: CustomerId, limit?: number) {
        const rows = yield* sql<MemberRow>`
        SELECT id, email, role, created_at FROM team_members
        WHERE customer_id = ${customerId} AND revoked_at IS NULL ORDER BY created_at, id
        ${limit === undefined ? sql`` : sql`LIMIT ${limit}`}`.pipe(Effect.orDie)
        return rows.map(toMember)
      })

      const remove = Effect.fn("Team.remove")(function*(customerId: CustomerId, memberId: string) {
        const removed = yield* Effect.gen(function*() {
          const rows = yield* sql`UPDATE team_members SET revoked_at = now()
          WHERE id = ${memberId} AND customer_id = ${customerId} AND revoked_at IS NULL RETURNING id`
          if (rows.length === 0) return false
          yield* keys.revokeMemberKeys(memberId)
          yield* events.record(customerId, "team.removed", { memberId })
          return true
        }).pipe(sql.withTransaction, Effect.orDie)
        if (!removed) return yield* new NotFound({ error: "Team member not found" })
      })

      return Team.of({ invite, list, remove })
    })
  )
}
