import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { Deps } from './deps';
import { loadCheckedSecrets } from './domain/keys';
import { createFailureLog, type FailureLog } from './failure-log';
import { faultOf } from './faults';
import { lazy } from './lazy';
import { migrateJobSchema } from './lifecycle/job-schema';
import { noLifecycle } from './lifecycle/lifecycle';
import { createMetrics, noMetrics } from './observability/metrics';
import { createTracing, noTracing } from './observability/tracing';
import { createLimiter, type LimiterBackend } from './rate-limit';
import { createSessionTokens } from './sso/session-token';
import { openStore, type Store } from './store/db';
import { checkFreeSpace } from './store/disk-space';
import { openSsoExchange } from './store/sso-exchange';
import { createSlots } from './verify/slots';
import { memberData, recordEvents } from './webhooks/events';

const ioredis = lazy<{ Redis: typeof RedisClient }>('ioredis');
const pgBoss = lazy<typeof PgBoss>('pg-boss');
const pgBossVersion = lazy<{ schema: number }>('pg-boss/version.json');

/** A dependency the bridge could not reach at start, with the variable that names it. */
export class StartupError extends Error {
  override name = 'StartupError';
  constructor(
    message: string,
    readonly dependency: 'store',
    readonly variable: string,
  ) {
    super(message);
  }
}

/**
 * Bounded waits on Redis: a command gets no answer in time → 503; a connection that stops
 * answering is dropped and reopened; while it is down or reconnecting, commands fail at once
 * instead of queueing (no offline queue, so memory stays flat however long it lasts).
 */
function redisOptions(config: Config): RedisOptions {
  const { redisConnectMs, redisCommandMs } = config.timeouts;
  return {
    connectTimeout: redisConnectMs,
    commandTimeout: redisCommandMs,
    socketTimeout: redisCommandMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect soon after Redis is back: at most a second between attempts.
    retryStrategy: (attempts) => Math.min(attempts * 50, 1000),
  };
}

/** The store the configuration names. */
function openConfiguredStore(config: Config, log: Logger, server: boolean | undefined): Store {
  return openStore({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    poolSize: config.pgPoolSize,
    prepared: config.pgPrepared,
    dataDir: config.dataDir,
    // The long-running server checkpoints SQLite off its event loop.
    checkpointInWorker: server
      ? { onError: (message) => log.warn({ err: message }, 'SQLite checkpoint failed') }
      : undefined,
    pgTimeouts: {
      connectMs: config.timeouts.pgConnectMs,
      statementMs: config.timeouts.pgStatementMs,
    },
  });
}

/** Redis when configured, closed with the store. */
function openRedis(config: Config, failures: FailureLog, store: Store): RedisClient | undefined {
  const redis = config.redisUrl
    ? new (ioredis().Redis)(config.redisUrl, redisOptions(config))
    : undefined;
  redis?.on('error', (err: Error) =>
    failures.report('redis_error', 'redis error', { err: err.message }),
  );
  if (redis) {
    // The store closes Redis with it, so one close() ends everything.
    const closeStore = store.close;
    store.close = async () => {
      await closeStore();
      await redis.quit().catch(() => redis.disconnect());
    };
  }
  return redis;
}

/** Where the rate limiters keep their counters. */
function limiterBackend(
  config: Config,
  redis: RedisClient | undefined,
  store: Store,
): LimiterBackend {
  // auto: shared counters when several instances may run (Redis, else PostgreSQL); memory on
  // SQLite, which is one process. An operator running one PostgreSQL instance may pick memory.
  const choice =
    config.rateLimitStore === 'auto'
      ? redis
        ? 'redis'
        : store.pgPool
          ? 'store'
          : 'memory'
      : config.rateLimitStore;
  return choice === 'redis' && redis
    ? { kind: 'redis', client: redis }
    : choice === 'store' && store.pgPool
      ? { kind: 'postgres', pool: store.pgPool }
      : { kind: 'memory' };
}

/**
 * Applies the store's migrations (and, on PostgreSQL, the job engine's schema under the same
 * lock), retrying a store that can't be reached for up to BRIDGE_STARTUP_RETRY_S.
 */
