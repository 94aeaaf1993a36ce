import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The default data dir, `server/.data`, whoever starts the bridge or the CLI and from wherever:
 * anchored to this module (server/src/config.ts, or the bundles in server/dist), never to the
 * current directory, so every process of one checkout opens one store.
 */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../.data', import.meta.url));

const bool = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');
const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
// Hours as a decimal (`12`, `0.5`), so tests can shorten the limit to seconds.
const hours = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?$/, { error: 'must be a number of hours, e.g. 12 or 0.5' })
  .transform(Number)
  .pipe(
    z.number().gt(0, { error: 'must be more than 0' }).max(720, { error: 'must be at most 720' }),
  );
// The grace of a rotated jwtSecret: 0 ends the previous secret at once (a leak).
const graceHours = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?$/, { error: 'must be a number of hours, e.g. 24 or 0.5' })
  .transform(Number)
  .pipe(z.number().max(720, { error: 'must be at most 720' }));
// A URL the driver can parse; the message never repeats the value (it may hold a password).
const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// URL' })
  .refine((v) => URL.canParse(v), {
    error: 'is not a parseable URL (percent-encode special characters in the password)',
  });
const base64Key = z.string().refine((v) => Buffer.from(v, 'base64').length === 32, {
  error: 'must be 32 bytes, base64-encoded',
});

export const Env = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: int(0, 65535).default(4000),
  HOST: z.string().min(1).optional(),
  BRIDGE_DATA_DIR: z.string().min(1).optional(),
  // Where npm was invoked (npm start, npx bridge): what a relative BRIDGE_DATA_DIR is relative to.
  INIT_CWD: z.string().min(1).optional(),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_DIRECT_URL: postgresUrl.optional(),
  BRIDGE_PG_POOL_SIZE: int(1, 1000).default(10),
  BRIDGE_PG_PREPARED: z
    .enum(['unnamed', 'named'], { error: 'must be unnamed or named' })
    .default('unnamed'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BRIDGE_SECRET_KEY: base64Key.optional(),
  BRIDGE_SECRET_KEY_PREVIOUS: base64Key.optional(),
  BRIDGE_SESSION_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  BRIDGE_VERIFY_TIMEOUT_MS: int(100, 120_000).default(10_000),
  BRIDGE_ALLOW_PRIVATE_NETWORKS: bool.optional(),
  BRIDGE_SERVICE_IP: z.string().min(1).optional(),
  BRIDGE_BODY_LIMIT_BYTES: int(1024, 10_000_000).default(100_000),
  BRIDGE_DEMO: bool.optional(),
  BRIDGE_TRUST_PROXY: z.string().min(1).optional(),
  BRIDGE_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(600),
  BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(30),
  BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(300),
  BRIDGE_SESSION_TTL_SECONDS: int(10, 86_400).default(900),
  BRIDGE_EMBED_SESSION_MAX_HOURS: hours.default(12),
  BRIDGE_JWT_SECRET_GRACE_HOURS: graceHours.default(24),
  BRIDGE_MAX_CONNECTIONS_IN_FLIGHT: int(1, 1000).default(8),
  BRIDGE_BACKGROUND_JOBS: bool.optional(),
  BRIDGE_HEALTH_INTERVAL_S: int(1, 86_400).default(300),
  BRIDGE_SYNC_INTERVAL_S: int(2, 86_400).default(3600),
  BRIDGE_SYNC_TIMEOUT_S: int(1, 3600).optional(),
  BRIDGE_SYNC_MAX_TABLES: int(1, 1_000_000).default(10_000),
  BRIDGE_SYNC_MAX_MB: int(1, 1024).default(64),
  BRIDGE_RATE_LIMIT_STORE: z.enum(['auto', 'memory', 'store', 'redis']).default('auto'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, { error: 'must be a redis:// URL' })
    .optional(),
  // Bounded waits on dependencies (see Timeouts): past them a request gets 503.
  BRIDGE_PG_CONNECT_TIMEOUT_MS: int(100, 60_000).default(1500),
  BRIDGE_PG_STATEMENT_TIMEOUT_MS: int(100, 600_000).default(5000),
  BRIDGE_REDIS_CONNECT_TIMEOUT_MS: int(100, 60_000).default(1000),
  BRIDGE_REDIS_COMMAND_TIMEOUT_MS: int(100, 60_000).default(1000),
  BRIDGE_HEALTHZ_TIMEOUT_MS: int(100, 60_000).default(1000),
  BRIDGE_SHUTDOWN_GRACE_S: int(1, 3600).optional(),
  BRIDGE_KEEP_ALIVE_TIMEOUT_S: int(1, 3600).default(65),
  BRIDGE_STARTUP_RETRY_S: int(0, 600).default(30),
  BRIDGE_METRICS_PORT: int(0, 65535).optional(),
  BRIDGE_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  BRIDGE_LOG_PROBES: bool.optional(),
  BRIDGE_LOG_SUMMARY_S: int(1, 3600).default(30),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('bridgekit'),
});

/** Seconds a sync may take unless set: 120, or half the interval when that is shorter. */
const defaultSyncTimeout = (intervalSeconds: number) =>
  Math.min(120, Math.floor(intervalSeconds / 2));

