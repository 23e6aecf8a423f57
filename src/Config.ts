import { Config, ConfigProvider, Context, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import { existsSync } from "node:fs"
import { isIP } from "node:net"

/**
 * Every setting of the service, read once at start-up. The README's
 * configuration table mirrors this file (test/readme-config.test.ts holds
 * them together: a new variable needs a row there).
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
  /**
   * Proxy hops in front of the service whose `X-Forwarded-For` entries are
   * trusted: the client is the n-th entry from the right. `false`/0 uses the
   * socket address; `true` means 1.
   */
  readonly trustProxy: boolean | number
  /** Requests per 60 s window of each rate-limit policy, by policy key (see RateLimits.ts). */
  readonly rateLimits: RateLimitSettings
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
  /** Who publishes social posts: the local sandbox (default) or Ayrshare. */
  readonly socialProvider: "sandbox" | "ayrshare"
  readonly ayrshareApiKey: Option.Option<Redacted.Redacted<string>>
  readonly ayrsharePrivateKey: Option.Option<Redacted.Redacted<string>>
  readonly ayrshareBaseUrl: string
  /** The `domain` Ayrshare assigned to this integration (generateJWT). */
  readonly ayrshareDomain: string
  /** How long Ayrshare serves a long history page from its cache (seconds). */
  readonly ayrshareHistoryCacheSeconds: number
  /** Seconds to wait after each failed publish try; its length is the number of retries. */
  readonly publishRetrySchedule: ReadonlyArray<number>
  /** How often the publisher looks for due posts. */
  readonly publishPollIntervalMs: number
  /** How long a publisher's claim on a post lasts; a crashed process's claims lapse after it. */
  readonly publishLeaseSeconds: number
  /** How often provider figures (impressions, engagements) of recent posts are fetched. */
  readonly metricsRefreshIntervalMs: number
  /** How often buffered tracked-link clicks are written. */
  readonly clickFlushMs: number
  /** How long a connect link (its signed state) stays valid. */
  readonly connectStateTtlSeconds: number
  /** `local`: the hosted checkout page is ours; `stripe`: a Stripe Checkout Session. */
  readonly paymentProvider: "local" | "stripe"
  /** `whsec_...` secret of the payment webhook; unset = every payment event is refused (400). */
  readonly paymentWebhookSecret: Option.Option<Redacted.Redacted<string>>
  /** Required when paymentProvider is `stripe`. */
  readonly stripeSecretKey: Option.Option<Redacted.Redacted<string>>
  readonly stripePriceId: Option.Option<string>
  /** Where the Stripe SDK sends its requests (tests point it at a local server); unset = api.stripe.com. */
  readonly stripeApiBase: Option.Option<string>
  /** How often each process looks whether the daily trial-expiry run is due (ms). */
  readonly trialSweepIntervalMs: number
  /** Google Analytics 4 property read by the query_ga4 tool; None answers from Herald's own data. */
  readonly ga4PropertyId: Option.Option<string>
  /** Service-account key file contents (JSON) for GA4; checked at start-up. */
  readonly ga4Credentials: Option.Option<Redacted.Redacted<string>>
  /** Base URL of the GA4 Data API (tests point it at a local server). */
  readonly ga4ApiBase: string
  /** A Streamable HTTP MCP session with no request in flight and no open stream for this long is closed. */
  readonly mcpSessionIdleMs: number
  /** Interval of the comment frames that keep MCP SSE streams open through proxies. */
  readonly mcpKeepAliveMs: number
  /** Interval of the comment frames that keep chat event streams open through proxies. */
  readonly chatKeepAliveMs: number
  /** Open MCP sessions (SSE and Streamable HTTP together) one customer may hold. */
  readonly mcpMaxSessionsPerCustomer: number
  /** Origins besides BASE_URL's that may drive MCP sessions from a browser. */
  readonly mcpAllowedOrigins: ReadonlyArray<string>
  /**
   * IP addresses scans, brand extraction and the screenshot browser may
   * reach although not public (exact literals): a known internal site.
   * Every other address meets the rule.
   */
  readonly scanAllowedAddresses: ReadonlyArray<string>
  /**
   * Chromium for scan screenshots: `CHROMIUM_PATH`, else /usr/bin/chromium
   * when it exists; scans run without screenshots when the file is missing.
   */
  readonly chromiumPath: string | undefined
  /** Worker processes that fetch, parse and check third-party pages (scans, brand extraction). */
  readonly scanWorkers: number
  /** Heap limit of each page worker, in MiB: a page that blows it up fails its own job. */
  readonly scanWorkerMemoryMb: number
  /** Wall-clock limit of one page job (fetch, parse, checks) in a worker. */
  readonly scanJobTimeoutMs: number
  /** Scans running at once across all customers (beside the 2 per customer). */
  readonly scanMaxConcurrent: number
  /** Scans that may wait for a place; one more is refused 503 with Retry-After. */
  readonly scanQueueMax: number
  /** Bytes the screenshot browser may fetch for one page's subresources, all of them together. */
  readonly scanScreenshotMaxBytes: number
  /** Which language model writes: the local deterministic `house` writer or an OpenAI-compatible server. */
  readonly llmProvider: "house" | "openai"
  readonly llmBaseUrl: string
  readonly llmApiKey: Option.Option<Redacted.Redacted<string>>
  readonly llmModel: string
  /** Price per million input / output tokens, charged to the `model` budget channel. */
  readonly llmPriceInput: number
  readonly llmPriceOutput: number
  /** Output bound of one call; also the worst case the budget check prices before sending. */
  readonly llmMaxOutputTokens: number
  readonly llmTimeoutMs: number
  /** Most model/tool rounds one agent turn may take. */
  readonly llmMaxToolRounds: number
  /** Key of the orchestrator's request signatures; unset = /api/orchestrator answers 401 to everything. */
  readonly orchestratorSigningKey: Option.Option<Redacted.Redacted<string>>
  /**
   * The durable workflow engine: `postgres` (the default) keeps runs in its
   * own tables (wf_*), `cluster` runs them on effect/cluster's stored messages
   * (cluster_*).
   */
  readonly workflowEngine: "postgres" | "cluster"
  /** How often the workflow engine polls stored messages (timers, cron, other processes' messages). */
  readonly workflowPollIntervalMs: number
  /** This process's runner address (host:port) in the workflow cluster; distinct per process. */
  readonly workflowRunnerAddress: Option.Option<string>
  /**
   * This process's tag among several behind one proxy: MCP session ids begin
   * with it, so the proxy can route a session's requests to the process that holds it.
   */
  readonly instanceTag: Option.Option<string>
  /** Where the cluster engine keeps its runners: `sql` (several processes) or `memory` (one); default memory on PGlite, sql on PostgreSQL. */
  readonly workflowRunnerStorage: Option.Option<"memory" | "sql">
  /** How long a run suspended over budget waits before it tries its step again. */
  readonly workflowBudgetRetrySeconds: number
  /** Engine messages of finished runs older than this are swept. */
  readonly workflowRetentionHours: number
  /**
   * The embedded database answers a write before it reached the disk (no
   * fsync): faster, and an operating-system crash or power loss can lose
   * writes already acknowledged. Off unless asked for.
   */
  readonly pgliteUnsafeNoFsync: boolean
  /**
   * Free space (MiB) the embedded database keeps in DATA_DIR: below it writes
   * are refused (503) until space is freed, so that the next write-ahead-log
   * segment (16 MiB) always fits.
   */
  readonly dataDirReserveMb: number
  /**
   * How long a stop (SIGTERM) lets open requests and streams finish before
   * their connections are closed; idle connections close at once.
   */
  readonly shutdownGraceMs: number
}

