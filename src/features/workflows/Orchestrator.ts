import { Clock, Effect, Option, Redacted, Schema, SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../Config.ts"
import { NotFound, SignatureInvalid } from "../../domain/Errors.ts"
import { CustomerId } from "../../domain/Ids.ts"
import { verifyOrchestratorSignature } from "../../domain/OrchestratorSignature.ts"
import { WorkflowConfig } from "../../domain/Workflows.ts"
import { errorResponse } from "../../platform/http/ErrorResponses.ts"
import { currentRequest } from "../../platform/http/RequestContext.ts"
import { Workflows } from "./Workflows.ts"

export const orchestratorPath = "/api/orchestrator"

const StartRequest = Schema.Struct({
  workflow: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100)),
  customerId: Schema.String.check(
    Schema.isPattern(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
      message: "must be a uuid"
    })
  ),
  input: Schema.optionalKey(WorkflowConfig)
})
const decodeStart = Schema.decodeUnknownExit(StartRequest, { onExcessProperty: "error", errors: "all" })
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * `/api/orchestrator` for the workflow-orchestration platform, signed with
 * ORCHESTRATOR_SIGNING_KEY (`X-Orchestrator-Signature: t=<unix>,v1=<hex
 * HMAC-SHA256 of "t.body">`, 300 s tolerance; the raw body is what is signed,
 * so this is a router route, not an HttpApi endpoint). GET lists the
 * registered workflows, cron schedules and runners; PUT re-syncs the cron
 * registrations from the workflow table; POST `{workflow, customerId, input?}`
 * starts a run and answers `{runId}`.
 */
export const OrchestratorRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const workflows = yield* Workflows
    const key = Option.map(config.orchestratorSigningKey, Redacted.value)

    const fail = (status: number, error: string, code: string, details?: Array<{ path: string; message: string }>) =>
      Effect.map(currentRequest, ({ requestId }) =>
        errorResponse(status, { error, code, requestId, ...(details === undefined ? {} : { details }) }))

    const handle = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = request.method === "GET" ? "" : yield* Effect.orElseSucceed(request.text, () =>
        "")
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const signed = Option.isSome(key) &&
        verifyOrchestratorSignature(request.headers["x-orchestrator-signature"], body, key.value, now)
      if (!signed) {
        const invalid = new SignatureInvalid({})
        return yield* fail(401, invalid.error, invalid.code)
      }
      if (request.method === "GET") {
        return HttpServerResponse.jsonUnsafe(yield* workflows.registrations)
      }
      if (request.method === "PUT") {
        const resynced = yield* workflows.resync
        return HttpServerResponse.jsonUnsafe({ resynced, ...(yield* workflows.registrations) })
      }
      let parsed: unknown
      try {
        parsed = JSON.parse(body)
      } catch {
        return yield* fail(400, "Request body is not valid JSON", "E_MALFORMED_JSON")
      }
      const decoded = decodeStart(parsed)
      if (decoded._tag === "Failure") {
        const issue = decoded.cause.reasons.find((r) =>
          r._tag === "Fail"
        )
        const issues = issue !== undefined && Schema.isSchemaError(issue.error)
          ? formatIssues(issue.error.issue).issues
          : []
        const details = issues.map((i) => ({
          path: ["body", ...(i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p))].join("."),
          message: i.message
        }))
        return yield* fail(
          400,
          details[0] === undefined ? "Invalid request" : `Invalid ${details[0].path}: ${details[0].message}`,
          "E_VALIDATION",
          details
        )
      }
      const { workflow, customerId, input } = decoded.value
      return yield* workflows.start(CustomerId.make(customerId.toLowerCase()), workflow, input ?? {}, "orchestrator")
        .pipe(
          Effect.map((run) => HttpServerResponse.jsonUnsafe({ runId: run.runId })),
          Effect.catchTags({
            NotFound: (e: NotFound) => fail(404, e.error, e.code),
            ValidationError: (e) => fail(400, e.error, e.code, e.details === undefined ? undefined : [...e.details])
          })
        )
    })

    for (const method of ["GET", "PUT", "POST"] as const) yield* router.add(method, orchestratorPath, handle)
  })
)
