import type { z } from 'zod';
import type { Env } from './config';

/** What docs/configuration.md says of one variable; the default is read from `Env` unless given. */
export interface VariableDoc {
  /** The default in words, where it is not a fixed value (it depends on another setting). */
  default?: string;
  meaning: string;
}

type Documented = Exclude<keyof z.input<typeof Env>, 'INIT_CWD'>;

/**
 * Every environment variable the bridge reads, in the order of docs/configuration.md: the one
 * source of its table (`npm run docs:generate`). A variable added to `Env` fails the typecheck
 * until it is described here. `INIT_CWD` is npm's, not an operator's.
 */
export const CONFIG_REFERENCE: Readonly<Record<Documented, VariableDoc>> = {
  PORT: { meaning: 'listen port' },
  HOST: {
    default: '`127.0.0.1` (development), `0.0.0.0` (production)',
    meaning: 'listen address',
  },
  NODE_ENV: {
    meaning: '`production` requires the keys below and turns private networks off',
  },
  BRIDGE_DATA_DIR: {
    default: '`server/.data`, from any directory',
    meaning: 'SQLite file (`bridge.db`) and dev keys; relative: to where you typed it',
  },
  DATABASE_URL: { meaning: '`postgres://…`: use PostgreSQL instead of SQLite' },
  DATABASE_DIRECT_URL: {
    meaning: '`postgres://…` past the pooler in `DATABASE_URL`, for migrations',
  },
  BRIDGE_PG_POOL_SIZE: {
    meaning:
      'PostgreSQL connections per instance, 1–1000 ([sizing](operations.md#sizing-behind-a-pooler))',
  },
  BRIDGE_PG_PREPARED: {
    meaning: '`named`: parse once per connection; not behind a transaction pooler',
  },
  REDIS_URL: { meaning: '`redis://…`: keep SSO `jti` replay state (and rate limits) in Redis' },
  BRIDGE_RATE_LIMIT_STORE: {
    meaning:
      'where rate limits count: `auto` is Redis, else PostgreSQL, else memory (SQLite); `memory`, `store`, `redis`',
  },
  LOG_LEVEL: { meaning: 'pino level (`silent` … `trace`)' },
  BRIDGE_SECRET_KEY: {
    default: 'generated in development',
    meaning: '32 bytes, base64: AES-256-GCM key for secrets at rest',
  },
  BRIDGE_SECRET_KEY_PREVIOUS: { meaning: 'the old key during a rotation (still decrypts)' },
  BRIDGE_SESSION_SECRET: {
    default: 'generated in development',
    meaning: '≥ 32 characters: signs embed session tokens',
  },
  BRIDGE_VERIFY_TIMEOUT_MS: {
    meaning: 'one deadline for a whole verify (DNS, SSH, TCP, TLS, auth, query)',
  },
  BRIDGE_ALLOW_PRIVATE_NETWORKS: {
    default: '`true` in development, `false` in production',
    meaning: 'may verify connect to loopback/private addresses',
  },
  BRIDGE_SERVICE_IP: {
    meaning: 'outbound address named in verify timeout messages (for database firewalls)',
  },
  BRIDGE_BODY_LIMIT_BYTES: { meaning: 'request body limit (413 above it)' },
  BRIDGE_DEMO: {
    default: '`true` in development',
    meaning: 'seed the demo user, organization and key on the first start',
  },
  BRIDGE_TRUST_PROXY: { meaning: 'Express `trust proxy` value when behind a load balancer' },
  BRIDGE_RATE_LIMIT_PER_MINUTE: { meaning: 'requests per key or session' },
  BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: {
    meaning:
      "verifies per organization, and (a separate counter, same value) per person: a key's user, or a session's host account",
  },
  BRIDGE_MAX_CONNECTIONS_IN_FLIGHT: {
    meaning: 'connection attempts (verify, health checks, syncs) one process runs at once',
  },
  BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: { meaning: 'SSO exchanges per organization' },
  BRIDGE_SESSION_TTL_SECONDS: { meaning: 'lifetime of one session token (renewals slide it)' },
  BRIDGE_EMBED_SESSION_MAX_HOURS: {
    meaning: 'renewals stop this long after the sign-in (decimals allowed)',
  },
  BRIDGE_JWT_SECRET_GRACE_HOURS: {
    meaning: 'how long a replaced `jwtSecret` still verifies SSO tokens (`0`: none)',
  },
  BRIDGE_PG_CONNECT_TIMEOUT_MS: {
    meaning: 'PostgreSQL: wait for a pooled connection or a new one, then 503',
  },
  BRIDGE_PG_STATEMENT_TIMEOUT_MS: {
    meaning: 'PostgreSQL: wait for one statement (timed by the bridge), then 503',
  },
  BRIDGE_REDIS_CONNECT_TIMEOUT_MS: { meaning: 'Redis: opening a connection' },
  BRIDGE_REDIS_COMMAND_TIMEOUT_MS: {
    meaning: 'Redis: wait for one command, then 503 (a silent connection is reopened)',
  },
  BRIDGE_HEALTHZ_TIMEOUT_MS: {
    meaning: "`/healthz` and `/readyz`: each dependency's check (slower: failing)",
  },
  BRIDGE_BACKGROUND_JOBS: {
    default: '`true` (`false` when `NODE_ENV=test`)',
    meaning: 'run scheduled health checks and syncs; `false` also drops requested syncs',
  },
  BRIDGE_HEALTH_INTERVAL_S: { meaning: 'seconds between two health checks of a data source' },
  BRIDGE_SYNC_INTERVAL_S: {
    meaning: 'seconds between two scheduled schema syncs of a data source',
  },
  BRIDGE_SYNC_TIMEOUT_S: {
    default: '`120`, or half the sync interval if shorter',
    meaning: 'deadline of one sync; at most half of `BRIDGE_SYNC_INTERVAL_S`',
  },
  BRIDGE_SYNC_MAX_TABLES: {
    meaning: 'tables and views a sync keeps; a bigger catalog is cut (`truncated: true`)',
  },
  BRIDGE_SYNC_MAX_MB: {
    meaning: 'what one sync may read from the database server; more fails the sync',
  },
  BRIDGE_SHUTDOWN_GRACE_S: {
    default: 'longest deadline + 10 (130 by default)',
    meaning: 'SIGTERM: how long the drain may take ([drain](operations.md#drain-on-sigterm))',
  },
  BRIDGE_KEEP_ALIVE_TIMEOUT_S: {
    meaning:
      "seconds an idle client connection stays open; keep it above your load balancer's idle timeout ([load balancer](operations.md#keep-alive-behind-a-load-balancer))",
  },
  BRIDGE_STARTUP_RETRY_S: {
    meaning: 'how long start-up retries an unreachable store before giving up (0: once)',
  },
  BRIDGE_METRICS_PORT: {
    default: '– (off)',
    meaning: 'serve Prometheus metrics on this port (`GET /metrics`), apart from the API',
  },
  BRIDGE_METRICS_HOST: {
    meaning: "the metrics listener's address (`0.0.0.0` to let a scraper on another host)",
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    default: '– (off)',
    meaning: 'send traces over OTLP/HTTP to `<endpoint>/v1/traces`',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    meaning: 'the full traces URL, instead of the endpoint above',
  },
  OTEL_SERVICE_NAME: { meaning: '`service.name` of the spans' },
  BRIDGE_LOG_PROBES: {
    default: '`false`',
    meaning: 'access-log lines for `/livez`, `/readyz` and `/healthz`',
  },
  BRIDGE_LOG_SUMMARY_S: {
    meaning: 'repeated dependency failures: one line, then one count per this many s',
  },
};
