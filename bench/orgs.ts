import { createPgDatabase } from '../server/test/support/bridge';
import type { BridgeProcess } from '../test/support/bridge-process';
import { startBareProcess } from './support/bare-process';
import { startBenchBridge } from './support/bench-bridge';
import { fmt, type LoadResult, load } from './support/load';

const CONNECTIONS = 16;
const DURATION_S = 10;

async function measure(bridge: BridgeProcess) {
  const key = await bridge.cli('keys', 'create', '--email', 'bench@example.com');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${bridge.url}/api/public/organizations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: `Bench org ${i}`,
        embedAllowedOrigins: ['https://*.example.com'],
      }),
    });
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status}`);
  }
  const path = '/api/public/organizations?limit=50';
  const body = await (await fetch(`${bridge.url}${path}`, { headers })).text();
  const bare = await startBareProcess(body, 'GET', '/api/public/organizations');
  const opts = { connections: CONNECTIONS, duration: DURATION_S };
  // Warm both up so JIT and caches are in the same state.
  await load({ url: `${bare.url}${path}`, ...opts, duration: 2 });
  await load({ url: `${bridge.url}${path}`, headers, ...opts, duration: 2 });
  const bareResult = await load({ url: `${bare.url}${path}`, ...opts });
  const bridgeResult = await load({ url: `${bridge.url}${path}`, headers, ...opts });
  const rss = bridge.rssMb();
  const peakRss = bridge.peakRssMb();
  await bare.stop();
  return { bareResult, bridgeResult, rss, peakRss, bytes: body.length };
}

const row = (name: string, r: LoadResult) =>
  `| ${name} | ${fmt(r.rps, 0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`;

/** Authenticated GET /api/public/organizations?limit=50 vs a bare Express route with the same body. */
export async function run() {
  console.log(
    `\n## Organizations list (limit=50, ${CONNECTIONS} connections, ${DURATION_S} s each)\n`,
  );
  for (const engine of ['sqlite', 'postgres'] as const) {
    const db = engine === 'postgres' ? await createPgDatabase() : undefined;
    const bridge = await startBenchBridge(db ? { DATABASE_URL: db.url } : {});
    try {
      const { bareResult, bridgeResult, rss, peakRss, bytes } = await measure(bridge);
      const ratio = bridgeResult.rps / bareResult.rps;
      const target = engine === 'sqlite' ? 0.6 : 0.45;
      console.log(`### ${engine} (body ${bytes} bytes)\n`);
      console.log('| server | req/s | p50 ms | p99 ms | non-2xx | errors |');
      console.log('|---|---|---|---|---|---|');
      console.log(row('bare Express, pre-serialized', bareResult));
      console.log(row('bridge', bridgeResult));
      console.log(
        `\nratio ${fmt(ratio, 2)} (target ≥ ${target}: ${ratio >= target ? 'met' : 'MISSED'}), ` +
          `bridge peak RSS ${fmt(peakRss, 0)} MB (target < 150: ${peakRss < 150 ? 'met' : 'MISSED'}; ${fmt(rss, 0)} MB at the end), ` +
          `non-2xx ${bridgeResult.non2xx} (target 0: ${bridgeResult.non2xx === 0 ? 'met' : 'MISSED'})\n`,
      );
    } finally {
      await bridge.stop();
      await db?.drop();
    }
  }
}
