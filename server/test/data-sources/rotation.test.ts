import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SECRET_FIELDS } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, STORE_ENGINES } from '../../../test/support/bridge';
import { type CliResult, runBridgeCli } from '../../../test/support/bridge-cli';
import { ConfigError } from '../../src/config';
import { createApiKeyForEmail } from '../../src/domain/api-key-admin';
import { createSecretBox, keyIdOf } from '../../src/domain/secret-box';
import { sealedColumn } from '../../src/domain/serialize';
import type { Db } from '../../src/store/db';
import { claimsFor, signHs256 } from '../sso/support';
import { newSecretKey, type OpenedBridge, openBridge } from './support';

const SECRETS_FULL = {
  password: 'pw-rot-full-1',
  sshPassword: 'sshpw-rot-full-2',
  sshPrivateKey: 'sshkey-rot-full-3',
  sshPrivateKeyPassphrase: 'sshpass-rot-full-4',
  snowflakePrivateKey: 'sfkey-rot-full-5',
  snowflakePrivateKeyPassphrase: 'sfpass-rot-full-6',
  bigQueryJsonKey: 'bq-rot-full-7',
};
const BASE = { dialect: 'POSTGRES', host: 'rot.example.com', username: 'rot' };

interface SealedValue {
  table: 'organizations' | 'dataSources';
  id: string;
  field: string;
  sealed: string;
}

/** Every sealed value in the store, read straight from the tables. */
async function sealedValues(db: Db): Promise<SealedValue[]> {
  const out: SealedValue[] = [];
  const orgs = await db
    .selectFrom('organizations')
    .select(['id', 'jwtSecretSealed', 'previousJwtSecretSealed'])
    .execute();
  for (const org of orgs) {
    out.push({
      table: 'organizations',
      id: org.id,
      field: 'jwtSecret',
      sealed: org.jwtSecretSealed,
    });
    if (org.previousJwtSecretSealed) {
      const sealed = org.previousJwtSecretSealed;
      out.push({ table: 'organizations', id: org.id, field: 'previousJwtSecret', sealed });
    }
  }
  const sources = await db.selectFrom('dataSources').selectAll().execute();
  for (const row of sources) {
    for (const field of SECRET_FIELDS) {
      const sealed = row[sealedColumn[field]];
      if (sealed) out.push({ table: 'dataSources', id: row.id, field, sealed });
    }
  }
  return out;
}

