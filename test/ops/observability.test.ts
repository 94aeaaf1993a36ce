import http from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../support/bridge';
import { type BridgeData, newBridgeData, removeBridgeData } from '../support/bridge-data';
import { type BridgeProcess, buildBridge, startBridgeProcess } from '../support/bridge-process';
import { freePort } from '../support/free-port';
import { type RedisServer, startRedisServer } from '../support/redis-server';
import { until } from '../support/wait';
import { adminWithOrg, call, jsonLines, verifyBody } from './support';

/** An SSO token for `email` in `orgId`, signed with the organization's jwtSecret. */
const ssoToken = (orgId: string, jwtSecret: string, email = 'ops@example.com') =>
  new SignJWT({ email, orgId })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(jwtSecret));

const exchange = async (base: string, jwt: string) => {
  const res = await fetch(`${base}/api/sso/jwt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jwt }),
  });
  return { status: res.status, body: (await res.json()) as { error?: Record<string, unknown> } };
};

/** What the collector keeps of an OTLP/HTTP JSON span. */
interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  resource: { attributes: OtlpAttribute[] };
}

beforeAll(async () => {
  await buildBridge();
}, 120_000);

describe('Redis down: SSO fails closed, the API goes on under a per-instance limit, readiness stays', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let redis: RedisServer;
  let data: BridgeData;
  let bridge: BridgeProcess;
  let admin: Awaited<ReturnType<typeof adminWithOrg>>;

  beforeAll(async () => {
    [database, redis] = await Promise.all([createPgDatabase(), startRedisServer()]);
    data = newBridgeData(database.url);
    bridge = await startBridgeProcess({
      data,
      env: {
        LOG_LEVEL: 'info',
        REDIS_URL: redis.url,
        BRIDGE_RATE_LIMIT_STORE: 'redis',
        BRIDGE_RATE_LIMIT_PER_MINUTE: '5',
        BRIDGE_LOG_SUMMARY_S: '2',
      },
    });
    admin = await adminWithOrg(data, bridge.url);
    await redis.stop();
  }, 60_000);
  afterAll(async () => {
    await bridge.stop();
    removeBridgeData(data);
    await database.drop();
  });

  it('/livez answers 200 without looking at any dependency', async () => {
    const res = await fetch(`${bridge.url}/livez`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz stays ready and names Redis as unavailable', async () => {
    const res = await fetch(`${bridge.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', store: 'ok', redis: 'unavailable' });
  });

  it('answers the SSO exchange 503 naming Redis (its limit and replay set fail closed)', async () => {
    const res = await exchange(bridge.url, await ssoToken(admin.orgId, admin.jwtSecret));
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({
      title: 'ServiceUnavailable',
      code: 'rate_limit_unavailable',
      params: { dependency: 'redis' },
    });
  });

  it('serves keyed API requests under the per-instance limit (5/min here), then 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await call(bridge.url, admin.key, 'GET', '/api/public/organizations')).status);
    }
    // The organization's creation counted once while Redis was up; these count in the instance.
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });

  it('logs the fallback once, then one summary line with a count per interval', async () => {
    for (let i = 0; i < 3; i++)
      await call(bridge.url, admin.key, 'GET', '/api/public/organizations');
    const summary = await until(
      'the summary line',
      async () => jsonLines(bridge.stdout()).filter((l) => l.failure === 'rate_limit_local'),
      (lines) => lines.some((l) => typeof l.repeated === 'number'),
      10_000,
    );
    expect(summary[0]).toMatchObject({
      level: 40,
      msg: 'redis unavailable: rate limits counted per instance',
    });
    const counted = summary.find((l) => typeof l.repeated === 'number')!;
    expect(counted.repeated).toBeGreaterThanOrEqual(9);
    expect(counted.msg).toMatch(/\(\d+ more in the last 2 s\)$/);
    // No line per request: far fewer than the ~12 refused counts and reconnect errors.
    expect(summary.length).toBeLessThanOrEqual(4);
  });

  it('writes the instance (hostname, pid) on every line, and no probe on the access log', () => {
    const lines = jsonLines(bridge.stdout());
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      expect(line).toMatchObject({ pid: bridge.pid, hostname: expect.any(String) });
    }
    const urls = lines.filter((l) => l.msg === 'request').map((l) => l.url);
    expect(urls).toContain('/api/public/organizations');
    expect(urls).not.toContain('/livez');
    expect(urls).not.toContain('/readyz');
  });
});

