import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../config';
import { createSecretBox, type SecretBox } from './secret-box';

/** Reads a key file from the data dir, creating it (mode 0600) on first use. */
function devKeyFile(
  config: Config,
  log: Logger,
  file: string,
  variable: string,
  make: () => string,
): string {
  const full = path.join(config.dataDir, file);
  try {
    return fs.readFileSync(full, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const value = make();
  fs.writeFileSync(full, `${value}\n`, { mode: 0o600, flag: 'wx' });
  log.warn(
    { file: full },
    `${variable} is not set: generated a development key; set ${variable} in production`,
  );
  return value;
}

export interface Secrets {
  secretBox: SecretBox;
  sessionKey: Uint8Array;
}

/** The at-rest encryption key(s) and the session signing key; generated in development only. */
export function loadSecrets(config: Config, log: Logger): Secrets {
  const production = config.env === 'production';
  if (production && !config.secretKey) {
    throw new ConfigError(
      'BRIDGE_SECRET_KEY is required when NODE_ENV=production (32 bytes, base64)',
    );
  }
  if (production && !config.sessionSecret) {
    throw new ConfigError(
      'BRIDGE_SESSION_SECRET is required when NODE_ENV=production (at least 32 characters)',
    );
  }
  const secretKey =
    config.secretKey ??
    devKeyFile(config, log, 'secret.key', 'BRIDGE_SECRET_KEY', () =>
      randomBytes(32).toString('base64'),
    );
  const sessionSecret =
    config.sessionSecret ??
    devKeyFile(config, log, 'session.key', 'BRIDGE_SESSION_SECRET', () =>
      randomBytes(32).toString('base64url'),
    );
  return {
    secretBox: createSecretBox(
      Buffer.from(secretKey, 'base64'),
      config.secretKeyPrevious ? Buffer.from(config.secretKeyPrevious, 'base64') : undefined,
    ),
    sessionKey: new TextEncoder().encode(sessionSecret),
  };
}