describe.each(STORE_ENGINES)('secrets rotate on %s', (engine) => {
  const k1 = newSecretKey();
  const k2 = newSecretKey();
  const sessionSecret = randomBytes(32).toString('base64url');
  let dataDir: string;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let apiKey: string;
  let orgId: string;
  let jwtSecret: string;
  /** The secret the organization's jwtSecret rotation replaced (still in its grace period). */
  let previousJwtSecret: string;
  /** data source id → storedSecrets before rotation */
  const storedBefore = new Map<string, string[]>();
  const sentSecrets = new Map<string, Record<string, string>>();
  let jwtSecretReadWithPrevious: string;
  let rotateOutput: CliResult;
  let secondRunOutput: CliResult;
  let failedRun: CliResult;
  let sealedBefore: SealedValue[];
  let sealedAfterFirstRun: SealedValue[];
  let sealedAfterFailedRun: SealedValue[];
  let withK2: OpenedBridge;
  let k1Refused: unknown;

  const cliEnv = (current: string, previous?: string) => ({
    BRIDGE_DATA_DIR: dataDir,
    ...(database ? { DATABASE_URL: database.url } : {}),
    BRIDGE_SECRET_KEY: current,
    ...(previous ? { BRIDGE_SECRET_KEY_PREVIOUS: previous } : {}),
    BRIDGE_SESSION_SECRET: sessionSecret,
  });
  const rotate = (current: string, previous?: string) =>
    runBridgeCli(['secrets', 'rotate'], cliEnv(current, previous), 30_000);
  const open = (secretKey: string, previousKey?: string) =>
    openBridge({
      dataDir,
      databaseUrl: database?.url,
      secretKey,
      sessionSecret,
      ...(previousKey ? { previousKey } : {}),
    });

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-rotate-'));
    database = engine === 'sqlite' ? undefined : await createPgDatabase(engine);

    const first = await open(k1);
    apiKey = (
      await createApiKeyForEmail(
        first.deps.store.db,
        { email: `rotate-${engine}@example.com` },
        first.deps.now(),
      )
    ).key;
    const org = await first.request('POST', '/api/public/organizations?include=jwtSecret', {
      key: apiKey,
      body: { name: 'Rotate Org' },
    });
    orgId = org.body.data.id;
    previousJwtSecret = org.body.data.jwtSecret;
    const rotated = await first.request('POST', `/api/public/organizations/${orgId}/jwt-secret`, {
      key: apiKey,
    });
    jwtSecret = rotated.body.data.jwtSecret;
    await first.request('POST', '/api/public/organizations', {
      key: apiKey,
      body: { name: 'Rotate Org Two' },
    });
    const bodies = [
      { ...BASE, displayName: 'All secrets', ...SECRETS_FULL },
      { ...BASE, displayName: 'Password only', password: 'pw-rot-only' },
      { ...BASE, displayName: 'No secrets' },
    ];
    for (const body of bodies) {
      const res = await first.request('POST', `/api/public/organizations/${orgId}/data-sources`, {
        key: apiKey,
        body,
      });
      storedBefore.set(res.body.data.id, res.body.data.storedSecrets);
      const secrets = Object.fromEntries(
        Object.entries(body).filter(([k]) => (SECRET_FIELDS as readonly string[]).includes(k)),
      ) as Record<string, string>;
      sentSecrets.set(res.body.data.id, secrets);
    }
    sealedBefore = await sealedValues(first.deps.store.db);
    await first.stop();

    // Step one of a rotation: the new key is current, the old one still decrypts.
    const transitional = await open(k2, k1);
    const read = await transitional.request(
      'GET',
      `/api/public/organizations/${orgId}?include=jwtSecret`,
      { key: apiKey },
    );
    jwtSecretReadWithPrevious = read.body.data.jwtSecret;
    await transitional.stop();

    rotateOutput = await rotate(k2, k1);
    withK2 = await open(k2);
    k1Refused = await open(k1).then(
      async (bridge) => {
        await bridge.stop();
        return undefined;
      },
      (err: unknown) => err,
    );
    sealedAfterFirstRun = await sealedValues(withK2.deps.store.db);
    // Both change nothing, so they can run side by side (the CLI takes seconds to start).
    [secondRunOutput, failedRun] = await Promise.all([rotate(k2, k1), rotate(newSecretKey())]);
    sealedAfterFailedRun = await sealedValues(withK2.deps.store.db);
  });

  afterAll(async () => {
    await withK2?.stop();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('seals everything under K1 before the rotation', () => {
    // Two jwtSecrets, one previous jwtSecret, seven secrets of one source, one of another.
    expect(sealedBefore.length).toBe(2 + 1 + 7 + 1);
    for (const v of sealedBefore)
      expect(v.sealed.split('.')[1]).toBe(keyIdOf(Buffer.from(k1, 'base64')));
  });

  it('reads K1 values on a bridge with K2 current and K1 as previous', () => {
    expect(jwtSecretReadWithPrevious).toBe(jwtSecret);
  });

  it('prints how many organizations and data sources it re-encrypted', () => {
    expect(rotateOutput.stdout.trim()).toBe(
      're-encrypted 2 organization(s), 2 data source(s) and 0 webhook endpoint(s)',
    );
  });

  it('writes nothing but the counts to stdout and no secret to stderr', () => {
    expect(rotateOutput.stdout.trim().split('\n')).toHaveLength(1);
    const all = rotateOutput.stdout + rotateOutput.stderr;
    expect(all).not.toContain(jwtSecret);
    expect(all).not.toContain(previousJwtSecret);
    for (const secrets of sentSecrets.values()) {
      for (const value of Object.values(secrets)) expect(all).not.toContain(value);
    }
  });

  it('leaves every sealed value under K2', () => {
    const after = sealedAfterFirstRun;
    const k2Id = keyIdOf(Buffer.from(k2, 'base64'));
    expect(after).toHaveLength(sealedBefore.length);
    for (const v of after) {
      expect(v.sealed).toMatch(/^v1\./);
      expect(v.sealed.split('.')[1]).toBe(k2Id);
    }
  });

  it('changes every sealed value (none left as it was)', () => {
    const after = new Set(sealedAfterFirstRun.map((v) => v.sealed));
    for (const v of sealedBefore) expect(after.has(v.sealed)).toBe(false);
  });

  it('lets a bridge with only K2 return the jwtSecret unchanged', async () => {
    const res = await withK2.request(
      'GET',
      `/api/public/organizations/${orgId}?include=jwtSecret`,
      {
        key: apiKey,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.jwtSecret).toBe(jwtSecret);
  });

  it('lets a bridge with only K2 verify SSO tokens signed with the previous jwtSecret', async () => {
    for (const secret of [previousJwtSecret, jwtSecret]) {
      const jwt = await signHs256(claimsFor(orgId), secret);
      const res = await withK2.request('POST', '/api/sso/jwt', { body: { jwt } });
      expect(res.status).toBe(200);
    }
  });

  it('lets a bridge with only K2 list storedSecrets unchanged', async () => {
    for (const [id, stored] of storedBefore) {
      const res = await withK2.request(
        'GET',
        `/api/public/organizations/${orgId}/data-sources/${id}`,
        { key: apiKey },
      );
      expect(res.status).toBe(200);
      expect(res.body.data.storedSecrets).toEqual(stored);
    }
  });

  it('lets a bridge with only K2 open every data source secret to its original value', async () => {
    for (const v of await sealedValues(withK2.deps.store.db)) {
      if (v.table !== 'dataSources') continue;
      expect(withK2.deps.secretBox.open(v.sealed, v.id, v.field)).toBe(
        sentSecrets.get(v.id)?.[v.field],
      );
    }
  });

  it('leaves K1 unable to open any sealed value', async () => {
    const values = await sealedValues(withK2.deps.store.db);
    expect(values.length).toBeGreaterThan(0);
    const k1Box = createSecretBox(Buffer.from(k1, 'base64'));
    for (const v of values) {
      expect(() => k1Box.open(v.sealed, v.id, v.field)).toThrow();
    }
  });

  it('records K2 as the store key: a bridge with only K1 is refused at start, naming it', () => {
    expect(k1Refused).toBeInstanceOf(ConfigError);
    expect((k1Refused as ConfigError).variables).toEqual(['BRIDGE_SECRET_KEY']);
  });

  it('re-encrypts nothing when run again', () => {
    expect(secondRunOutput.stdout.trim()).toBe(
      're-encrypted 0 organization(s), 0 data source(s) and 0 webhook endpoint(s)',
    );
  });

  it('fails with exit code 1, naming the variable, when the keys given are not the store’s', () => {
    expect(failedRun.code).toBe(1);
    expect(failedRun.stderr).toMatch(/BRIDGE_SECRET_KEY does not match this store/);
  });

  it('changes nothing when it fails', () => {
    expect(sealedAfterFailedRun).toEqual(sealedAfterFirstRun);
  });
});
