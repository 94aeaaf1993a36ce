import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { bootstrap } from './bootstrap';
import {
  type Command,
  type CommandInput,
  optionalString,
  requireEmail,
  UsageError,
  type Values,
} from './cli/command';
import { ORG_COMMANDS } from './cli/org-commands';
import { WEBHOOK_COMMANDS } from './cli/webhook-commands';
import { ConfigError, loadConfig } from './config';
import type { Deps } from './deps';
import { createApiKeyForEmail } from './domain/api-key-admin';
import { rotateSecrets } from './domain/rotate-secrets';
import { createLogger } from './log';
import { listApiKeys, revokeApiKey } from './store/api-keys';
import { describeStore } from './store/location';
import { findUserByEmail } from './store/users';

async function createKey({ values, out, getDeps }: CommandInput) {
  const email = requireEmail(values.email);
  const days = optionalString(values['expires-in-days']);
  if (days !== undefined && !/^[1-9][0-9]{0,4}$/.test(days)) {
    throw new UsageError('--expires-in-days must be a whole number from 1 to 99999');
  }
  const deps = await getDeps();
  const now = deps.now();
  const { key } = await createApiKeyForEmail(
    deps.store.db,
    {
      email,
      fullName: optionalString(values.name),
      name: optionalString(values.label),
      expiresAt: days ? new Date(now.getTime() + Number(days) * 86_400_000) : undefined,
    },
    now,
  );
  out(key);
  return deps;
}

type KeyRow = Awaited<ReturnType<typeof listApiKeys>>[number];

function keyLine(k: KeyRow, now: number): string {
  const state = k.revokedAt
    ? 'revoked'
    : k.expiresAt && Date.parse(k.expiresAt) <= now
      ? 'expired'
      : 'active';
  return [
    k.id,
    `bk_key_…${k.hint}`,
    state,
    `created ${k.createdAt}`,
    `last used ${k.lastUsedAt ?? 'never'}`,
    k.name ?? '',
  ]
    .join('\t')
    .trimEnd();
}

async function listKeys({ values, out, getDeps }: CommandInput) {
  const email = requireEmail(values.email);
  const deps = await getDeps();
  const user = await findUserByEmail(deps.store.db, email);
  if (!user) throw new UsageError(`no user with email ${email}`);
  const keys = await listApiKeys(deps.store.db, user.id);
  const now = deps.now().getTime();
  for (const k of keys) out(keyLine(k, now));
  if (keys.length === 0) out('(no keys)');
  return deps;
}

async function revokeKey({ positionals, out, getDeps }: CommandInput) {
  const id = positionals[0];
  if (!id || positionals.length !== 1) throw new UsageError('keys revoke takes exactly one key id');
  const deps = await getDeps();
  if (!(await revokeApiKey(deps.store.db, id, deps.now().toISOString()))) {
    throw new UsageError(`no active key with id ${id}`);
  }
  out(`revoked ${id}`);
  return deps;
}

async function migrate({ out, getDeps }: CommandInput) {
  // Opening the store applies pending migrations and the job engine's schema.
  const deps = await getDeps();
  for (const name of deps.migrated) out(`applied ${name}`);
  out(
    deps.migrated.length > 0
      ? `${deps.migrated.length} change(s) applied; the store is up to date`
      : 'nothing to apply; the store is up to date',
  );
  return deps;
}

async function rotate({ out, getDeps }: CommandInput) {
  const deps = await getDeps({ rotating: true });
  const counts = await rotateSecrets(deps);
  out(
    `re-encrypted ${counts.organizations} organization(s), ${counts.dataSources} data source(s) and ${counts.webhookEndpoints} webhook endpoint(s)`,
  );
  return deps;
}