/** An OTLP/HTTP collector in the test: keeps the spans it is sent (JSON). */
async function startCollector() {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as {
          resourceSpans?: {
            resource: OtlpSpan['resource'];
            scopeSpans?: { spans?: Omit<OtlpSpan, 'resource'>[] }[];
          }[];
        };
        for (const rs of payload.resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) {
            for (const span of ss.spans ?? []) spans.push({ ...span, resource: rs.resource });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, spans, close: () => server.close() };
}

describe('Prometheus metrics and OpenTelemetry traces', () => {
  let bridge: BridgeProcess;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let metricsPort: number;
  let data: BridgeData;
  let admin: Awaited<ReturnType<typeof adminWithOrg>>;
  const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
  const PARENT = '00f067aa0ba902b7';

  beforeAll(async () => {
    collector = await startCollector();
    metricsPort = await freePort();
    data = newBridgeData();
    bridge = await startBridgeProcess({
      data,
      env: {
        BRIDGE_METRICS_PORT: String(metricsPort),
        BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'bridge-under-test',
      },
    });
    admin = await adminWithOrg(data, bridge.url);
    for (let i = 0; i < 3; i++)
      await call(bridge.url, admin.key, 'GET', '/api/public/organizations');
    await call(bridge.url, admin.key, 'GET', `/api/public/organizations/${admin.orgId}`);
    await exchange(bridge.url, await ssoToken(admin.orgId, admin.jwtSecret));
    await exchange(bridge.url, 'not-a-token');
    // A verify against a closed port: refused, 422.
    const closed = await freePort();
    await call(
      bridge.url,
      admin.key,
      'POST',
      `/api/public/organizations/${admin.orgId}/data-sources/verify`,
      verifyBody(closed),
    );
    await fetch(`${bridge.url}/api/public/organizations`, {
      headers: {
        authorization: `Bearer ${admin.key}`,
        traceparent: `00-${TRACE_ID}-${PARENT}-01`,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await bridge.stop();
    removeBridgeData(data);
    collector.close();
  });

  const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();

  it('counts requests by route template, method and status in a latency histogram', async () => {
    const text = await scrape();
    expect(text).toMatch(
      /^bridge_http_request_duration_seconds_count\{route="\/api\/public\/organizations",method="GET",status="200"\} 4$/m,
    );
    expect(text).toMatch(
      /^bridge_http_request_duration_seconds_count\{route="\/api\/public\/organizations\/:orgId",method="GET",status="200"\} 1$/m,
    );
    expect(text).toMatch(/^bridge_http_request_duration_seconds_bucket\{le="0.005",route=/m);
  });

  it('counts SSO exchanges and verifies by outcome', async () => {
    const text = await scrape();
    expect(text).toMatch(/^bridge_verify_total\{outcome="failed"\} 1$/m);
    expect(text).toMatch(/^bridge_sso_exchanges_total\{method="POST",outcome="signed_in"\} 1$/m);
    expect(text).toMatch(/^bridge_sso_exchanges_total\{method="POST",outcome="refused"\} 1$/m);
  });

  it('reports event-loop lag and the process, on its own listener only', async () => {
    const text = await scrape();
    expect(text).toMatch(/^bridge_nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^bridge_process_resident_memory_bytes \d/m);
    expect((await fetch(`${bridge.url}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
  });

  it('sends a server span per request, continuing the caller’s W3C traceparent', async () => {
    const span = await until(
      'the span of the traced request',
      async () => collector.spans.find((s) => s.traceId === TRACE_ID),
      Boolean,
      10_000,
    );
    expect(span).toMatchObject({
      parentSpanId: PARENT,
      name: 'GET /api/public/organizations',
      kind: 2,
    });
    const attributes = Object.fromEntries(
      span!.attributes.map((a) => [a.key, Object.values(a.value)[0]]),
    );
    expect(attributes).toMatchObject({
      'http.route': '/api/public/organizations',
      'http.response.status_code': 200,
    });
    const service = span!.resource.attributes.find((a) => a.key === 'service.name');
    expect(service?.value.stringValue).toBe('bridge-under-test');
  });

  it('starts a trace of its own for a request without traceparent', () => {
    const own = collector.spans.filter(
      (s) => s.traceId !== TRACE_ID && s.name === 'GET /api/public/organizations',
    );
    expect(own.length).toBeGreaterThanOrEqual(3);
    expect(own.every((s) => !s.parentSpanId)).toBe(true);
  });
});