const defaultChromium = "/usr/bin/chromium"
/** The six rate limits (docs/api-rules.md, "Rate limits"), each a setting (requests per 60 s window). */
export interface RateLimitSettings {
  readonly rest: number
  readonly mcp: number
  readonly preAuth: number
  readonly checkout: number
  readonly paymentWebhook: number
  readonly admin: number
}

export const rateLimitDefaults: RateLimitSettings = {
  rest: 60,
  mcp: 30,
  preAuth: 20,
  checkout: 5,
  paymentWebhook: 100,
  admin: 10
}

/** `false`, `true` (one hop) or a number of hops. */
const trustProxySetting = Config.schema(
  Schema.String.check(
    Schema.isPattern(/^(true|false|\d{1,2})$/i, { message: "must be true, false or a number of proxy hops" })
  ),
  "TRUST_PROXY"
).pipe(
  Config.withDefault("false"),
  Config.map((text) => {
    const lower = text.toLowerCase()
    return lower === "true" ? 1 : lower === "false" ? 0 : Number(lower)
  })
)

const boolean = (name: string) => Config.Boolean(name).pipe(Config.withDefault(false))

/** A configured base address as the service joins paths to it: its trailing slashes dropped. */
const withoutTrailingSlash = (url: URL): string => url.toString().replace(/(?<!\/)\/+$/, "")

