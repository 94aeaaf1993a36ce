import fs from 'node:fs';
import path from 'node:path';
import { type DataSource, SECRET_FIELDS } from '@bridgekit/contract';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { sealedColumn } from '../../src/domain/serialize';

const SECRETS_A = {
  password: 'pw-CANARY-rest-a1-7f3k',
  sshPassword: 'sshpw-CANARY-rest-a2-9q2m',
  sshPrivateKey: '-----BEGIN KEY-----CANARY-rest-a3-x8v1-----END KEY-----',
  sshPrivateKeyPassphrase: 'pass-CANARY-rest-a4-c4n7',
  snowflakePrivateKey: 'sfkey-CANARY-rest-a5-p0w2',
  snowflakePrivateKeyPassphrase: 'sfpass-CANARY-rest-a6-r5t8',
  bigQueryJsonKey: '{"private_key":"bq-CANARY-rest-a7-z1y3"}',
};
const SECRETS_B = { password: 'pw-CANARY-rest-b1-h6j9', sshPassword: 'sshpw-CANARY-rest-b2-u2e4' };
const PATCHED_PASSWORD = 'pw-CANARY-rest-a1-patched-w3s5';
const ALL = [...Object.values(SECRETS_A), ...Object.values(SECRETS_B), PATCHED_PASSWORD];

/** The encodings a careless store might hold a secret in, at every base64 alignment. */
function encodingsOf(secret: string): string[] {
  const out = [Buffer.from(secret).toString('hex')];
  for (let pad = 0; pad < 3; pad++) {
    const bytes = Buffer.concat([Buffer.alloc(pad), Buffer.from(secret)]);
    for (const enc of ['base64', 'base64url'] as const) {
      // Drop the characters touched by the padding bytes and by the end of the input.
      out.push(bytes.toString(enc).slice(pad === 0 ? 0 : 4, -4));
    }
  }
  return out;
}