async function migrateWithRetry(config: Config, log: Logger, store: Store): Promise<string[]> {
  const steps =
    store.engine === 'postgres'
      ? [
          (run: Parameters<typeof migrateJobSchema>[2]) =>
            migrateJobSchema(pgBoss(), pgBossVersion().schema, run),
        ]
      : [];
  const deadline = Date.now() + config.startupRetrySeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.migrate(steps);
    } catch (err) {
      const message = (err as Error).message;
      const variable = config.databaseDirectUrl ? 'DATABASE_DIRECT_URL' : 'DATABASE_URL';
      // Refused credentials (28…) or a missing database (3D000): retrying will not help.
      const code = String((err as { code?: unknown }).code ?? '');
      if (store.engine === 'postgres' && (code.startsWith('28') || code === '3D000')) {
        throw new StartupError(`the store refused the connection (${message})`, 'store', variable);
      }
      const fault = faultOf(err);
      if (fault?.dependency !== 'store') throw err;
      if (Date.now() >= deadline) {
        throw new StartupError(
          `the store is unreachable (${message}); gave up after ${config.startupRetrySeconds} s`,
          'store',
          variable,
        );
      }
      log.warn(
        { dependency: 'store', attempt, err: message },
        'store unreachable at start; retrying',
      );
      await new Promise((resolve) => setTimeout(resolve, Math.min(attempt * 500, 5000)));
    }
  }
}

/** Opens the store and builds the dependencies shared by the server and the CLI. */
export async function bootstrap(
  config: Config,
  log: Logger,
  options: { server?: boolean; rotating?: boolean } = {},
): Promise<Deps> {
  const store = openConfiguredStore(config, log, options.server);
  let migrated: string[];
  let secrets: Awaited<ReturnType<typeof loadCheckedSecrets>>;
  try {
    migrated = await migrateWithRetry(config, log, store);
    if (migrated.length > 0) log.info({ applied: migrated }, 'migrations applied');
    secrets = await loadCheckedSecrets(config, log, store.db, {
      now: new Date(),
      rotating: options.rotating,
    });
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  const { secretBox, sessionKey } = secrets;
  const now = () => new Date();
  const failures = createFailureLog(log, config.logSummarySeconds * 1000);
  const redis = openRedis(config, failures, store);
  const backend = limiterBackend(config, redis, store);
  // While Redis is down, API requests count in this process (SSO fails closed: see routes/sso).
  const localWhenDown = {
    onLocal: (err: unknown) =>
      failures.report('rate_limit_local', 'redis unavailable: rate limits counted per instance', {
        err: (err as Error)?.message,
      }),
  };
  const limits = {
    api: createLimiter({
      name: 'api',
      perMinute: config.rateLimitPerMinute,
      backend,
      localWhenDown,
    }),
    verify: createLimiter({
      name: 'verify',
      perMinute: config.verifyRateLimitPerMinute,
      backend,
      localWhenDown,
    }),
    sso: createLimiter({ name: 'sso', perMinute: config.ssoRateLimitPerMinute, backend }),
  };
  const slots = config.maxConnectionsInFlight;
  return {
    config,
    limits,
    // A quarter of the slots stay free of background work, so a backlog of health checks
    // against unreachable hosts can't answer every verify with a 429.
    connectionSlots: createSlots({ limit: slots, reserved: Math.floor(slots / 4) }),
    store,
    lifecycle: noLifecycle,
    log,
    failures,
    migrated,
    // The server's alone: the CLI neither serves nor traces.
    metrics:
      options.server && config.metrics ? createMetrics({ pgPool: store.pgPool, redis }) : noMetrics,
    tracing: options.server && config.tracing ? createTracing(config.tracing) : noTracing,
    draining: false,
    keyChecks: {
      secret_key: secrets.checks.secret_key,
      session_secret: secrets.checks.session_secret,
    },
    secretBox,
    sessions: createSessionTokens({
      key: sessionKey,
      ttlSeconds: config.sessionTtlSeconds,
      maxAgeSeconds: config.sessionMaxAgeSeconds,
      now,
    }),
    // A first sign-in's membership is reported as member.added, in the transaction creating it.
    sso: openSsoExchange(
      store,
      limits.sso,
      now,
      (tx, orgId, members) =>
        recordEvents(tx, orgId, 'member.added', members.map(memberData), now()),
      redis,
    ),
    probes: {
      store: async () => {
        await store.ping();
        if (store.engine === 'sqlite') await checkFreeSpace(config.dataDir);
      },
      ...(redis ? { redis: () => redis.ping().then(() => undefined) } : {}),
    },
    now,
  };
}