/** Added to the longest deadline for the default grace: the answer and the store's writes after it. */
const GRACE_MARGIN_S = 10;

export type Config = Readonly<{
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * PostgreSQL without a pooler in between, for what needs a session of its own (migrations
   * take it when set). Undefined: everything goes through `databaseUrl`.
   */
  databaseDirectUrl: string | undefined;
  /** Connections each instance's PostgreSQL pool opens at most. */
  pgPoolSize: number;
  /**
   * `unnamed`: each query is parsed on the server connection that runs it (safe behind a
   * transaction pooler). `named`: parsed once per connection, only for a direct connection or
   * session pooling.
   */
  pgPrepared: 'unnamed' | 'named';
  logLevel: string;
  secretKey: string | undefined;
  secretKeyPrevious: string | undefined;
  sessionSecret: string | undefined;
  verifyTimeoutMs: number;
  allowPrivateNetworks: boolean;
  serviceIp: string | undefined;
  bodyLimitBytes: number;
  demo: boolean;
  trustProxy: string | undefined;
  rateLimitPerMinute: number;
  verifyRateLimitPerMinute: number;
  ssoRateLimitPerMinute: number;
  /** Connection attempts (verify, health checks, syncs) this process runs at once. */
  maxConnectionsInFlight: number;
  rateLimitStore: 'auto' | 'memory' | 'store' | 'redis';
  /** Whether this instance runs health checks and syncs (off by default only in tests). */
  backgroundJobs: boolean;
  healthIntervalSeconds: number;
  syncIntervalSeconds: number;
  /** One sync's deadline; a SYNCING older than this (plus a margin) is taken for abandoned. */
  syncTimeoutSeconds: number;
  /** Tables and views a sync keeps; a bigger catalog is cut there and marked truncated. */
  syncMaxTables: number;
  /** What one sync may read from the servers, in bytes; more fails the sync. */
  syncMaxReadBytes: number;
  sessionTtlSeconds: number;
  sessionMaxAgeSeconds: number;
  /** How long the jwtSecret replaced by a rotation keeps verifying SSO tokens (0: not at all). */
  jwtSecretGraceSeconds: number;
  redisUrl: string | undefined;
  /** How long each dependency may take before the request gets a 503 (ms). */
  timeouts: DependencyTimeouts;
  /**
   * How long a SIGTERM waits for requests and background work before handing back what is
   * left and exiting 1; by default the longest deadline (verify, sync) plus a margin.
   */
  shutdownGraceSeconds: number;
  /**
   * How long an idle client connection stays open for its next request. Longer than a load
   * balancer's own idle timeout, so the balancer, not the bridge, closes a connection it keeps
   * for reuse (else a request it sends as the bridge closes it fails with a 502).
   */
  keepAliveTimeoutSeconds: number;
  /** How long start-up retries an unreachable store before giving up (0: once). */
  startupRetrySeconds: number;
  /** The Prometheus listener (`/metrics`); undefined: off. */
  metrics: { port: number; host: string } | undefined;
  /** OTLP/HTTP traces endpoint (…/v1/traces); undefined: tracing off. */
  tracing: { url: string; serviceName: string } | undefined;
  /** Whether `/livez`, `/readyz` and `/healthz` get access-log lines. */
  logProbes: boolean;
  /** Repeated dependency failures: one summary line per this many seconds. */
  logSummarySeconds: number;
}>;

export type DependencyTimeouts = Readonly<{
  /** PostgreSQL: waiting for a pooled connection, or opening a new one. */
  pgConnectMs: number;
  /** PostgreSQL: one statement's answer (client-side; the connection is dropped past it). */
  pgStatementMs: number;
  redisConnectMs: number;
  redisCommandMs: number;
  /** `/healthz`: each dependency's check. */
  healthzMs: number;
}>;

