import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../config';
import type { Db } from '../store/db';
import { type KeyName, readKeyChecks, recordKeyCheck } from '../store/key-checks';
import { createSecretBox, type SecretBox } from './secret-box';

const VARIABLE: Record<KeyName, string> = {
  secret_key: 'BRIDGE_SECRET_KEY',
  session_secret: 'BRIDGE_SESSION_SECRET',
};

/** What the store keeps of a key: an HMAC of a fixed text under it, which can't give the key back. */
export const keyCheckValue = (name: KeyName, key: Uint8Array) =>
  createHmac('sha256', key).update(`bridgekit key check v1: ${name}`).digest('base64url');

/** Reads a key file from the data dir, creating it (mode 0600) on first use. */
function devKeyFile(
  config: Config,
  log: Logger,
  file: string,
  variable: string,
  make: () => string,
  inUse: boolean,
): string {
  const full = path.join(config.dataDir, file);
  try {
    return fs.readFileSync(full, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // A fresh key would not open what the store holds (another instance's, or a restored store).
  if (inUse) {
    throw new ConfigError(
      `${variable} is not set and this store already has data under a key (${full} is missing): set ${variable} to that key`,
      [variable],
    );
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
  /** Each key's check value, and the previous secret key's during a rotation. */
  checks: { secret_key: string; session_secret: string; previous?: string };
}

/**
 * The at-rest encryption key(s) and the session signing key; generated in development only,
 * and never for a key whose check value the store already holds (`inUse`).
 */
export function loadSecrets(
  config: Config,
  log: Logger,
  inUse: ReadonlySet<KeyName> = new Set(),
): Secrets {
  const production = config.env === 'production';
  if (production && !config.secretKey) {
    throw new ConfigError(
      'BRIDGE_SECRET_KEY is required when NODE_ENV=production (32 bytes, base64)',
      ['BRIDGE_SECRET_KEY'],
    );
  }
  if (production && !config.sessionSecret) {
    throw new ConfigError(
      'BRIDGE_SESSION_SECRET is required when NODE_ENV=production (at least 32 characters)',
      ['BRIDGE_SESSION_SECRET'],
    );
  }
  const secretKey =
    config.secretKey ??
    devKeyFile(
      config,
      log,
      'secret.key',
      'BRIDGE_SECRET_KEY',
      () => randomBytes(32).toString('base64'),
      inUse.has('secret_key'),
    );
  const sessionSecret =
    config.sessionSecret ??
    devKeyFile(
      config,
      log,
      'session.key',
      'BRIDGE_SESSION_SECRET',
      () => randomBytes(32).toString('base64url'),
      inUse.has('session_secret'),
    );
  const key = Buffer.from(secretKey, 'base64');
  const previous = config.secretKeyPrevious
    ? Buffer.from(config.secretKeyPrevious, 'base64')
    : undefined;
  const sessionKey = new TextEncoder().encode(sessionSecret);
  return {
    secretBox: createSecretBox(key, previous),
    sessionKey,
    checks: {
      secret_key: keyCheckValue('secret_key', key),
      session_secret: keyCheckValue('session_secret', sessionKey),
      ...(previous ? { previous: keyCheckValue('secret_key', previous) } : {}),
    },
  };
}

/**
 * Loads the keys and holds them to the store's check values: the first instance records them;
 * one whose key differs is refused, naming the variable. During a rotation the store's value
 * may be the previous secret key's; `rotating` (`bridge secrets rotate`) also lets a new session
 * secret through, for the command to record.
 */
export async function loadCheckedSecrets(
  config: Config,
  log: Logger,
  db: Db,
  options: { now: Date; rotating?: boolean },
): Promise<Secrets> {
  const recorded = await readKeyChecks(db);
  const secrets = loadSecrets(config, log, new Set(recorded.keys()));
  for (const name of ['secret_key', 'session_secret'] as const) {
    if (!recorded.has(name)) await recordKeyCheck(db, name, secrets.checks[name], options.now);
  }
  const stored = await readKeyChecks(db);
  const secretKey = stored.get('secret_key');
  if (secretKey !== secrets.checks.secret_key && secretKey !== secrets.checks.previous) {
    throw keyMismatch('secret_key');
  }
  if (stored.get('session_secret') !== secrets.checks.session_secret && !options.rotating) {
    throw keyMismatch('session_secret');
  }
  return secrets;
}

function keyMismatch(name: KeyName): ConfigError {
  const variable = VARIABLE[name];
  const what =
    name === 'secret_key'
      ? 'the key its secrets are sealed with (during a rotation, set the old key as BRIDGE_SECRET_KEY_PREVIOUS)'
      : 'the secret its sessions are signed with (to change it, run `bridge secrets rotate` with the new one)';
  return new ConfigError(
    `${variable} does not match this store: its check value differs from ${what}`,
    [variable],
  );
}
