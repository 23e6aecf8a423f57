import {
  AnalyzeBrandUrlInput,
  AskCmoInput,
  CheckAiVisibilityInput,
  GenerateLeadMagnetInput,
  PublishToSocialInput,
  QueryGa4Input,
  RunContentCreationInput,
  RunResearchInput,
  ScheduleContentInput,
  TrackRevenueInput,
  UrlAuditInput
} from "./inputs.ts"
import type { AnyToolDefinition, ToolAnnotations, ToolDefinition } from "./Tool.ts"

const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
}
/** Creates something in Herald (a piece, a run, a record) without touching anything outside. */
const creates: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false
}
/** Reads the open web (fetches the given URL) and stores what it found. */
const fetchesWeb: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true
}
/** Posts to a social network in the customer's name: cannot be taken back. */
const publishes: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true
}

export const customerNote = "Pass the customerId of your API key's customer."

export const runResearch: ToolDefinition<typeof RunResearchInput.Type> = {
  name: "run_research",
  title: "Run market research",
  description:
    `Starts the competitor-research workflow on a topic (and optional competitors, names or URLs) and answers the run: runId and status; when it ends within a few seconds, also its steps and output. It writes a competitor brief, a report (never content, nothing to approve): when the run ends in time the answer carries it whole (data.report: reportId, title, body, figures, url); GET /api/reports/{customerId} lists every report. Follow a run with GET /api/runs/{customerId}/{runId}. Use before planning content or positioning. ${customerNote}`,
  input: RunResearchInput,
  annotations: creates,
  role: "admin",
  tags: ["research", "workflow"]
}

export const runContentCreation: ToolDefinition<typeof RunContentCreationInput.Type> = {
  name: "run_content_creation",
  title: "Create a content piece",
  description:
    `Writes one content piece (blog, social, email, ad or outreach) from a topic, an optional brief, keywords, a call to action and a link, and stores it in the customer's content queue. The customer's autonomy settings decide whether it lands as draft, pending_approval or approved; nothing is published. Social bodies are cut to the platform's length. Answers the stored ContentPiece (id, status, title, body). ${customerNote}`,
  input: RunContentCreationInput,
  annotations: creates,
  role: "editor",
  tags: ["content"]
}

export const askCmo: ToolDefinition<typeof AskCmoInput.Type> = {
  name: "ask_cmo",
  title: "Ask the CMO agent",
  description:
    `Asks Herald's marketing agent (the language model, charged to the customer's model budget) a question about the customer's marketing: strategy, priorities, what to post next. It reads the brand profile and settings and may look up figures with read-only tools; it never creates or publishes anything. A question about stored reports ("what did our last SEO audit find?", "list our reports") is answered from them, with the reports in data.reports (each with its url) and data.report (the one read, whole). Answers its reply as text (answer) with the tool calls it made. ${customerNote}`,
  input: AskCmoInput,
  annotations: readOnly,
  role: "admin",
  tags: ["strategy", "chat"]
}

export const scheduleContent: ToolDefinition<typeof ScheduleContentInput.Type> = {
  name: "schedule_content",
  title: "Schedule a social post",
  description:
    `Queues a post on a connected social platform for a future time (scheduledAt, ISO 8601 with a zone); the publisher posts it then. With contentId it posts that piece of the content queue (a draft or pending_approval piece is approved first, with body as its text) instead of writing a new one. Answers the queued ContentPiece (status approved, scheduledAt set). Tool errors: E_PLATFORM_NOT_CONNECTED (connect it first), E_VALIDATION (body too long for the platform, media missing, time in the past), E_BUDGET_EXCEEDED (spend past a cap). ${customerNote}`,
  input: ScheduleContentInput,
  annotations: publishes,
  role: "editor",
  tags: ["social", "publishing"]
}

export const publishToSocial: ToolDefinition<typeof PublishToSocialInput.Type> = {
  name: "publish_to_social",
  title: "Publish to social",
  description:
    `Publishes a post on a connected social platform now (or at scheduledAt when given). This posts publicly in the customer's name. With contentId it posts that piece of the content queue (a draft or pending_approval piece is approved first, with body as its text) instead of writing a new one. Answers the ContentPiece: approved and queued, published (publishedUrl set) a moment later when the network accepts it. Tool errors: E_PLATFORM_NOT_CONNECTED, E_VALIDATION (the body or media does not fit the platform), E_BUDGET_EXCEEDED (spend past a cap). ${customerNote}`,
  input: PublishToSocialInput,
  annotations: publishes,
  role: "editor",
  tags: ["social", "publishing"]
}

