import type { Logger } from 'pino';
import type { Config } from './config';
import type { Deps } from './deps';
import { loadSecrets } from './domain/keys';
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
  return {
    config,
    store,
    log,
    secretBox,
    sessions: createSessionTokens({ key: sessionKey, now }),
    now,
  };
}
