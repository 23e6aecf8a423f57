import type { ContentStatus, ContentType } from "./Content.ts"
import type { Autonomy } from "./Settings.ts"

export interface AutonomyScope {
  readonly category?: ContentType | undefined
  readonly skill?: string | undefined
}

/** The level for an action: skill override, else category override, else the global default. */
export const resolveLevel = (autonomy: Autonomy, scope: AutonomyScope): number => {
  const skills: Readonly<Record<string, number | undefined>> = autonomy.skills
  const skill = scope.skill === undefined ? undefined : skills[scope.skill]
  if (skill !== undefined) return skill
  const category = scope.category === undefined ? undefined : autonomy.categories[scope.category]
  return category ?? autonomy.globalDefault
}

/**
 * Where an agent-created piece starts: 1 draft, 2-3 pending approval, 4-5
 * approved (5 also publishes at once, which the publisher decides).
 */
export const initialStatusForLevel = (level: number): ContentStatus =>
  level <= 1 ? "draft" : level <= 3 ? "pending_approval" : "approved"