async function backup({ positionals, out, getDeps }: CommandInput) {
  const file = positionals[0];
  if (!file || positionals.length !== 1) throw new UsageError('backup takes exactly one file');
  const deps = await getDeps();
  if (!deps.store.backup) {
    throw new UsageError(
      'backup copies the SQLite store; on PostgreSQL use pg_dump (docs/operations.md, Backups)',
    );
  }
  const { bytes } = await deps.store.backup(path.resolve(file));
  out(`backed up the store to ${path.resolve(file)} (${bytes} bytes)`);
  return deps;
}

const COMMANDS: Command[] = [
  {
    name: 'keys create',
    usage: `  keys create --email E [--name "Full Name"] [--label L] [--expires-in-days N]
                                   create the user if needed; prints only the new key`,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      label: { type: 'string' },
      'expires-in-days': { type: 'string' },
    },
    run: createKey,
  },
  {
    name: 'keys list',
    usage: "  keys list --email E              list a user's keys (hint, dates, state)",
    options: { email: { type: 'string' } },
    run: listKeys,
  },
  {
    name: 'keys revoke',
    usage: '  keys revoke <keyId>              revoke a key',
    options: {},
    positionals: true,
    run: revokeKey,
  },
  {
    name: 'migrate',
    usage: '  migrate                          apply pending store migrations',
    options: {},
    run: migrate,
  },
  {
    name: 'secrets rotate',
    usage: `  secrets rotate                   re-encrypt every stored secret under BRIDGE_SECRET_KEY
                                   (set the old key as BRIDGE_SECRET_KEY_PREVIOUS first) and
                                   record both keys' check values (a new BRIDGE_SESSION_SECRET
                                   ends every session)`,
    options: {},
    run: rotate,
  },
  {
    name: 'backup',
    usage: `  backup <file>                    copy the SQLite store to a new file, consistent while the
                                   bridge runs (PostgreSQL: pg_dump)`,
    options: {},
    positionals: true,
    run: backup,
  },
  ...ORG_COMMANDS,
  ...WEBHOOK_COMMANDS,
];

const USAGE = `Usage: bridge <command>

${COMMANDS.map((command) => command.usage).join('\n')}

Reads its store settings (BRIDGE_DATA_DIR, DATABASE_URL, ...) from its own environment, as the
server reads its own: give it the server's values, or it opens another store. With neither set,
both use SQLite in server/.data from any directory. The store it opened is named on stderr.`;

/** Runs one CLI command; output goes to `out`, and errors are thrown for the caller to print. */
export async function runCli(
  argv: string[],
  out: (line: string) => void,
  getDeps: CommandInput['getDeps'],
) {
  const [group, action] = argv;
  // A one-word command (`backup <file>`) takes its positionals from the second word on.
  const command = COMMANDS.find((c) => {
    const [first, second] = c.name.split(' ');
    return first === group && (second === undefined || second === action);
  });
  const words = command?.name.split(' ').length ?? 2;
  if (!command) {
    throw new UsageError(
      group ? `unknown command: ${[group, action].filter(Boolean).join(' ')}` : 'no command given',
    );
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv.slice(words),
      options: command.options,
      allowPositionals: command.positionals ?? false,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return command.run({ ...parsed, out, getDeps });
}

/** `bridge …` as a program: reads process.argv and the environment, sets the exit code. */
export async function main() {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let deps: Deps | undefined;
  try {
    const config = loadConfig();
    // Logs go to stderr so stdout carries only the command's output (e.g. the key).
    const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
    // Keep hold of the store as soon as it opens, so it is closed even when the command fails.
    await runCli(
      argv,
      (line) => process.stdout.write(`${line}\n`),
      async (options) => {
        // Said before opening, so a failure to open names the store it was.
        process.stderr.write(
          `bridge: store ${describeStore({ ...config, directUrl: config.databaseDirectUrl })}\n`,
        );
        deps = await bootstrap(config, log, options);
        return deps;
      },
    );
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`bridge: ${err.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`bridge: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  } finally {
    await deps?.store.close();
  }
}

// Started as a program (`node server/dist/cli.js`); the `bridge` bin calls main() itself.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