export const generateLeadMagnet: ToolDefinition<typeof GenerateLeadMagnetInput.Type> = {
  name: "generate_lead_magnet",
  title: "Generate a lead magnet",
  description:
    `Starts the lead-magnet workflow (a checklist, guide, template or ebook on a topic for an audience: a guide piece and the email that offers it) and answers the run: runId and status; when it ends within a few seconds, also its steps and output with the pieces it wrote. Under the default autonomy the pieces wait for approval (status suspended). ${customerNote}`,
  input: GenerateLeadMagnetInput,
  annotations: creates,
  role: "admin",
  tags: ["content", "workflow"]
}

export const aiSeoAudit: ToolDefinition<typeof UrlAuditInput.Type> = {
  name: "ai_seo_audit",
  title: "SEO and GEO audit",
  description:
    `Scans a page for search (SEO), AI-answer (GEO) and conversion (CRO) readiness and answers the stored scan (also at GET /api/scan/{customerId}/{scanId}): seoScore, geoScore, croScore, citabilityGrade, a checklist of passed and failed checks with recommendations, and a proposed llms.txt. Takes 5 to 15 seconds. A page that cannot be fetched answers status failed with the reason. ${customerNote}`,
  input: UrlAuditInput,
  annotations: fetchesWeb,
  role: "admin",
  tags: ["seo", "scan"]
}

export const croAudit: ToolDefinition<typeof UrlAuditInput.Type> = {
  name: "cro_audit",
  title: "Conversion audit",
  description:
    `Scans a page for conversion-rate problems (calls to action, forms, trust signals, speed) and answers the stored scan's scanId, croScore and its cro checklist items with recommendations. ${customerNote}`,
  input: UrlAuditInput,
  annotations: fetchesWeb,
  role: "admin",
  tags: ["cro", "scan"]
}

export const queryGa4: ToolDefinition<typeof QueryGa4Input.Type> = {
  name: "query_ga4",
  title: "Query Google Analytics 4",
  description:
    `Reads the customer's website figures from the Google Analytics 4 Data API (runReport) for a period: metrics such as sessions, totalUsers, screenPageViews, conversions, optionally broken down by dimensions such as date or sessionSource. When GA4 is not configured it says so and answers Herald's own figures instead (content created and published, events). The customer's latest performance report, when there is one, is named in latestReport (title, createdAt, url). ${customerNote}`,
  input: QueryGa4Input,
  annotations: readOnly,
  role: "viewer",
  tags: ["analytics"]
}

export const trackRevenue: ToolDefinition<typeof TrackRevenueInput.Type> = {
  name: "track_revenue",
  title: "Track revenue",
  description:
    `Records revenue (amount in the currency's major unit, ISO 4217 currency), optionally tied to the content piece or tracked link that earned it and to a campaign, so that it shows in the analytics report (GET /api/analytics/{customerId}) under the piece's or link's channel, else web. Answers the stored record. An unknown contentId or link is E_NOT_FOUND. ${customerNote}`,
  input: TrackRevenueInput,
  annotations: creates,
  role: "editor",
  tags: ["analytics", "revenue"]
}

export const checkAiVisibility: ToolDefinition<typeof CheckAiVisibilityInput.Type> = {
  name: "check_ai_visibility",
  title: "Check AI visibility",
  description:
    `Checks how ready a brand's site is to be cited by AI assistants (llms.txt, structured data, crawlability for AI agents, citable content): runs and stores a scan and answers its scanId, geoScore, citabilityGrade, the GEO checklist with fixes and a proposed llms.txt. ${customerNote}`,
  input: CheckAiVisibilityInput,
  annotations: fetchesWeb,
  role: "admin",
  tags: ["geo", "scan"]
}

export const analyzeBrandUrl: ToolDefinition<typeof AnalyzeBrandUrlInput.Type> = {
  name: "analyze_brand_url",
  title: "Analyze a brand URL",
  description:
    `Reads a brand's home page and answers the extracted profile: brandName, description, logoUrl, ogImage, colors, voice, audience, products, socials, sourceUrl (null or empty where the page says nothing, never invented). Nothing is stored: confirm it through onboarding to make it the brand profile. A page that cannot be fetched is E_FETCH_FAILED. Use it to start onboarding or to brief content. ${customerNote}`,
  input: AnalyzeBrandUrlInput,
  annotations: fetchesWeb,
  role: "admin",
  tags: ["brand", "onboarding"]
}

/** Every tool Herald offers, in its published order: what discovery documents list. */
export const toolDefinitions: ReadonlyArray<AnyToolDefinition> = [
  runResearch,
  runContentCreation,
  askCmo,
  scheduleContent,
  publishToSocial,
  generateLeadMagnet,
  aiSeoAudit,
  croAudit,
  queryGa4,
  trackRevenue,
  checkAiVisibility,
  analyzeBrandUrl
]
