/**
 * The twelve MCP tools the interface names, in its order. Restated here
 * rather than read from src/, so a tool renamed or dropped there fails the
 * tests that compare against it.
 */
export const specToolNames = [
  "run_research",
  "run_content_creation",
  "ask_cmo",
  "schedule_content",
  "publish_to_social",
  "generate_lead_magnet",
  "ai_seo_audit",
  "cro_audit",
  "query_ga4",
  "track_revenue",
  "check_ai_visibility",
  "analyze_brand_url"
] as const
