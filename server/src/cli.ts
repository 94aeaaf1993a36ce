import { type ParseArgsConfig, parseArgs } from 'node:util';
import { Role } from '@bridgekit/contract';
import { bootstrap } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import type { Deps } from './deps';
import { createApiKeyForEmail } from './domain/api-key-admin';
import { addMember, normalizeEmail } from './domain/members';
import { rotateSecrets } from './domain/rotate-secrets';
import { createLogger } from './log';
import { listApiKeys, revokeApiKey } from './store/api-keys';
import { findOrganizationById } from './store/organizations';
import { findUserByEmail } from './store/users';

const USAGE = `Usage: bridge <command>

  keys create --email E [--name "Full Name"] [--label L] [--expires-in-days N]
                                   create the user if needed; prints only the new key
  keys list --email E              list a user's keys (hint, dates, state)
  keys revoke <keyId>              revoke a key
  members add --org ORG_ID --email E --role ADMIN|MEMBER
  migrate                          apply pending store migrations
  secrets rotate                   re-encrypt every stored secret under BRIDGE_SECRET_KEY
                                   (set the old key as BRIDGE_SECRET_KEY_PREVIOUS first)

Reads the same environment as the server (BRIDGE_DATA_DIR, DATABASE_URL, ...).`;

export class UsageError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function requireEmail(value: string | undefined): string {
  if (!value) throw new UsageError('--email is required');
  if (!EMAIL.test(value.trim()))
    throw new UsageError(`--email: "${value}" is not an email address`);
  return normalizeEmail(value);
}

/** Runs one CLI command; output goes to `out`, and errors are thrown for the caller to print. */
export async function runCli(
  argv: string[],
  out: (line: string) => void,
  getDeps: () => Promise<Deps>,
) {
  const [group, action, ...rest] = argv;
  const args = (options: NonNullable<ParseArgsConfig['options']>, allowPositionals = false) => {
    try {
      return parseArgs({ args: rest, options, allowPositionals, strict: true });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  };

  if (group === 'migrate' && action === undefined) {
    const deps = await getDeps();
    out('migrations up to date');
    return deps;
  }
  if (group === 'secrets' && action === 'rotate') {
    args({});
    const deps = await getDeps();
    const counts = await rotateSecrets(deps);
    out(
      `re-encrypted ${counts.organizations} organization(s) and ${counts.dataSources} data source(s)`,
    );
    return deps;
  }
  if (group === 'keys' && action === 'create') {
    const { values } = args({
      email: { type: 'string' },
      name: { type: 'string' },
      label: { type: 'string' },
      'expires-in-days': { type: 'string' },
    });
    const email = requireEmail(values.email as string | undefined);
    const days = values['expires-in-days'] as string | undefined;
    if (days !== undefined && !/^[1-9][0-9]{0,4}$/.test(days)) {
      throw new UsageError('--expires-in-days must be a whole number from 1 to 99999');
    }
    const deps = await getDeps();
    const now = deps.now();
    const { key } = await createApiKeyForEmail(
      deps.store.db,
      {
        email,
        fullName: values.name as string | undefined,
        name: values.label as string | undefined,
        expiresAt: days ? new Date(now.getTime() + Number(days) * 86_400_000) : undefined,
      },
      now,
    );
    out(key);
    return deps;
  }
  if (group === 'keys' && action === 'list') {
    const { values } = args({ email: { type: 'string' } });
    const email = requireEmail(values.email as string | undefined);
    const deps = await getDeps();
    const user = await findUserByEmail(deps.store.db, email);
    if (!user) throw new UsageError(`no user with email ${email}`);
    const keys = await listApiKeys(deps.store.db, user.id);
    const now = deps.now().getTime();
    for (const k of keys) {
      const state = k.revokedAt
        ? 'revoked'
        : k.expiresAt && Date.parse(k.expiresAt) <= now
          ? 'expired'
          : 'active';
      out(
        [
          k.id,
          `bk_key_…${k.hint}`,
          state,
          `created ${k.createdAt}`,
          `last used ${k.lastUsedAt ?? 'never'}`,
          k.name ?? '',
        ]
          .join('\t')
          .trimEnd(),
      );
    }
    if (keys.length === 0) out('(no keys)');
    return deps;
  }
  if (group === 'keys' && action === 'revoke') {
    const { positionals } = args({}, true);
    const id = positionals[0];
    if (!id || positionals.length !== 1)
      throw new UsageError('keys revoke takes exactly one key id');
    const deps = await getDeps();
    if (!(await revokeApiKey(deps.store.db, id, deps.now().toISOString()))) {
      throw new UsageError(`no active key with id ${id}`);
    }
    out(`revoked ${id}`);
    return deps;
  }
  if (group === 'members' && action === 'add') {
    const { values } = args({
      org: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
    });
    const email = requireEmail(values.email as string | undefined);
    if (!values.org) throw new UsageError('--org is required');
    const role = Role.safeParse(values.role);
    if (!role.success) throw new UsageError('--role must be ADMIN or MEMBER');
    const deps = await getDeps();
    if (!(await findOrganizationById(deps.store.db, values.org as string))) {
      throw new UsageError(`no organization with id ${values.org}`);
    }
    const member = await addMember(deps, values.org as string, { email, role: role.data });
    out(`${member.id}\t${member.userEmail}\t${member.role}`);
    return deps;
  }
  throw new UsageError(
    group ? `unknown command: ${[group, action].filter(Boolean).join(' ')}` : 'no command given',
  );
}

async function main() {
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
      async () => {
        deps = await bootstrap(config, log);
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

if (process.argv[1] && /cli\.ts$|bridge(\.js)?$/.test(process.argv[1])) await main();