/** A whole number of at least `minimum` (a pool of 0 connections or a 0 ms poll would never work). */
const intAtLeast = (name: string, minimum: number, defaultValue: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(minimum)), name).pipe(Config.withDefault(defaultValue))

/** A price: a finite number of at least 0 (default 0, free). */
const nonNegative = (name: string) =>
  Config.schema(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)), name).pipe(Config.withDefault(0))

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

/**
 * Payment settings. With PAYMENT_PROVIDER=stripe the secret key and the price
 * are required: start-up stops naming the missing one.
 */
const paymentConfig = Effect.gen(function*() {
  const paymentProvider = yield* Config.Literals(["local", "stripe"], "PAYMENT_PROVIDER")
    .pipe(Config.withDefault("local" as const))
  const stripeSecretKey = yield* optionalSecret(Config.String("STRIPE_SECRET_KEY"))
  const stripePriceId = yield* Config.String("STRIPE_PRICE_ID").pipe(
    Config.option,
    Config.map(Option.filter((value) => value.length > 0))
  )
  if (paymentProvider === "stripe") {
    if (Option.isNone(stripeSecretKey)) {
      return yield* Effect.fail(
        new Config.ConfigError(
          new ConfigProvider.SourceError({ message: "STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER=stripe" })
        )
      )
    }
    if (Option.isNone(stripePriceId)) {
      return yield* Effect.fail(
        new Config.ConfigError(
          new ConfigProvider.SourceError({ message: "STRIPE_PRICE_ID: required when PAYMENT_PROVIDER=stripe" })
        )
      )
    }
  }
  return {
    paymentProvider,
    paymentWebhookSecret: yield* optionalSecret(Config.String("PAYMENT_WEBHOOK_SECRET")),
    stripeSecretKey,
    stripePriceId,
    stripeApiBase: yield* Config.URL("STRIPE_API_BASE").pipe(
      Config.map(withoutTrailingSlash),
      Config.option
    ),
    trialSweepIntervalMs: yield* intAtLeast("TRIAL_SWEEP_INTERVAL_MS", 1, 3_600_000)
  }
})

