import { Config, Context, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"

/**
 * Every setting of the service, read once at start-up. The README's
 * configuration table mirrors this file.
 */
export interface AppConfigShape {
  readonly port: number
  readonly host: string
  readonly baseUrl: string
  /** `undefined` means the embedded PGlite database. */
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly dataDir: string
  readonly redisUrl: Option.Option<Redacted.Redacted<string>>
  /** Prefix of every Redis key (rate-limit counters), so deployments or test runs can share one Redis. */
  readonly redisKeyPrefix: string
  readonly adminSecret: Option.Option<Redacted.Redacted<string>>
  readonly apiKeyPrefix: string
  readonly webhookSignatureHeader: string
  readonly allowPrivateTargets: boolean
  readonly trustProxy: boolean
  readonly logLevel: "all" | "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "none"
  readonly statusProbeIntervalMs: number
  readonly pgMaxConnections: number
  /**
   * Longest the database may leave a sent statement unanswered before its
   * connection is dropped (the statement fails, the request answers 503):
   * a hung or partitioned database must not hang requests.
   */
  readonly dbResponseTimeoutMs: number
  /** Seconds to wait after each failed webhook attempt; its length is the number of retries. */
  readonly webhookRetrySchedule: ReadonlyArray<number>
  /** How often the webhook dispatcher looks for due deliveries. */
  readonly webhookPollIntervalMs: number
}

const boolean = (name: string) => Config.Boolean(name).pipe(Config.withDefault(false))

/** A whole number of at least `minimum` (a pool of 0 connections or a 0 ms poll would never work). */
const intAtLeast = (name: string, minimum: number, defaultValue: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(minimum)), name).pipe(Config.withDefault(defaultValue))

/** A string setting matching `pattern`; `message` says what is expected without echoing the value (it may be a secret). */
const matching = (name: string, pattern: RegExp, message: string) =>
  Config.schema(Schema.String.check(Schema.isPattern(pattern, { message })), name)

/** An HTTP header name (RFC 9110 token): Node refuses to send any other. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** A secret that may be unset (or empty, the same); `config` says how it is read and checked. */
const optionalSecret = (config: Config.Config<string>) =>
  config.pipe(
    Config.option,
    Config.map(Option.filter((value) => value.length > 0)),
    Config.map(Option.map(Redacted.make))
  )

export const appConfig = Effect.gen(function*() {
  const port = yield* Config.Port("PORT").pipe(Config.withDefault(3000))
  const baseUrl = yield* Config.URL("BASE_URL").pipe(
    Config.map((url) => url.toString().replace(/\/+$/, "")),
    Config.withDefault(`http://localhost:${port}`)
  )
  return {
    port,
    host: yield* Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
    baseUrl,
    databaseUrl: yield* optionalSecret(
      matching("DATABASE_URL", /^$|^(postgres|postgresql|pglite):\/\//, "must be a postgres:// or postgresql:// URL")
    ),
    dataDir: yield* Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
    redisUrl: yield* optionalSecret(Config.String("REDIS_URL")),
    redisKeyPrefix: yield* Config.String("REDIS_KEY_PREFIX").pipe(Config.withDefault("herald:")),
    adminSecret: yield* optionalSecret(Config.String("ADMIN_SECRET")),
    apiKeyPrefix: yield* matching("API_KEY_PREFIX", /^[A-Za-z0-9_.-]{0,32}$/, "must be at most 32 of A-Z a-z 0-9 _ . -")
      .pipe(Config.withDefault("svc_live_")),
    webhookSignatureHeader: yield* matching("WEBHOOK_SIGNATURE_HEADER", headerName, "must be an HTTP header name")
      .pipe(Config.withDefault("X-Service-Signature")),
    allowPrivateTargets: yield* boolean("ALLOW_PRIVATE_TARGETS"),
    trustProxy: yield* boolean("TRUST_PROXY"),
    logLevel: yield* Config.Literals(
      ["all", "trace", "debug", "info", "warn", "error", "fatal", "none"],
      "LOG_LEVEL"
    ).pipe(Config.withDefault("info" as const)),
    statusProbeIntervalMs: yield* intAtLeast("STATUS_PROBE_INTERVAL_MS", 1, 30_000),
    pgMaxConnections: yield* intAtLeast("PG_MAX_CONNECTIONS", 1, 10),
    dbResponseTimeoutMs: yield* intAtLeast("DB_RESPONSE_TIMEOUT_MS", 1, 10_000),
    webhookRetrySchedule: yield* Config.schema(
      Schema.String.check(Schema.isPattern(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/)),
      "WEBHOOK_RETRY_SCHEDULE"
    ).pipe(
      Config.withDefault("5,300,1800,7200,18000,36000,50400,72000,86400"),
      Config.map((text) => text.split(",").map(Number))
    ),
    webhookPollIntervalMs: yield* intAtLeast("WEBHOOK_POLL_INTERVAL_MS", 1, 500)
  } satisfies AppConfigShape
})

export class AppConfig extends Context.Service<AppConfig, AppConfigShape>()("herald/Config") {
  static readonly layer = Layer.effect(AppConfig, appConfig)
  static readonly layerWith = (overrides: Partial<AppConfigShape>) =>
    Layer.effect(AppConfig, Effect.map(appConfig, (config) => ({ ...config, ...overrides })))
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * A bad setting as one line naming the variable, e.g.
 * `PORT: Expected a string representing a finite number`.
 */
export const describeConfigError = (error: Config.ConfigError): string => {
  const cause = error.cause
  if (!Schema.isSchemaError(cause)) return cause.message
  return formatIssues(cause.issue).issues
    .map((issue) => {
      const name = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".")
      return name.length > 0 ? `${name}: ${issue.message}` : issue.message
    })
    .join("; ")
}
