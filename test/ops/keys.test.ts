import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../support/bridge';
import { runBridgeCli } from '../support/bridge-cli';
import { type BridgeData, newBridgeData, removeBridgeData } from '../support/bridge-data';
import { buildBridge, startBridgeProcess } from '../support/bridge-process';
import { jsonLines } from './support';

const newKey = () => randomBytes(32).toString('base64');

/** Starts a bridge on `data` with `env` over its secrets; its exit and stderr's JSON, or up. */
async function tryStart(data: BridgeData, env: Record<string, string>) {
  const bridge = await startBridgeProcess({
    data,
    env: { LOG_LEVEL: 'info', ...env },
    ready: 'none',
  });
  const outcome = await Promise.race([
    bridge.exited.then((exit) => ({ exit })),
    bridge.waitForOutput('bridge listening', 30_000).then(() => ({ exit: undefined })),
  ]);
  if (outcome.exit) return { exit: outcome.exit, lines: jsonLines(bridge.stderr()) };
  await bridge.stop();
  return { exit: undefined, lines: [] };
}

beforeAll(async () => {
  await buildBridge();
}, 120_000);

describe('key check values', () => {
  let data: BridgeData;
  let database: Awaited<ReturnType<typeof createPgDatabase>>;

  beforeAll(async () => {
    database = await createPgDatabase();
    data = newBridgeData(database.url);
    // The first start records both keys' check values.
    const first = await startBridgeProcess({ data, env: { LOG_LEVEL: 'info' } });
    await first.stop();
  }, 60_000);
  afterAll(async () => {
    removeBridgeData(data);
    await database.drop();
  });

  it('stores a check value of each key, never the key', async () => {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query('select name, check_value from key_checks order by name');
    await client.end();
    expect(rows.map((r) => r.name)).toEqual(['secret_key', 'session_secret']);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(data.secretKey);
    expect(text).not.toContain(Buffer.from(data.secretKey, 'base64').toString('base64url'));
    expect(text).not.toContain(data.sessionSecret);
  });

  it('refuses another BRIDGE_SECRET_KEY at start, naming it', async () => {
    const { exit, lines } = await tryStart(data, { BRIDGE_SECRET_KEY: newKey() });
    expect(exit?.code).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({ level: 60, variables: ['BRIDGE_SECRET_KEY'] }),
    ]);
    expect(lines[0]!.msg).toMatch(/^BRIDGE_SECRET_KEY does not match this store/);
  });

  it('refuses another BRIDGE_SESSION_SECRET at start, naming it', async () => {
    const { exit, lines } = await tryStart(data, {
      BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
    });
    expect(exit?.code).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({ level: 60, variables: ['BRIDGE_SESSION_SECRET'] }),
    ]);
  });

  it('in development, refuses to generate a fresh key for a store that has one (its own data dir)', async () => {
    const other = newBridgeData(database.url);
    try {
      // No keys in the environment: development mode would generate them in its empty data dir.
      const { exit, lines } = await tryStart(other, {
        NODE_ENV: 'development',
        BRIDGE_SECRET_KEY: '',
        BRIDGE_SESSION_SECRET: '',
        BRIDGE_DEMO: 'false',
      });
      expect(exit?.code).toBe(1);
      expect(lines[0]).toMatchObject({ level: 60, variables: ['BRIDGE_SECRET_KEY'] });
      expect(lines[0]!.msg).toMatch(
        /^BRIDGE_SECRET_KEY is not set and this store already has data under a key/,
      );
    } finally {
      removeBridgeData(other);
    }
  });

  it('accepts the previous key during a rotation; after `bridge secrets rotate`, only the new one', async () => {
    const rotated = newKey();
    const during = { BRIDGE_SECRET_KEY: rotated, BRIDGE_SECRET_KEY_PREVIOUS: data.secretKey };
    expect((await tryStart(data, during)).exit).toBeUndefined();
    const cli = await runBridgeCli(['secrets', 'rotate'], {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      BRIDGE_SESSION_SECRET: data.sessionSecret,
      ...during,
    });
    expect(cli.code).toBe(0);
    expect((await tryStart(data, { BRIDGE_SECRET_KEY: rotated })).exit).toBeUndefined();
    const old = await tryStart(data, {});
    expect(old.exit?.code).toBe(1);
    expect(old.lines[0]).toMatchObject({ variables: ['BRIDGE_SECRET_KEY'] });
    data.secretKey = rotated;
  }, 120_000);

  it('a new BRIDGE_SESSION_SECRET is recorded by `bridge secrets rotate`, then required', async () => {
    const session = randomBytes(32).toString('base64url');
    const cli = await runBridgeCli(['secrets', 'rotate'], {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      BRIDGE_SECRET_KEY: data.secretKey,
      BRIDGE_SESSION_SECRET: session,
    });
    expect(cli.code).toBe(0);
    expect((await tryStart(data, { BRIDGE_SESSION_SECRET: session })).exit).toBeUndefined();
    expect((await tryStart(data, {})).lines[0]).toMatchObject({
      variables: ['BRIDGE_SESSION_SECRET'],
    });
  }, 120_000);
});