/** A service-account key file: JSON with `client_email` and a PEM `private_key` (the message never echoes the value). */
const serviceAccountJson = Schema.String.check(Schema.makeFilter((text: string) => {
  try {
    const json = JSON.parse(text) as Record<string, unknown>
    return typeof json.client_email === "string" && typeof json.private_key === "string" &&
        json.private_key.includes("PRIVATE KEY") &&
        (json.token_uri === undefined || (typeof json.token_uri === "string" && /^https?:\/\//.test(json.token_uri))) ||
      "must be a service-account key file (JSON with client_email and private_key)"
  } catch {
    return "must be a service-account key file (JSON with client_email and private_key)"
  }
}))

/** GA4 is configured by both variables or by neither: one without the other stops start-up naming the missing one. */
const ga4Pair = Effect.gen(function*() {
  const ga4PropertyId = yield* matching("GA4_PROPERTY_ID", /^$|^[0-9]{1,20}$/, "must be the numeric GA4 property id")
    .pipe(
      Config.option,
      Config.map(Option.filter((value) => value.length > 0))
    )
  const ga4Credentials = yield* optionalSecret(Config.schema(serviceAccountJson, "GA4_CREDENTIALS"))
  if (Option.isSome(ga4PropertyId) !== Option.isSome(ga4Credentials)) {
    const missing = Option.isNone(ga4PropertyId) ? "GA4_PROPERTY_ID" : "GA4_CREDENTIALS"
    const given = missing === "GA4_PROPERTY_ID" ? "GA4_CREDENTIALS" : "GA4_PROPERTY_ID"
    return yield* Effect.fail(
      new Config.ConfigError(new ConfigProvider.SourceError({ message: `${missing}: required when ${given} is set` }))
    )
  }
  return { ga4PropertyId, ga4Credentials }
})

/** SCAN_ALLOWED_ADDRESSES: exact IP literals, comma-separated; anything else stops start-up naming the variable. */
const scanAllowedAddresses = Effect.gen(function*() {
  const text = yield* Config.String("SCAN_ALLOWED_ADDRESSES").pipe(Config.withDefault(""))
  const addresses = text.split(",").map((address) => address.trim()).filter((address) => address.length > 0)
  if (addresses.some((address) => isIP(address) === 0)) {
    return yield* Effect.fail(
      new Config.ConfigError(
        new ConfigProvider.SourceError({
          message: "SCAN_ALLOWED_ADDRESSES: must be a comma-separated list of IP addresses"
        })
      )
    )
  }
  return addresses
})

export const appConfig = Effect.gen(function*() {
  const port = yield* Config.Port("PORT").pipe(Config.withDefault(3000))
  const baseUrl = yield* Config.URL("BASE_URL").pipe(
    Config.map(withoutTrailingSlash),
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
    trustProxy: yield* trustProxySetting,
    rateLimits: {
      rest: yield* intAtLeast("RATE_LIMIT_REST_PER_MIN", 1, rateLimitDefaults.rest),
      mcp: yield* intAtLeast("RATE_LIMIT_MCP_PER_MIN", 1, rateLimitDefaults.mcp),
      preAuth: yield* intAtLeast("RATE_LIMIT_PREAUTH_PER_MIN", 1, rateLimitDefaults.preAuth),
      checkout: yield* intAtLeast("RATE_LIMIT_CHECKOUT_PER_MIN", 1, rateLimitDefaults.checkout),
      paymentWebhook: yield* intAtLeast("RATE_LIMIT_PAYMENT_WEBHOOK_PER_MIN", 1, rateLimitDefaults.paymentWebhook),
      admin: yield* intAtLeast("RATE_LIMIT_ADMIN_PER_MIN", 1, rateLimitDefaults.admin)
    },
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
    webhookPollIntervalMs: yield* intAtLeast("WEBHOOK_POLL_INTERVAL_MS", 1, 500),
    socialProvider: yield* Config.Literals(["sandbox", "ayrshare"], "SOCIAL_PROVIDER").pipe(
      Config.withDefault("sandbox" as const)
    ),
    ayrshareApiKey: yield* optionalSecret(Config.String("AYRSHARE_API_KEY")),
    ayrsharePrivateKey: yield* optionalSecret(Config.String("AYRSHARE_PRIVATE_KEY")),
    ayrshareBaseUrl: yield* Config.URL("AYRSHARE_BASE_URL").pipe(
      Config.map(withoutTrailingSlash),
      Config.withDefault("https://api.ayrshare.com")
    ),
    ayrshareDomain: yield* Config.String("AYRSHARE_DOMAIN").pipe(Config.withDefault("herald")),
    // Ayrshare documents one minute for history pages over its default length.
    ayrshareHistoryCacheSeconds: yield* intAtLeast("AYRSHARE_HISTORY_CACHE_SECONDS", 1, 60),
    publishRetrySchedule: yield* Config.schema(
      Schema.String.check(Schema.isPattern(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/)),
      "PUBLISH_RETRY_SCHEDULE"
    ).pipe(
      Config.withDefault("60,240,600,900"),
      Config.map((text) => text.split(",").map(Number))
    ),
    publishPollIntervalMs: yield* intAtLeast("PUBLISH_POLL_INTERVAL_MS", 1, 250),
    publishLeaseSeconds: yield* intAtLeast("PUBLISH_LEASE_SECONDS", 1, 60),
    metricsRefreshIntervalMs: yield* intAtLeast("METRICS_REFRESH_INTERVAL_MS", 1, 900_000),
    clickFlushMs: yield* intAtLeast("CLICK_FLUSH_MS", 1, 1000),
    connectStateTtlSeconds: yield* intAtLeast("CONNECT_STATE_TTL_SECONDS", 1, 900),
    ...(yield* paymentConfig),
    ...(yield* ga4Pair),
    ga4ApiBase: yield* Config.URL("GA4_API_BASE").pipe(
      Config.map(withoutTrailingSlash),
      Config.withDefault("https://analyticsdata.googleapis.com")
    ),
    mcpSessionIdleMs: yield* intAtLeast("MCP_SESSION_IDLE_MS", 1000, 120_000),
    mcpKeepAliveMs: yield* intAtLeast("MCP_KEEPALIVE_MS", 100, 15_000),
    chatKeepAliveMs: yield* intAtLeast("CHAT_KEEPALIVE_MS", 100, 15_000),
    mcpMaxSessionsPerCustomer: yield* intAtLeast("MCP_MAX_SESSIONS_PER_CUSTOMER", 1, 100),
    scanAllowedAddresses: yield* scanAllowedAddresses,
    mcpAllowedOrigins: yield* matching(
      "MCP_ALLOWED_ORIGINS",
      /^\s*$|^\s*https?:\/\/[^\s,/]+\s*(,\s*https?:\/\/[^\s,/]+\s*)*$/,
      "must be a comma-separated list of origins such as https://app.example.com"
    ).pipe(
      Config.withDefault(""),
      Config.map((text) => text.split(",").map((origin) => origin.trim()).filter((origin) => origin.length > 0))
    ),
    chromiumPath: yield* Config.String("CHROMIUM_PATH").pipe(
      Config.option,
      Config.map(Option.filter((path) => path.length > 0)),
      Config.map(Option.getOrElse(() => existsSync(defaultChromium) ? defaultChromium : undefined))
    ),
    scanWorkers: yield* intAtLeast("SCAN_WORKERS", 1, 4),
    scanWorkerMemoryMb: yield* intAtLeast("SCAN_WORKER_MEMORY_MB", 64, 256),
    scanJobTimeoutMs: yield* intAtLeast("SCAN_JOB_TIMEOUT_MS", 1000, 20_000),
    scanMaxConcurrent: yield* intAtLeast("SCAN_MAX_CONCURRENT", 1, 4),
    scanQueueMax: yield* intAtLeast("SCAN_QUEUE_MAX", 0, 16),
    scanScreenshotMaxBytes: yield* intAtLeast("SCAN_SCREENSHOT_MAX_BYTES", 0, 8 * 1024 * 1024),
    llmProvider: yield* Config.Literals(["house", "openai"], "LLM_PROVIDER").pipe(Config.withDefault("house" as const)),
    llmBaseUrl: yield* Config.URL("LLM_BASE_URL").pipe(
      Config.map(withoutTrailingSlash),
      Config.withDefault("https://api.openai.com/v1")
    ),
    llmApiKey: yield* optionalSecret(Config.String("LLM_API_KEY")),
    llmModel: yield* matching("LLM_MODEL", /^\S{1,200}$/, "must be a model name without spaces").pipe(
      Config.withDefault("gpt-4o-mini")
    ),
    llmPriceInput: yield* nonNegative("LLM_PRICE_INPUT"),
    llmPriceOutput: yield* nonNegative("LLM_PRICE_OUTPUT"),
    llmMaxOutputTokens: yield* intAtLeast("LLM_MAX_OUTPUT_TOKENS", 1, 2048),
    llmTimeoutMs: yield* intAtLeast("LLM_TIMEOUT_MS", 1, 120_000),
    llmMaxToolRounds: yield* intAtLeast("LLM_MAX_TOOL_ROUNDS", 1, 8),
    orchestratorSigningKey: yield* optionalSecret(Config.String("ORCHESTRATOR_SIGNING_KEY")),
    workflowEngine: yield* matching("WORKFLOW_ENGINE", /^(postgres|cluster)$/, "must be postgres or cluster").pipe(
      Config.map((name) => name as "postgres" | "cluster"),
      Config.withDefault("postgres" as const)
    ),
    workflowPollIntervalMs: yield* intAtLeast("WORKFLOW_POLL_INTERVAL_MS", 50, 1000),
    workflowRunnerAddress: yield* matching(
      "WORKFLOW_RUNNER_ADDRESS",
      /^[A-Za-z0-9_.-]{1,200}:\d{1,5}$/,
      "must be host:port"
    )
      .pipe(Config.option),
    instanceTag: yield* matching("INSTANCE_TAG", /^[a-z0-9-]{1,32}$/, "must be 1 to 32 of a-z, 0-9 and -").pipe(
      Config.option
    ),
    workflowRunnerStorage: yield* Config.Literals(["memory", "sql"], "WORKFLOW_RUNNER_STORAGE").pipe(Config.option),
    workflowBudgetRetrySeconds: yield* intAtLeast("WORKFLOW_BUDGET_RETRY_SECONDS", 1, 900),
    pgliteUnsafeNoFsync: yield* boolean("PGLITE_UNSAFE_NO_FSYNC"),
    dataDirReserveMb: yield* intAtLeast("DATA_DIR_RESERVE_MB", 0, 64),
    shutdownGraceMs: yield* intAtLeast("SHUTDOWN_GRACE_MS", 0, 1500),
    workflowRetentionHours: yield* intAtLeast("WORKFLOW_RETENTION_HOURS", 1, 24 * 7)
  } satisfies AppConfigShape
})

export class AppConfig extends Context.Service<AppConfig, AppConfigShape>()("herald/AppConfig") {
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
