import { randomBytes } from 'node:crypto';
import { createSsoToken } from '@bridgekit/node';
import type { BridgeProcess } from '../../support/bridge-process';

/** One kind of request in the mixed load. */
export type Op = 'read' | 'write' | 'sso';
export const OPS: readonly Op[] = ['read', 'write', 'sso'];

/** The organization the load works in, and the credentials it uses. */
export interface Target {
  bridge: BridgeProcess;
  key: string;
  orgId: string;
  jwtSecret: string;
}

export interface Sample {
  op: Op;
  /** Start and end, ms since the load started. */
  start: number;
  end: number;
  /** HTTP status; 0 for a socket error, a reset or a client timeout. */
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  error?: string;
}

/** A member a write created and the bridge acknowledged (201). */
export interface Ack {
  id: string;
  email: string;
}

export interface Load {
  /** ms since the load started. */
  now(): number;
  samples: Sample[];
  acks: Ack[];
  /** Most requests in flight at once. */
  maxInFlight(): number;
  /**
   * Resolves with the ms from `since` until every kind of request has succeeded, each started
   * after `since`; throws after `timeoutMs`.
   */
  recovered(since: number, timeoutMs: number): Promise<number>;
  /** Stops sending and waits for the requests in flight. */
  stop(): Promise<void>;
}

const SUCCESS: Record<Op, number> = { read: 200, write: 201, sso: 200 };

/**
 * A steady, open-loop mixed load: `perSecond` requests a second, reads, writes and SSO exchanges
 * in turn, each sent on schedule whether or not the ones before it were answered (so a bridge
 * that held requests would pile them up, as real traffic does). Each request gives up after
 * 15 s, counted as a socket error.
 */
export function startLoad(target: Target, perSecond: number): Load {
  const { bridge, key, orgId, jwtSecret } = target;
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const samples: Sample[] = [];
  const acks: Ack[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const pending = new Set<Promise<void>>();

  const request = async (op: Op): Promise<void> => {
    const start = now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
    };
    let path: string;
    let body: unknown;
    let email: string | undefined;
    if (op === 'read') {
      path = `/api/public/organizations/${orgId}`;
      headers.authorization = `Bearer ${key}`;
    } else if (op === 'write') {
      email = `w-${randomBytes(6).toString('hex')}@example.com`;
      path = `/api/public/organizations/${orgId}/members`;
      headers.authorization = `Bearer ${key}`;
      body = { email, role: 'MEMBER' };
    } else {
      path = '/api/sso/jwt';
      const user = { email: `s-${randomBytes(4).toString('hex')}@example.com` };
      body = { jwt: await createSsoToken({ secret: jwtSecret, orgId, user }) };
    }
    const sample: Sample = { op, start, end: 0, status: 0, code: undefined, retryAfter: null };
    try {
      const res = await fetch(`${bridge.url}${path}`, {
        method: op === 'read' ? 'GET' : 'POST',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const json = (await res.json()) as {
        data?: { id?: string };
        error?: { code?: string };
      };
      sample.status = res.status;
      sample.code = json.error?.code;
      sample.retryAfter = res.headers.get('retry-after');
      if (op === 'write' && res.status === 201 && email && json.data?.id) {
        acks.push({ id: json.data.id, email });
      }
    } catch (err) {
      sample.error = String((err as Error).cause ?? err);
    } finally {
      sample.end = now();
      samples.push(sample);
      inFlight--;
    }
  };

  let sent = 0;
  const interval = 1000 / perSecond;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    // On schedule: as many as are due since the start, whatever the timer's drift.
    while (sent < Math.floor(now() / interval) + 1) {
      const p = request(OPS[sent % OPS.length]!);
      sent++;
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    timer = setTimeout(tick, interval);
  };
  let timer = setTimeout(tick, 0);

  return {
    now,
    samples,
    acks,
    maxInFlight: () => maxInFlight,
    async recovered(since, timeoutMs) {
      for (;;) {
        const done = OPS.map((op) =>
          samples.find((s) => s.op === op && s.start >= since && s.status === SUCCESS[op]),
        );
        if (done.every(Boolean)) return Math.max(...done.map((s) => s!.end)) - since;
        if (now() - since > timeoutMs) {
          throw new Error(`not recovered ${timeoutMs} ms after the fault ended`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(pending);
    },
  };
}

export const isSuccess = (s: Sample) => s.status === SUCCESS[s.op];

/** Statuses by op, as `{ read: { 200: 12, 503: 4 } }`, for readable failures. */
export function tally(samples: readonly Sample[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const s of samples) {
    const key = s.status === 0 ? `0 ${s.error}` : s.code ? `${s.status} ${s.code}` : `${s.status}`;
    out[s.op] ??= {};
    out[s.op]![key] = (out[s.op]![key] ?? 0) + 1;
  }
  return out;
}

/** The acknowledged writes that a read no longer finds (or finds changed). */
export async function lostAcks(target: Target, acks: readonly Ack[]): Promise<Ack[]> {
  const lost: Ack[] = [];
  for (const ack of acks) {
    const res = await fetch(
      `${target.bridge.url}/api/public/organizations/${target.orgId}/members/${ack.id}`,
      { headers: { authorization: `Bearer ${target.key}` } },
    );
    const json = (await res.json()) as { data?: { user?: { email?: string } } };
    if (res.status !== 200 || json.data?.user?.email !== ack.email) lost.push(ack);
  }
  return lost;
}

/** Creates the organization the load works in (ADMIN through `key`), with its jwtSecret. */
export async function newTarget(bridge: BridgeProcess, key: string): Promise<Target> {
  const res = await fetch(`${bridge.url}/api/public/organizations?include=jwtSecret`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Faults ${randomBytes(3).toString('hex')}` }),
  });
  const json = (await res.json()) as { data: { id: string; jwtSecret: string } };
  if (res.status !== 201) throw new Error(`creating the organization: ${res.status}`);
  return { bridge, key, orgId: json.data.id, jwtSecret: json.data.jwtSecret };
}
