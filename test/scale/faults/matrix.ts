import { expect } from 'vitest';
import type { BridgeProcess } from '../../support/bridge-process';
import {
  isSuccess,
  type Load,
  lostAcks,
  type Op,
  type Sample,
  startLoad,
  type Target,
  tally,
} from './load';

export interface CaseOptions {
  /** Requests a second (open loop). */
  perSecond: number;
  /** How long the fault lasts, ms. */
  faultMs: number;
  /** Starts the fault. */
  inject(): Promise<void>;
  /** Ends it; recovery is timed from when this resolves. */
  repair(): Promise<void>;
  /** Checks run while the fault lasts, once it has settled (e.g. /healthz). */
  during?(): Promise<void>;
}

export interface CaseResult {
  /** Requests sent and answered while the fault lasted (after a settling second). */
  broken: Sample[];
  /** Every request of the case. */
  all: Sample[];
  /** From the end of the fault until every kind of request succeeded again, ms. */
  recoveryMs: number;
  /** The slowest answer while broken, ms. */
  slowestBrokenMs: number;
  /** Bridge RSS growth while the fault lasts (MB): peak minus the reading a second into it. */
  rssGrowthMb: number;
  maxInFlight: number;
  acks: number;
  lost: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs one fault under a steady mixed load: a second of baseline, the fault for `faultMs` (RSS
 * sampled every 250 ms), then the repair, until every kind of request succeeds again (at most
 * 20 s), then half a second more; finally reads back every acknowledged write.
 */
export async function runCase(target: Target, options: CaseOptions): Promise<CaseResult> {
  const { bridge } = target;
  const load: Load = startLoad(target, options.perSecond);
  try {
    await sleep(1000);
    await options.inject();
    const brokenAt = load.now();
    await sleep(1000);
    // From here on, a queue that grows with the fault's length would show as growth.
    const rssBefore = bridge.rssMb();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, bridge.rssMb());
    }, 250);
    await options.during?.();
    const left = options.faultMs - (load.now() - brokenAt);
    if (left > 0) await sleep(left);
    clearInterval(sampler);
    const repairStarted = load.now();
    await options.repair();
    const repairedAt = load.now();
    const recoveryMs = await load.recovered(repairedAt, 20_000);
    await sleep(500);
    await load.stop();
    // Sent once the fault had settled, and answered before the repair began.
    const broken = load.samples.filter((s) => s.start >= brokenAt + 1000 && s.end < repairStarted);
    const lost = await lostAcks(target, load.acks);
    return {
      broken,
      all: load.samples,
      recoveryMs,
      slowestBrokenMs: Math.max(0, ...broken.map((s) => s.end - s.start)),
      rssGrowthMb: rssPeak - rssBefore,
      maxInFlight: load.maxInFlight(),
      acks: load.acks.length,
      lost: lost.length,
    };
  } finally {
    await load.stop();
  }
}

/**
 * Runs the load until a whole second of it has succeeded (at most 30 s), so the bridge's caches,
 * JIT and pools are warm and the RSS a case measures is what the fault adds.
 */
export async function warmUp(target: Target, perSecond: number): Promise<void> {
  const load = startLoad(target, perSecond);
  try {
    for (;;) {
      await sleep(500);
      const now = load.now();
      const recent = load.samples.filter((s) => s.start >= now - 2000 && s.end <= now);
      if (now > 2000 && recent.length > 0 && recent.every(isSuccess)) return;
      if (now > 30_000) throw new Error(`warm-up failed: ${JSON.stringify(tally(recent))}`);
    }
  } finally {
    await load.stop();
  }
}

/** Every answer a success or a 503 with Retry-After and one of `codes`: no 500, no socket error. */
export function expectOnlySuccessOr503(result: CaseResult, codes: readonly string[]) {
  const bad = result.all.filter(
    (s) =>
      !isSuccess(s) &&
      !(s.status === 503 && Number(s.retryAfter) > 0 && codes.includes(s.code ?? '')),
  );
  expect(bad.slice(0, 5), JSON.stringify(tally(result.all))).toEqual([]);
}

/**
 * While broken, each op in `failing` got only 503s, each op in `serving` only successes, and
 * each op in `mostlyFailing` mostly 503s (at least 80%) with every other answer a success: a
 * write that still fits where the fault leaves a little room is saved and acknowledged, which
 * is right (the lost-writes check then proves it was kept).
 */
export function expectBrokenAs(
  result: CaseResult,
  expected: { failing: readonly Op[]; serving?: readonly Op[]; mostlyFailing?: readonly Op[] },
) {
  const summary = JSON.stringify(tally(result.broken));
  for (const op of expected.mostlyFailing ?? []) {
    const of = result.broken.filter((s) => s.op === op);
    const refused = of.filter((s) => s.status === 503).length;
    expect(of.length, `${op} while broken: ${summary}`).toBeGreaterThan(0);
    expect(refused / of.length, `${op} while broken: ${summary}`).toBeGreaterThanOrEqual(0.8);
    expect(
      of.filter((s) => s.status !== 503 && !isSuccess(s)),
      summary,
    ).toEqual([]);
  }
  for (const op of expected.failing) {
    const of = result.broken.filter((s) => s.op === op);
    expect(of.length, `${op} while broken: ${summary}`).toBeGreaterThan(0);
    expect(of.filter((s) => s.status !== 503).length, `${op} while broken: ${summary}`).toBe(0);
  }
  for (const op of expected.serving ?? []) {
    const of = result.broken.filter((s) => s.op === op);
    expect(of.length, `${op} while broken: ${summary}`).toBeGreaterThan(0);
    expect(of.filter((s) => !isSuccess(s)).length, `${op} while broken: ${summary}`).toBe(0);
  }
}

export interface Health {
  status: number;
  ms: number;
  body: { status?: string; error?: { code?: string; params?: Record<string, unknown> } };
}

export async function healthz(bridge: BridgeProcess): Promise<Health> {
  const started = performance.now();
  const res = await fetch(`${bridge.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as Health['body'];
  return { status: res.status, ms: performance.now() - started, body };
}

/** One line per case for the report: what the suite measured. */
export function describeResult(name: string, r: CaseResult): string {
  return `${name}: recovered in ${Math.round(r.recoveryMs)} ms; slowest answer while broken ${Math.round(
    r.slowestBrokenMs,
  )} ms; RSS +${r.rssGrowthMb.toFixed(1)} MB; max in flight ${r.maxInFlight}; ${r.acks} writes acknowledged, ${r.lost} lost; ${JSON.stringify(tally(r.broken))}`;
}
