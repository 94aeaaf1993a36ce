import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../support/bridge';
import { runBridgeCli } from '../support/bridge-cli';
import { type BridgeData, newBridgeData, removeBridgeData } from '../support/bridge-data';
import { type BridgeProcess, buildBridge, startBridgeProcess } from '../support/bridge-process';
import { writeSelfSignedCert } from '../support/self-signed-cert';
import { adminWithOrg, call, dataSourceAt, jsonLines, type RoguePg, startRoguePg } from './support';

beforeAll(async () => {
  await buildBridge();
}, 120_000);

describe('bridge backup under load, and a restore', () => {
  const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
  let data: BridgeData;
  let restored: BridgeData;
  let bridge: BridgeProcess;
  let rogue: RoguePg;
  let trustRogue: Record<string, string>;
  let admin: Awaited<ReturnType<typeof adminWithOrg>>;
  let dataSourceId: string;
  const acks: { id: string; at: number }[] = [];
  let backupStartedAt: number;
  let backupOutput: string;

  beforeAll(async () => {
    data = newBridgeData();
    // The rogue asks for the password in clear text, which goes only to a verified peer: TLS
    // under a certificate the bridge trusts through NODE_EXTRA_CA_CERTS.
    const files = {
      keyFile: path.join(data.dataDir, 'rogue-key.pem'),
      certFile: path.join(data.dataDir, 'rogue-cert.pem'),
    };
    await writeSelfSignedCert(files, ['127.0.0.1']);
    trustRogue = { NODE_EXTRA_CA_CERTS: files.certFile };
    rogue = await startRoguePg('password', {
      tls: {
        key: fs.readFileSync(files.keyFile, 'utf8'),
        cert: fs.readFileSync(files.certFile, 'utf8'),
      },
    });
    // Four writers without pause pass the default 600 a minute on a fast machine.
    bridge = await startBridgeProcess({
      data,
      env: {
        BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
        BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
        ...trustRogue,
      },
    });
    admin = await adminWithOrg(data, bridge.url);
    const ds = await call(
      bridge.url,
      admin.key,
      'POST',
      `/api/public/organizations/${admin.orgId}/data-sources`,
      { ...dataSourceAt(rogue.port, PASSWORD), sslEnabled: true },
    );
    dataSourceId = ds.body.data.id;
    // Writers create organizations without pause while the backup runs.
    let writing = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) {
        const res = await call(bridge.url, admin.key, 'POST', '/api/public/organizations', {
          name: 'Under load',
        });
        if (res.status === 201) acks.push({ id: res.body.data.id, at: Date.now() });
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    backupStartedAt = Date.now();
    backupOutput = await bridge.cli('backup', path.join(data.dataDir, 'copy.db'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    writing = false;
    await Promise.all(writers);
    await bridge.stop();

    // The restore: the copy as the store of a new data dir, with the same keys.
    restored = { ...newBridgeData(), secretKey: data.secretKey, sessionSecret: data.sessionSecret };
    fs.copyFileSync(path.join(data.dataDir, 'copy.db'), path.join(restored.dataDir, 'bridge.db'));
    bridge = await startBridgeProcess({
      data: restored,
      env: { BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true', ...trustRogue },
    });
  }, 120_000);
  afterAll(async () => {
    await bridge.stop();
    await rogue.close();
    removeBridgeData(data);
    removeBridgeData(restored);
  });

  it('says where it wrote the copy and how big it is', () => {
    expect(backupOutput).toMatch(/^backed up the store to \/.*\/copy\.db \(\d+ bytes\)$/);
  });

  it('was taken under load: writes were acknowledged before and after it started', () => {
    expect(acks.filter((a) => a.at < backupStartedAt).length).toBeGreaterThan(10);
    expect(acks.filter((a) => a.at > backupStartedAt).length).toBeGreaterThan(0);
  });

  it('holds every organization acknowledged before the backup started', async () => {
    const ids = new Set<string>();
    let cursor = '';
    for (;;) {
      const page = await call(
        bridge.url,
        admin.key,
        'GET',
        `/api/public/organizations?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      for (const org of page.body.data) ids.add(org.id);
      if (!page.body.pagination.hasMore) break;
      cursor = page.body.pagination.nextCursor;
    }
    const missing = acks.filter((a) => a.at < backupStartedAt && !ids.has(a.id));
    expect(missing).toEqual([]);
  });

  it('opens its sealed secrets with the same key: a health check sends the stored password', async () => {
    const res = await call(
      bridge.url,
      admin.key,
      'POST',
      `/api/public/organizations/${admin.orgId}/data-sources/${dataSourceId}/health-check`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.lastHealthStatus).toBe('UNHEALTHY');
    expect(rogue.passwords).toEqual([PASSWORD]);
    expect(rogue.tlsUsed).toEqual([true]);
  });

  it('refuses to start on the copy with another BRIDGE_SECRET_KEY, naming it', async () => {
    const other = newBridgeData();
    fs.copyFileSync(path.join(data.dataDir, 'copy.db'), path.join(other.dataDir, 'bridge.db'));
    const wrong = await startBridgeProcess({ data: other, ready: 'none' });
    expect((await wrong.exited).code).toBe(1);
    expect(jsonLines(wrong.stderr())[0]).toMatchObject({ variables: ['BRIDGE_SECRET_KEY'] });
    removeBridgeData(other);
  });
});

describe('bridge backup on PostgreSQL', () => {
  it('refuses (exit 2), pointing at pg_dump', async () => {
    const database = await createPgDatabase();
    const data = newBridgeData(database.url);
    try {
      const res = await runBridgeCli(['backup', path.join(data.dataDir, 'x.db')], {
        DATABASE_URL: database.url,
        BRIDGE_SECRET_KEY: data.secretKey,
        BRIDGE_SESSION_SECRET: data.sessionSecret,
      });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('on PostgreSQL use pg_dump');
      expect(fs.existsSync(path.join(data.dataDir, 'x.db'))).toBe(false);
    } finally {
      removeBridgeData(data);
      await database.drop();
    }
  }, 60_000);
});
