import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedBridge, TestResponse } from '../../../test/support/bridge';
import { freePort } from '../../../test/support/free-port';
import { type ScenarioBridges, startScenarioBridges } from './api-examples/bridges';
import type { ExampleBridges } from './api-examples/generic-errors';
import { missingExamples, recordExamples } from './api-examples/record';
import { scenarios } from './api-examples/scenarios';
import { createWorld, HOST_ORIGIN, type World } from './api-examples/world';

// The OpenAPI document checked against the bridge by a tool we did not write: Prism, in proxy
// mode, in front of each scenario bridge (main, throttled, store down), validating against the
// document the bridge serves. Every scenario of ./api-examples runs through it: each route's
// success and each of its error titles (400 stray input, 401, 403 origin, 404, 409, 413, 415,
// 422, 429, 503 with the store stopped), plus stray input, bad cursors and refused sign-ins.
// Prism runs without `--errors`: with it, Prism answers a request without credentials itself
// (its security check cannot be turned off) instead of forwarding it, so the bridge's own 401
// would never be checked. Without it Prism forwards everything and lists every violation, of
// the request and of the response, in its `sl-violations` header; the test fails on any
// response violation, and on any request Prism finds invalid that the bridge carried out.

const PRISM = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')),
  'dist/index.js',
);

interface Prism {
  url: string;
  stop(): Promise<void>;
}

/** Prism's proxy on a free loopback port, in front of `upstream`, with the document it serves. */
async function startPrism(upstream: string): Promise<Prism> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      PRISM,
      'proxy',
      `${upstream}/api/public/openapi.json`,
      upstream,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--cors=false',
      '--verboseLevel=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited: ${output}`);
    const up = await fetch(`${url}/livez`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`prism did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** One violation Prism reported on an exchange, with the request and the bridge's status. */
interface Report {
  request: string;
  status: number;
  location: string;
  message: string;
}

interface Violation {
  location?: string[];
  message?: string;
}

/** `bridge` seen through `prism`: same data and deps, every request through the proxy. */
function through(bridge: ServedBridge, prism: Prism, reports: Report[]): ServedBridge {
  const sent = counts;
  return {
    ...bridge,
    url: prism.url,
    async request(method, p, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      // Prism's forwarder follows redirects, so the sign-in's 302 can't be seen through it: a
      // sign-in that may redirect (a token, framed by the host the organization allows) goes
      // to the bridge itself. Every other sign-in (no token, no framing page, another site's)
      // goes through Prism.
      const framing = headers.Referer ?? headers.referer ?? headers.origin ?? '';
      const direct =
        method === 'GET' &&
        /^\/api\/sso\/jwt\?(.*&)?jwt=/.test(p) &&
        framing.startsWith(HOST_ORIGIN);
      const base = direct ? bridge.url : prism.url;
      const res = await fetch(`${base}${p}`, { method, headers, body, redirect: 'manual' });
      if (!direct) sent.count++;
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      const answer: TestResponse = { status: res.status, headers: res.headers, body: parsed, text };
      const header = res.headers.get('sl-violations');
      for (const v of header ? (JSON.parse(header) as Violation[]) : []) {
        reports.push({
          request: `${method} ${p.length > 120 ? `${p.slice(0, 120)}…` : p}`,
          status: res.status,
          location: (v.location ?? []).join('.'),
          message: v.message ?? '',
        });
      }
      return answer;
    },
  };
}

const counts = { count: 0 };
let main: ServedBridge;
let started: ScenarioBridges;
let world: World;
let admin: string;
let prisms: Prism[] = [];
const reports: Report[] = [];
let problems: string[] = [];
let seconds = 0;

beforeAll(async () => {
  const t0 = performance.now();
  started = await startScenarioBridges();
  // Its own examples database: the examples test may run beside it.
  const made = await createWorld(started.bridges.main, `bridgekit_prism_${process.pid}`);
  world = made.world;
  admin = made.credentials.admin;
  const real = started.bridges;
  const names = Object.keys(real) as (keyof ExampleBridges)[];
  prisms = await Promise.all(names.map((name) => startPrism(real[name].url)));
  const proxied = Object.fromEntries(
    names.map((name, i) => [name, through(real[name], prisms[i]!, reports)]),
  ) as unknown as ExampleBridges;
  main = proxied.main;
  const recorded = await recordExamples(scenarios, {
    bridges: proxied,
    world,
    credentials: made.credentials,
  });
  problems = recorded.problems;
  seconds = (performance.now() - t0) / 1000;
}, 180_000);

afterAll(async () => {
  await Promise.all(prisms.map((p) => p.stop()));
  await started?.close();
  await world?.dispose();
  console.info(`prism: ${counts.count} requests through Prism, whole run ${seconds.toFixed(1)} s`);
});

describe('the bridge through Prism', () => {
  it('runs every scenario', () => {
    expect(missingExamples(scenarios)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('answers stray input, bad cursors and refused sign-ins as declared', async () => {
    const { org, dataSource, member } = world;
    const base = `/api/public/organizations/${org.id}`;
    const key = admin;
    const calls: [string, string, { key?: string; body?: unknown }][] = [
      ['GET', '/healthz?x=1', {}],
      ['GET', '/livez?x=1', {}],
      ['GET', '/readyz?x=1', {}],
      ['GET', `${base}/members/${member.id}?x=1`, { key }],
      ['PATCH', `${base}/members/${member.id}?x=1`, { key, body: { role: 'MEMBER' } }],
      ['GET', `${base}/data-sources/${dataSource.id}?x=1`, { key }],
      ['DELETE', `${base}/data-sources/${dataSource.id}?x=1`, { key }],
      ['POST', `${base}/jwt-secret?x=1`, { key }],
      ['POST', `${base}/jwt-secret`, { key, body: { x: 1 } }],
      ['DELETE', `${base}?x=1`, { key }],
      ['GET', '/api/public/organizations?cursor=nope', { key }],
      ['GET', `${base}/members?cursor=nope`, { key }],
      ['GET', `${base}/data-sources?cursor=nope`, { key }],
      ['GET', `${base}/data-sources/${dataSource.id}/schema?cursor=nope`, { key }],
      ['GET', '/api/sso/jwt?jwt=not.a.token', {}],
      ['GET', '/api/sso/jwt', {}],
    ];
    for (const [method, path, options] of calls) {
      const res = await main.request(method, path, options);
      expect(res.status, `${method} ${path}`).toBe(path.startsWith('/api/sso/jwt?jwt') ? 401 : 400);
    }
  });

  it('answers nothing the document does not declare', () => {
    expect(reports.filter((r) => r.location.startsWith('response'))).toEqual([]);
  });

  it('refuses every request the document calls invalid, and only those', () => {
    // Prism checks a request against the document; the bridge must refuse each one Prism
    // finds invalid (a 4xx), never carry it out.
    const accepted = reports.filter((r) => r.location.startsWith('request') && r.status < 400);
    expect(accepted).toEqual([]);
  });
});
