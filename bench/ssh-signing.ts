// SSH signing under attack (`npm run bench signing`): 8 callers each keep a verify going with a
// crafted SSH key (8192-bit modulus, the most the bridge accepts, with factors that are not
// prime, so OpenSSL signs it the slow way) against an SSH server that accepts any public key, while GET /healthz is measured
// at a steady rate against its idle value in the same run. The signature is made in a worker
// thread: the target is /healthz p99 within 2x idle. Needs no root.
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import ssh2 from 'ssh2';
import { craftRsa, pkcs1 } from '../test/support/crafted-rsa';
import { cpuMsOf } from '../test/support/proc-stats';
import { startBenchBridge } from './support/bench-bridge';
import { fmt, type LoadResult, load, median } from './support/load';

const ATTACKERS = 8;
const DURATION_S = 10;
const ROUNDS = 3;
const RATE = 100;
const KEY_BITS = 8192;

/** An SSH server that takes any public key and refuses every forward; counts signatures. */
async function startAcceptAnyKey() {
  const hostKey = ssh2.utils.generateKeyPairSync('ed25519').private;
  let signatures = 0;
  const server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
    client.on('error', () => {});
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
      if (ctx.signature) signatures++;
      ctx.accept();
    });
    client.on('ready', () => client.on('tcpip', (_accept, reject) => reject()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    signatures: () => signatures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** ATTACKERS loops, each one verify at a time; stop() resolves the statuses seen. */
function attack(url: string, key: string, orgId: string, body: unknown) {
  let stopped = false;
  const statuses: Record<string, number> = {};
  const loop = async () => {
    while (!stopped) {
      const res = await fetch(`${url}/api/public/organizations/${orgId}/data-sources/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).catch(() => undefined);
      const status = res ? String(res.status) : 'error';
      await res?.arrayBuffer();
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  const loops = Array.from({ length: ATTACKERS }, loop);
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return statuses;
    },
  };
}

export async function run() {
  const ssh = await startAcceptAnyKey();
  const bridge = await startBenchBridge({
    BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: '1000000',
    BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  try {
    const key = await bridge.cli('keys', 'create', '--email', 'signer@example.com');
    const org = await fetch(`${bridge.url}/api/public/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Signing' }),
    });
    const orgId = ((await org.json()) as { data: { id: string } }).data.id;
    const body = {
      dialect: 'POSTGRES',
      host: '127.0.0.1',
      username: 'u',
      sshEnabled: true,
      sshHost: '127.0.0.1',
      sshPort: ssh.port,
      sshUsername: 'u',
      sshPrivateKey: pkcs1(craftRsa(KEY_BITS)),
    };
    const opts = { url: `${bridge.url}/healthz`, connections: 4, duration: DURATION_S };
    await load({ ...opts, duration: 2 }); // warm-up
    const idle: LoadResult[] = [];
    const hostile: LoadResult[] = [];
    const cpu: number[] = [];
    let statuses: Record<string, number> = {};
    const before = ssh.signatures();
    for (let round = 0; round < ROUNDS; round++) {
      idle.push(await load({ ...opts, overallRate: RATE }));
      const attackers = attack(bridge.url, key, orgId, body);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const cpuBefore = cpuMsOf(bridge.pid);
      hostile.push(await load({ ...opts, overallRate: RATE }));
      cpu.push((cpuMsOf(bridge.pid) - cpuBefore) / (DURATION_S * 10));
      const seen = await attackers.stop();
      for (const [k, v] of Object.entries(seen))
        statuses = { ...statuses, [k]: (statuses[k] ?? 0) + v };
    }
    const idleP99 = median(idle.map((r) => r.p99));
    const hostileP99 = median(hostile.map((r) => r.p99));
    console.log(`\n## SSH signing (${ATTACKERS} verifies with crafted ${KEY_BITS}-bit keys)\n`);
    console.log(
      `GET /healthz, 4 connections at ${RATE} req/s for ${DURATION_S} s per phase; ${ROUNDS} interleaved ` +
        `rounds (medians; p99 range in brackets). Load average at the end ${os
          .loadavg()
          .map((l) => fmt(l, 1))
          .join(' ')}.\n`,
    );
    console.log('| phase | /healthz p99 ms | p99 / idle | bridge CPU | non-2xx | verify answers |');
    console.log('|---|---|---|---|---|---|');
    const range = (rs: LoadResult[]) =>
      `${median(rs.map((r) => r.p99))} [${Math.min(...rs.map((r) => r.p99))}–${Math.max(...rs.map((r) => r.p99))}]`;
    console.log(
      `| idle | ${range(idle)} | 1.00 | – | ${idle.reduce((n, r) => n + r.non2xx, 0)} | – |`,
    );
    console.log(
      `| ${ATTACKERS} hostile verifies | ${range(hostile)} | ${fmt(hostileP99 / Math.max(1, idleP99), 2)} | ` +
        `${fmt(median(cpu), 0)}% | ${hostile.reduce((n, r) => n + r.non2xx, 0)} | ${JSON.stringify(statuses)} |`,
    );
    console.log(
      `\nSignatures the SSH server received: ${ssh.signatures() - before}. Target: p99 ≤ 2 × idle.\n`,
    );
  } finally {
    await bridge.stop();
    await ssh.close();
  }
}
