import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { Deps } from './deps';
import { loadSecrets } from './domain/keys';
import { lazy } from './lazy';
import { noLifecycle } from './lifecycle/jobs';
import { createLimiter, type LimiterBackend } from './rate-limit';
import { redisReplayGuard, storeReplayGuard } from './sso/replay';
import { createSessionTokens } from './sso/session-token';
import { openStore, type Store } from './store/db';
import { checkFreeSpace } from './store/disk-space';
import { createSlots } from './verify/slots';

const ioredis = lazy<{ Redis: typeof RedisClient }>('ioredis');

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
function openRedis(config: Config, log: Logger, store: Store): RedisClient | undefined {
  const redis = config.redisUrl
    ? new (ioredis().Redis)(config.redisUrl, redisOptions(config))
    : undefined;
  redis?.on('error', (err: Error) => log.warn({ err: err.message }, 'redis error'));
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

/** Opens the store and builds the dependencies shared by the server and the CLI. */
export async function bootstrap(
  config: Config,
  log: Logger,
  options: { migrate?: boolean; server?: boolean } = {},
): Promise<Deps> {
  const { secretBox, sessionKey } = loadSecrets(config, log);
  const store = openConfiguredStore(config, log, options.server);
  if (options.migrate ?? true) {
    const applied = await store.migrate();
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
  }
  const now = () => new Date();
  const redis = openRedis(config, log, store);
  const backend = limiterBackend(config, redis, store);
  const limits = {
    api: createLimiter({ name: 'api', perMinute: config.rateLimitPerMinute, backend }),
    verify: createLimiter({ name: 'verify', perMinute: config.verifyRateLimitPerMinute, backend }),
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
    secretBox,
    sessions: createSessionTokens({
      key: sessionKey,
      ttlSeconds: config.sessionTtlSeconds,
      maxAgeSeconds: config.sessionMaxAgeSeconds,
      now,
    }),
    replay: redis ? redisReplayGuard(redis, now, store.pgPool) : storeReplayGuard(store, now),
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
