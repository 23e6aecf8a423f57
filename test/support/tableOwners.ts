import type { TableReference } from "./sqlTables.ts"

/**
 * Who owns each table: a feature folder (every module in it may use the
 * table) or a single platform module. Everyone else reaches the table through
 * the owner's service. A new migration's table needs a line here.
 */
export const tableOwners: Readonly<Record<string, string>> = {
  api_keys: "platform/Keys.ts",
  brand_profiles: "features/onboarding",
  chat_messages: "features/chat",
  chat_threads: "features/chat",
  checkout_sessions: "features/billing",
  connect_states: "features/social",
  content: "features/content",
  customer_billing: "features/billing",
  customer_settings: "features/settings",
  customers: "features/customers",
  dashboard_sessions: "features/dashboard",
  events: "platform/Events.ts",
  idempotency_keys: "platform/Idempotency.ts",
  incidents: "features/health",
  link_clicks: "features/social",
  oauth_clients: "features/oauth",
  oauth_codes: "features/oauth",
  oauth_grants: "features/oauth",
  oauth_tokens: "features/oauth",
  payment_events: "features/billing",
  post_metrics: "features/social",
  publish_attempts: "features/social",
  publish_jobs: "features/social",
  reports: "features/reports",
  revenue: "features/social",
  sandbox_posts: "features/social",
  scans: "features/scan",
  scheduled_jobs: "platform/Periodic.ts",
  server_secrets: "platform/ServerSecrets.ts",
  social_connections: "features/social",
  social_profiles: "features/social",
  spend_ledger: "features/settings",
  status_probes: "features/health",
  team_members: "features/team",
  tracked_links: "features/social",
  webhook_attempts: "features/webhooks",
  webhook_deliveries: "features/webhooks",
  webhook_events: "features/webhooks",
  webhooks: "features/webhooks",
  wf_activities: "features/workflows",
  wf_clocks: "features/workflows",
  wf_deferreds: "features/workflows",
  wf_executions: "features/workflows",
  wf_runners: "features/workflows",
  workflow_effects: "features/workflows",
  workflow_runs: "features/workflows",
  workflow_steps: "features/workflows",
  workflows: "features/workflows"
}

/** effect/cluster's own tables: only the module that runs the engine touches them. */
export const clusterTablesOwner = "features/workflows/Engine.ts"

/**
 * A use of another owner's table that the code keeps on purpose, with the
 * reason. `reads` means the file may only read it (FROM/JOIN); writing it
 * would be a new violation.
 */
export interface SharedUse {
  readonly file: string
  readonly table: string
  readonly reads: boolean
  readonly reason: string
}

const owns = (owner: string, file: string) => file === owner || file.startsWith(`${owner}/`)

export const ownerOf = (table: string): string | undefined =>
  table.startsWith("cluster_") ? clusterTablesOwner : tableOwners[table]

/** What the references break: unowned tables, and uses by others that no shared use declares. */
export const ownershipViolations = (
  references: ReadonlyArray<TableReference>,
  shared: ReadonlyArray<SharedUse>
): ReadonlyArray<string> =>
  references.flatMap((ref) => {
    const owner = ownerOf(ref.table)
    if (owner === undefined) return [`${ref.table} has no owner (named in ${ref.file})`]
    if (owns(owner, ref.file)) return []
    const declared = shared.find((s) => s.file === ref.file && s.table === ref.table)
    if (declared === undefined) return [`${ref.file} names ${ref.table}, owned by ${owner}`]
    if (declared.reads && !ref.readOnly) {
      return [`${ref.file} writes ${ref.table} (owned by ${owner}); it is declared to read it only`]
    }
    return []
  })

/** Declared shared uses that the code no longer has: the list only shrinks, so stale lines fail. */
export const staleSharedUses = (
  references: ReadonlyArray<TableReference>,
  shared: ReadonlyArray<SharedUse>
): ReadonlyArray<string> =>
  shared.filter((s) => !references.some((r) => r.file === s.file && r.table === s.table)).map((s) =>
    `${s.file} ${s.table}`
  )