describe.each(ENGINES)('secrets at rest on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let orgId: string;
  let jwtSecret: string;
  let a: DataSource;
  let b: DataSource;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;

  /** Everything the store holds, as text: the raw SQLite files, or every row of both tables. */
  async function storeDump(): Promise<string> {
    if (engine === 'sqlite') {
      const files = ['bridge.db', 'bridge.db-wal'].map((f) => path.join(bridge.dataDir, f));
      return files
        .filter((f) => fs.existsSync(f))
        .map((f) => fs.readFileSync(f).toString('latin1'))
        .join('\n');
    }
    const client = new pg.Client({ connectionString: bridge.databaseUrl });
    await client.connect();
    try {
      const sources = await client.query('select * from data_sources');
      const orgs = await client.query('select * from organizations');
      return JSON.stringify([...sources.rows, ...orgs.rows]);
    } finally {
      await client.end();
    }
  }
  const row = (id: string) =>
    bridge.deps.store.db
      .selectFrom('dataSources')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    const org = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
      key: admin.key,
      body: { name: 'Rest Org' },
    });
    orgId = org.body.data.id;
    jwtSecret = org.body.data.jwtSecret;
    const common = { dialect: 'POSTGRES', host: 'rest-host.example.com', username: 'rest-user' };
    a = (
      await bridge.request('POST', base(), {
        key: admin.key,
        body: { ...common, displayName: 'Rest Source A', ...SECRETS_A },
      })
    ).body.data;
    b = (
      await bridge.request('POST', base(), {
        key: admin.key,
        body: { ...common, displayName: 'Rest Source B', ...SECRETS_B },
      })
    ).body.data;
    await bridge.request('PATCH', `${base()}/${a.id}`, {
      key: admin.key,
      body: { password: PATCHED_PASSWORD },
    });
  });
  afterAll(() => bridge.stop());

  it('holds the records where the test looks (the dump is not empty by mistake)', async () => {
    const dump = await storeDump();
    expect(dump).toContain('Rest Source A');
    expect(dump).toContain('rest-host.example.com');
    expect(dump).toContain((await row(a.id)).passwordSealed);
  });

  it('holds no data source secret in clear', async () => {
    const dump = await storeDump();
    for (const secret of ALL) expect(dump).not.toContain(secret);
  });

  it('holds no data source secret as base64, base64url or hex', async () => {
    const dump = await storeDump();
    for (const secret of ALL) {
      for (const encoded of encodingsOf(secret)) expect(dump).not.toContain(encoded);
    }
  });

  it('holds not even the distinctive marker of the secrets', async () => {
    expect(await storeDump()).not.toContain('CANARY');
  });

  it('seals every stored secret as v1.<current key id>.…', async () => {
    const stored = await row(a.id);
    for (const field of SECRET_FIELDS) {
      const sealed = stored[sealedColumn[field]];
      expect(sealed).toMatch(/^v1\./);
      expect(sealed?.split('.')[1]).toBe(bridge.deps.secretBox.currentKeyId);
    }
  });

  it('leaves the sealed columns of secrets not given null', async () => {
    const stored = await row(b.id);
    expect(stored.passwordSealed).toMatch(/^v1\./);
    expect(stored.sshPasswordSealed).toMatch(/^v1\./);
    expect(stored.sshPrivateKeySealed).toBeNull();
    expect(stored.bigQueryJsonKeySealed).toBeNull();
  });

  it('seals the same secret differently in two records (fresh nonce)', async () => {
    const sameSecret = { dialect: 'POSTGRES', host: 'h', username: 'u', password: 'pw-same-twice' };
    const one = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...sameSecret, displayName: 'Twin 1' },
    });
    const two = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...sameSecret, displayName: 'Twin 2' },
    });
    const sealedOne = (await row(one.body.data.id)).passwordSealed;
    const sealedTwo = (await row(two.body.data.id)).passwordSealed;
    expect(sealedOne).not.toBe(sealedTwo);
  });

  it('opens each sealed value back to exactly what was sent', async () => {
    const stored = await row(a.id);
    const opened = Object.fromEntries(
      SECRET_FIELDS.map((f) => [
        f,
        bridge.deps.secretBox.open(stored[sealedColumn[f]] as string, a.id, f),
      ]),
    );
    expect(opened).toEqual({ ...SECRETS_A, password: PATCHED_PASSWORD });
  });

  it('holds the organization jwtSecret sealed, not in clear', async () => {
    expect(jwtSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const dump = await storeDump();
    expect(dump).not.toContain(jwtSecret);
    for (const encoded of encodingsOf(jwtSecret)) expect(dump).not.toContain(encoded);
  });

  it('holds not even the raw bytes of the jwtSecret', async () => {
    const raw = Buffer.from(jwtSecret, 'base64url').toString('latin1');
    expect(raw).toHaveLength(32);
    expect(await storeDump()).not.toContain(raw);
  });

  it('stores the jwtSecret as v1.<current key id>.…', async () => {
    const org = await bridge.deps.store.db
      .selectFrom('organizations')
      .select('jwtSecretSealed')
      .where('id', '=', orgId)
      .executeTakeFirstOrThrow();
    expect(org.jwtSecretSealed).toMatch(
      new RegExp(`^v1\\.${bridge.deps.secretBox.currentKeyId}\\.`),
    );
    expect(bridge.deps.secretBox.open(org.jwtSecretSealed, orgId, 'jwtSecret')).toBe(jwtSecret);
  });

  it('refuses to open a sealed value moved to another record (record id is bound)', async () => {
    const sealedOfB = (await row(b.id)).passwordSealed as string;
    const victim = await bridge.request('POST', base(), {
      key: admin.key,
      body: { dialect: 'POSTGRES', displayName: 'Victim', host: 'h', username: 'u', password: 'x' },
    });
    const victimId: string = victim.body.data.id;
    await sql`update data_sources set password_sealed = ${sealedOfB} where id = ${victimId}`.execute(
      bridge.deps.store.db,
    );
    const moved = (await row(victimId)).passwordSealed as string;
    expect(moved).toBe(sealedOfB);
    expect(() => bridge.deps.secretBox.open(moved, victimId, 'password')).toThrow();
    expect(bridge.deps.secretBox.open(moved, b.id, 'password')).toBe(SECRETS_B.password);
  });

  it('refuses to open a sealed value moved to another field (field name is bound)', async () => {
    const stored = await row(b.id);
    expect(() =>
      bridge.deps.secretBox.open(stored.passwordSealed as string, b.id, 'sshPassword'),
    ).toThrow();
  });

  it('refuses to open a jwtSecret moved to another organization', async () => {
    const other = await bridge.request('POST', '/api/public/organizations', {
      key: admin.key,
      body: { name: 'Rest Org Two' },
    });
    const otherId: string = other.body.data.id;
    await sql`update organizations set jwt_secret_sealed = (select jwt_secret_sealed from organizations where id = ${orgId}) where id = ${otherId}`.execute(
      bridge.deps.store.db,
    );
    const org = await bridge.deps.store.db
      .selectFrom('organizations')
      .select('jwtSecretSealed')
      .where('id', '=', otherId)
      .executeTakeFirstOrThrow();
    expect(() => bridge.deps.secretBox.open(org.jwtSecretSealed, otherId, 'jwtSecret')).toThrow();
  });

  it('refuses to open a sealed value whose ciphertext was altered', async () => {
    const sealed = (await row(b.id)).sshPasswordSealed as string;
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] as string, 'base64url');
    body[0] = (body[0] as number) ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => bridge.deps.secretBox.open(parts.join('.'), b.id, 'sshPassword')).toThrow();
  });
});
