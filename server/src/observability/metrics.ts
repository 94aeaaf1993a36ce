import type { Redis } from 'ioredis';
import type Pg from 'pg';
import type * as PromClient from 'prom-client';
import { lazy } from '../lazy';

const prom = lazy<typeof PromClient>('prom-client');

/** What the bridge counts; every method is a no-op while metrics are off. */
export interface Metrics {
  /** The Prometheus registry to scrape; undefined while off. */
  readonly registry: PromClient.Registry | undefined;
  /** One answered request: its route template (`(unmatched)` for none), method and status. */
  request(route: string, method: string, status: number, seconds: number): void;
  /** One background job's result (`ran`, `busy`, `late`, `gone`, `handed-back`, `failed`). */
  job(kind: string, result: string): void;
}

export const noMetrics: Metrics = { registry: undefined, request() {}, job() {} };

const SSO_PATH = '/api/sso/jwt';
const VERIFY_PATH = '/api/public/organizations/:orgId/data-sources/verify';

/** An SSO exchange's outcome by its answer. */
function ssoOutcome(status: number): string {
  if (status === 200 || status === 302) return 'signed_in';
  return (
    { 401: 'refused', 403: 'origin_refused', 429: 'rate_limited', 503: 'unavailable' }[status] ??
    (status < 500 ? 'invalid' : 'error')
  );
}

/** A verify's outcome by its answer. */
function verifyOutcome(status: number): string {
  if (status === 200) return 'verified';
  return (
    { 422: 'failed', 429: 'rate_limited', 503: 'unavailable' }[status] ??
    (status < 500 ? 'refused' : 'error')
  );
}

/**
 * Prometheus metrics in a registry of their own: requests by route template and status (a
 * histogram: its `_count` is the request count), SSO exchanges and verifies by outcome,
 * background jobs by result, the PostgreSQL pool and Redis connection, and Node's defaults
 * (event-loop lag among them).
 */
export function createMetrics(sources: { pgPool?: Pg.Pool; redis?: Redis }): Metrics {
  const { Registry, Histogram, Counter, Gauge, collectDefaultMetrics } = prom();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'bridge_' });
  const requests = new Histogram({
    name: 'bridge_http_request_duration_seconds',
    help: 'Requests answered, by route template, method and status, and how long each took',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const sso = new Counter({
    name: 'bridge_sso_exchanges_total',
    help: 'SSO token exchanges (POST and GET /api/sso/jwt), by outcome',
    labelNames: ['method', 'outcome'] as const,
    registers: [registry],
  });
  const verifies = new Counter({
    name: 'bridge_verify_total',
    help: 'Credential verifications, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'bridge_jobs_total',
    help: 'Background jobs (health checks, syncs), by kind and result',
    labelNames: ['kind', 'result'] as const,
    registers: [registry],
  });
  const { pgPool, redis } = sources;
  if (pgPool) {
    new Gauge({
      name: 'bridge_pg_pool_connections',
      help: "The PostgreSQL pool's connections: open (total), idle, and requests waiting for one",
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, pgPool.totalCount);
        this.set({ state: 'idle' }, pgPool.idleCount);
        this.set({ state: 'waiting' }, pgPool.waitingCount);
      },
    });
  }
  if (redis) {
    new Gauge({
      name: 'bridge_redis_up',
      help: '1 while the Redis connection is ready, else 0',
      registers: [registry],
      collect() {
        this.set(redis.status === 'ready' ? 1 : 0);
      },
    });
  }
  return {
    registry,
    request(route, method, status, seconds) {
      requests.observe({ route, method, status }, seconds);
      if (route === SSO_PATH) sso.inc({ method, outcome: ssoOutcome(status) });
      else if (route === VERIFY_PATH) verifies.inc({ outcome: verifyOutcome(status) });
    },
    job(kind, result) {
      jobs.inc({ kind, result });
    },
  };
}
