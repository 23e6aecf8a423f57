import { Effect, Schema } from "effect"

/**
 * Every API error encodes to the one Error shape: a human `error` text and a
 * machine `code`. The HTTP layer adds `requestId` and drops the class tag, so
 * the wire body is exactly `{error, code, requestId[, details]}`.
 */
const fields = <const Code extends string>(code: Code, message: string) => ({
  error: Schema.String.pipe(Schema.withConstructorDefault(Effect.succeed(message))),
  code: Schema.Literal(code).pipe(Schema.withConstructorDefault(Effect.succeed(code)))
})

export const ValidationDetail = Schema.Struct({ path: Schema.String, message: Schema.String })

export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  ...fields("E_VALIDATION", "Invalid request"),
  details: Schema.optional(Schema.Array(ValidationDetail))
}, { httpApiStatus: 400 }) {}

export class MalformedJson extends Schema.TaggedError<MalformedJson>()(
  "MalformedJson",
  fields("E_MALFORMED_JSON", "Request body is not valid JSON"),
  { httpApiStatus: 400 }
) {}

export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()(
  "InvalidCursor",
  fields("E_INVALID_CURSOR", "Invalid cursor"),
  { httpApiStatus: 400 }
) {}

export class AuthRequired extends Schema.TaggedError<AuthRequired>()(
  "AuthRequired",
  fields("E_AUTH_REQUIRED", "Authorization header required"),
  { httpApiStatus: 401 }
) {}

export class InvalidApiKey extends Schema.TaggedError<InvalidApiKey>()(
  "InvalidApiKey",
  fields("E_INVALID_API_KEY", "Invalid API key"),
  { httpApiStatus: 401 }
) {}

export class AccountInactive extends Schema.TaggedError<AccountInactive>()(
  "AccountInactive",
  fields("E_ACCOUNT_INACTIVE", "Customer account is not active"),
  { httpApiStatus: 401 }
) {}

export class AdminAuthRequired extends Schema.TaggedError<AdminAuthRequired>()(
  "AdminAuthRequired",
  fields("E_ADMIN_AUTH", "Admin secret missing or invalid"),
  { httpApiStatus: 401 }
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  fields("E_FORBIDDEN", "Not allowed"),
  { httpApiStatus: 403 }
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  fields("E_NOT_FOUND", "Not found"),
  { httpApiStatus: 404 }
) {}

export class InvalidTransition extends Schema.TaggedError<InvalidTransition>()(
  "InvalidTransition",
  fields("E_INVALID_TRANSITION", "Invalid state transition"),
  { httpApiStatus: 409 }
) {}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  fields("E_CONFLICT", "Conflict"),
  { httpApiStatus: 409 }
) {}

export class LimitReached extends Schema.TaggedError<LimitReached>()(
  "LimitReached",
  fields("E_LIMIT_REACHED", "Limit reached"),
  { httpApiStatus: 409 }
) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  fields("E_RATE_LIMITED", "Rate limit exceeded"),
  { httpApiStatus: 429 }
) {}

export class Unavailable extends Schema.TaggedError<Unavailable>()(
  "Unavailable",
  fields("E_UNAVAILABLE", "Service unavailable"),
  { httpApiStatus: 503 }
) {}

/** Codes the HTTP layer assigns to failures that never reach a handler. */
export const statusCodes: Record<number, readonly [code: string, error: string]> = {
  400: ["E_VALIDATION", "Invalid request"],
  401: ["E_AUTH_REQUIRED", "Authorization header required"],
  403: ["E_FORBIDDEN", "Not allowed"],
  404: ["E_NOT_FOUND", "Not found"],
  405: ["E_METHOD_NOT_ALLOWED", "Method not allowed"],
  406: ["E_NOT_ACCEPTABLE", "Not acceptable"],
  409: ["E_CONFLICT", "Conflict"],
  413: ["E_PAYLOAD_TOO_LARGE", "Request body exceeds 1 MiB"],
  415: ["E_UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json"],
  429: ["E_RATE_LIMITED", "Rate limit exceeded"],
  500: ["E_INTERNAL", "Internal server error"],
  503: ["E_UNAVAILABLE", "Service unavailable"]
}

export class BudgetExceeded extends Schema.TaggedError<BudgetExceeded>()(
  "BudgetExceeded",
  fields("E_BUDGET_EXCEEDED", "Budget cap exceeded"),
  { httpApiStatus: 403 }
) {}

export class PlatformNotConnected extends Schema.TaggedError<PlatformNotConnected>()(
  "PlatformNotConnected",
  fields("E_PLATFORM_NOT_CONNECTED", "Platform not connected"),
  { httpApiStatus: 403 }
) {}

export class InvalidState extends Schema.TaggedError<InvalidState>()(
  "InvalidState",
  fields("E_INVALID_STATE", "Invalid or expired state"),
  { httpApiStatus: 400 }
) {}

export class FetchFailed extends Schema.TaggedError<FetchFailed>()(
  "FetchFailed",
  fields("E_FETCH_FAILED", "The page could not be fetched"),
  { httpApiStatus: 422 }
) {}

export class KeyAlreadyRetrieved extends Schema.TaggedError<KeyAlreadyRetrieved>()(
  "KeyAlreadyRetrieved",
  fields("E_KEY_ALREADY_RETRIEVED", "The key of this session was already retrieved"),
  { httpApiStatus: 410 }
) {}

export class CheckoutIncomplete extends Schema.TaggedError<CheckoutIncomplete>()(
  "CheckoutIncomplete",
  fields("E_CHECKOUT_INCOMPLETE", "Checkout not completed yet"),
  { httpApiStatus: 409 }
) {}

/** Orchestrator signature bad, missing or stale (401; the payment webhook's variant below is 400). */
export class SignatureInvalid extends Schema.TaggedError<SignatureInvalid>()(
  "SignatureInvalid",
  fields("E_SIGNATURE_INVALID", "Signature missing, invalid or too old"),
  { httpApiStatus: 401 }
) {}

/** The payment webhook answers the same code with 400, as Stripe expects. */
export class PaymentSignatureInvalid extends Schema.TaggedError<PaymentSignatureInvalid>()(
  "PaymentSignatureInvalid",
  fields("E_SIGNATURE_INVALID", "Signature missing, invalid or too old"),
  { httpApiStatus: 400 }
) {}

export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()(
  "SessionNotFound",
  fields("E_SESSION_NOT_FOUND", "Session not found — reconnect to /mcp/sse"),
  { httpApiStatus: 400 }
) {}

export class McpTokenRequired extends Schema.TaggedError<McpTokenRequired>()(
  "McpTokenRequired",
  fields("E_MCP_TOKEN_REQUIRED", "MCP token required. Include ?token=<API_KEY>"),
  { httpApiStatus: 401 }
) {}
