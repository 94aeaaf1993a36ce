import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { Deps } from './deps';
import { loadSecrets } from './domain/keys';
import { redisReplayGuard, storeReplayGuard } from './sso/replay';
import { createSessionTokens } from './sso/session-token';
import { openStore } from './store/db';

/** Opens the store and builds the dependencies shared by the server and the CLI. */
export async function bootstrap(
  config: Config,
  log: Logger,
  options: { migrate?: boolean } = {},
): Promise<Deps> {
  const { secretBox, sessionKey } = loadSecrets(config, log);
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  if (options.migrate ?? true) {
    const applied = await store.migrate();
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
  }
  const now = () => new Date();
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2 })
    : undefined;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  if (redis) {
    // The store closes Redis with it, so one close() ends everything.
    const closeStore = store.close;
    store.close = async () => {
      await closeStore();
      await redis.quit().catch(() => redis.disconnect());
    };
  }
  return {
    config,
    store,
    log,
    secretBox,
    sessions: createSessionTokens({ key: sessionKey, now }),
    replay: redis ? redisReplayGuard(redis, now) : storeReplayGuard(store.db, now),
    now,
  };
}
