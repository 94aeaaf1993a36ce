// SSO exchange: POST /api/sso/jwt throughput and latency with a fresh jti per request for
// returning members, next to a bare Express POST route answering a body of the same size.
// Run alone: npx tsx --conditions=bridgekit-source -e "import('./bench/sso.ts').then(m => m.run())"
import os from 'node:os';
import { createSsoToken } from '@bridgekit/node';
import { cpuMsOf } from '../test/support/proc-stats';
import { startBareProcess } from './support/bare-process';
import { startBenchBridge } from './support/bench-bridge';
import { type LoadResult, load } from './support/load';
import { signFreshSsoToken } from './support/sso-token';

const CONNECTIONS = 32;
const DURATION_S = 10;
const WARMUP_S = 2;
const MEMBERS = 1000;
const TARGET_RATIO = 0.3;
const TARGET_P99_MS = 30;

interface Result extends LoadResult {
  /** CPU time of the server process per request, in µs. */
  cpuUs: number;
}

async function measure(
  url: string,
  pid: number,
  nextBody: () => string,
  duration: number,
): Promise<Result> {
  const cpuBefore = cpuMsOf(pid);
  const result = await load({
    url,
    connections: CONNECTIONS,
    duration,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        path: '/api/sso/jwt',
        setupRequest: (req) => ({ ...req, body: nextBody() }),
      },
    ],
  });
  return { ...result, cpuUs: ((cpuMsOf(pid) - cpuBefore) * 1000) / Math.max(1, result.total) };
}

const fixed = (n: number, digits = 0) => n.toFixed(digits);
const row = (name: string, r: Result) =>
  `| ${name} | ${fixed(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${r.total} | ${fixed(r.cpuUs)} |`;

export async function run(): Promise<void> {
  // The bridge as users run it: its own process, default logging; only the limits are raised.
  const bridge = await startBenchBridge();
  let bare: Awaited<ReturnType<typeof startBareProcess>> | undefined;
  try {
    const ownerKey = await bridge.cli('keys', 'create', '--email', 'bench-owner@example.com');
    const created = await fetch(`${bridge.url}/api/public/organizations?include=jwtSecret`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'SSO bench', embedAllowedOrigins: ['https://app.example.com'] }),
    });
    if (created.status !== 201) throw new Error(`create organization: ${created.status}`);
    const { id: orgId, jwtSecret: secret } = (
      (await created.json()) as { data: { id: string; jwtSecret: string } }
    ).data;

    // Returning members: every email signs in once before the run.
    const emails = Array.from({ length: MEMBERS }, (_, i) => `member${i}@bench.example.com`);
    let sample = '';
    for (let i = 0; i < emails.length; i += 25) {
      await Promise.all(
        emails.slice(i, i + 25).map(async (email) => {
          const jwt = await createSsoToken({ secret, orgId, user: { email } });
          const res = await fetch(`${bridge.url}/api/sso/jwt`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jwt }),
          });
          const text = await res.text();
          if (res.status !== 200) throw new Error(`seed ${email}: ${res.status} ${text}`);
          sample = text;
        }),
      );
    }

    let turn = 0;
    const nextBody = () =>
      JSON.stringify({ jwt: signFreshSsoToken(secret, orgId, emails[turn++ % emails.length]!) });

    bare = await startBareProcess(sample, 'POST', '/api/sso/jwt');
    // Warm both, so JIT and caches are in the same state when measured.
    await measure(bare.url, bare.pid, nextBody, WARMUP_S);
    await measure(bridge.url, bridge.pid, nextBody, WARMUP_S);
    const bareResult = await measure(bare.url, bare.pid, nextBody, DURATION_S);
    const bridgeResult = await measure(bridge.url, bridge.pid, nextBody, DURATION_S);

    const ratio = bridgeResult.rps / bareResult.rps;
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(
      `\n## SSO exchange (POST /api/sso/jwt, fresh jti per request, ${MEMBERS} returning members, ` +
        `SQLite, ${CONNECTIONS} connections, ${DURATION_S} s each, each server in its own process)\n`,
    );
    const loadAvg = os.loadavg().map((n) => n.toFixed(1));
    console.log(
      `Response body ${sample.length} bytes; ${os.cpus().length} CPUs, load average ${loadAvg.join(' ')} ` +
        '(other work on the machine skews both rows).\n',
    );
    console.log(
      '| server | req/s | p50 ms | p99 ms | non-2xx | errors | requests | server CPU µs/req |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    console.log(row('bare Express POST, pre-serialized', bareResult));
    console.log(row('bridge /api/sso/jwt', bridgeResult));
    console.log(
      `\nratio ${fixed(ratio, 2)} (target ≥ ${TARGET_RATIO}: ${verdict(ratio >= TARGET_RATIO)}), ` +
        `bridge p99 ${bridgeResult.p99} ms (target < ${TARGET_P99_MS}: ${verdict(bridgeResult.p99 < TARGET_P99_MS)}), ` +
        `bridge non-2xx ${bridgeResult.non2xx} (target 0: ${verdict(bridgeResult.non2xx === 0)}); ` +
        `CPU per request ratio bare/bridge ${fixed(bareResult.cpuUs / bridgeResult.cpuUs, 2)} ` +
        '(less sensitive to other load on the machine)\n',
    );
  } finally {
    await bare?.stop();
    await bridge.stop();
  }
}