/** A setting the bridge can't run with; `variables` names the environment variables at fault. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    message: string,
    readonly variables: readonly string[] = [],
  ) {
    super(message);
  }
}

/** The only reader of process.env: parses once, names the bad variable, returns a frozen config. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = Env.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')),
  );
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(
      `Invalid configuration:\n${lines.join('\n')}`,
      parsed.error.issues.map((i) => String(i.path[0])),
    );
  }
  const e = parsed.data;
  if (e.BRIDGE_RATE_LIMIT_STORE === 'redis' && !e.REDIS_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  BRIDGE_RATE_LIMIT_STORE: redis needs REDIS_URL',
      ['BRIDGE_RATE_LIMIT_STORE'],
    );
  }
  if (e.BRIDGE_RATE_LIMIT_STORE === 'store' && !e.DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  BRIDGE_RATE_LIMIT_STORE: store needs DATABASE_URL (SQLite is one process: use memory)',
      ['BRIDGE_RATE_LIMIT_STORE'],
    );
  }
  const syncTimeout = e.BRIDGE_SYNC_TIMEOUT_S ?? defaultSyncTimeout(e.BRIDGE_SYNC_INTERVAL_S);
  if (2 * syncTimeout > e.BRIDGE_SYNC_INTERVAL_S) {
    throw new ConfigError(
      'Invalid configuration:\n  BRIDGE_SYNC_TIMEOUT_S: must be at most half of BRIDGE_SYNC_INTERVAL_S, so an abandoned sync is taken over within one interval',
      ['BRIDGE_SYNC_TIMEOUT_S'],
    );
  }
  if (e.DATABASE_DIRECT_URL && !e.DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  DATABASE_DIRECT_URL: needs DATABASE_URL (the pooled URL the bridge serves from)',
      ['DATABASE_DIRECT_URL'],
    );
  }
  const production = e.NODE_ENV === 'production';
  const tracesUrl =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (e.OTEL_EXPORTER_OTLP_ENDPOINT
      ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
      : undefined);
  const longestDeadline = Math.max(Math.ceil(e.BRIDGE_VERIFY_TIMEOUT_MS / 1000), syncTimeout);
  return Object.freeze({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST ?? (production ? '0.0.0.0' : '127.0.0.1'),
    // A relative BRIDGE_DATA_DIR is the caller's: it resolves against the directory where the
    // command was typed, not the one npm runs the script in.
    dataDir: e.BRIDGE_DATA_DIR
      ? path.resolve(e.INIT_CWD ?? process.cwd(), e.BRIDGE_DATA_DIR)
      : DEFAULT_DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    pgPoolSize: e.BRIDGE_PG_POOL_SIZE,
    pgPrepared: e.BRIDGE_PG_PREPARED,
    logLevel: e.LOG_LEVEL,
    secretKey: e.BRIDGE_SECRET_KEY,
    secretKeyPrevious: e.BRIDGE_SECRET_KEY_PREVIOUS,
    sessionSecret: e.BRIDGE_SESSION_SECRET,
    verifyTimeoutMs: e.BRIDGE_VERIFY_TIMEOUT_MS,
    allowPrivateNetworks: e.BRIDGE_ALLOW_PRIVATE_NETWORKS ?? !production,
    serviceIp: e.BRIDGE_SERVICE_IP,
    bodyLimitBytes: e.BRIDGE_BODY_LIMIT_BYTES,
    demo: e.BRIDGE_DEMO ?? !production,
    trustProxy: e.BRIDGE_TRUST_PROXY,
    rateLimitPerMinute: e.BRIDGE_RATE_LIMIT_PER_MINUTE,
    verifyRateLimitPerMinute: e.BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE,
    ssoRateLimitPerMinute: e.BRIDGE_SSO_RATE_LIMIT_PER_MINUTE,
    maxConnectionsInFlight: e.BRIDGE_MAX_CONNECTIONS_IN_FLIGHT,
    rateLimitStore: e.BRIDGE_RATE_LIMIT_STORE,
    backgroundJobs: e.BRIDGE_BACKGROUND_JOBS ?? e.NODE_ENV !== 'test',
    healthIntervalSeconds: e.BRIDGE_HEALTH_INTERVAL_S,
    syncIntervalSeconds: e.BRIDGE_SYNC_INTERVAL_S,
    syncTimeoutSeconds: syncTimeout,
    syncMaxTables: e.BRIDGE_SYNC_MAX_TABLES,
    syncMaxReadBytes: e.BRIDGE_SYNC_MAX_MB * (1 << 20),
    sessionTtlSeconds: e.BRIDGE_SESSION_TTL_SECONDS,
    sessionMaxAgeSeconds: Math.max(1, Math.round(e.BRIDGE_EMBED_SESSION_MAX_HOURS * 3600)),
    jwtSecretGraceSeconds: Math.round(e.BRIDGE_JWT_SECRET_GRACE_HOURS * 3600),
    redisUrl: e.REDIS_URL,
    timeouts: Object.freeze({
      pgConnectMs: e.BRIDGE_PG_CONNECT_TIMEOUT_MS,
      pgStatementMs: e.BRIDGE_PG_STATEMENT_TIMEOUT_MS,
      redisConnectMs: e.BRIDGE_REDIS_CONNECT_TIMEOUT_MS,
      redisCommandMs: e.BRIDGE_REDIS_COMMAND_TIMEOUT_MS,
      healthzMs: e.BRIDGE_HEALTHZ_TIMEOUT_MS,
    }),
    shutdownGraceSeconds: e.BRIDGE_SHUTDOWN_GRACE_S ?? longestDeadline + GRACE_MARGIN_S,
    keepAliveTimeoutSeconds: e.BRIDGE_KEEP_ALIVE_TIMEOUT_S,
    startupRetrySeconds: e.BRIDGE_STARTUP_RETRY_S,
    metrics:
      e.BRIDGE_METRICS_PORT === undefined
        ? undefined
        : Object.freeze({ port: e.BRIDGE_METRICS_PORT, host: e.BRIDGE_METRICS_HOST }),
    tracing: tracesUrl
      ? Object.freeze({ url: tracesUrl, serviceName: e.OTEL_SERVICE_NAME })
      : undefined,
    logProbes: e.BRIDGE_LOG_PROBES ?? false,
    logSummarySeconds: e.BRIDGE_LOG_SUMMARY_S,
  });
}
