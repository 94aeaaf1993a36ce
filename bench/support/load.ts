import autocannon from 'autocannon';
import { cpuMsOf } from '../../test/support/proc-stats';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

/** One autocannon run, reduced to what the reports print. */
export async function load(options: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon(options);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
  };
}

/** A load run with the CPU time the server process `pid` spent on it, per request. */
export interface CpuLoadResult extends LoadResult {
  /** CPU time of the server process per request, in µs. */
  cpuUs: number;
}

/** load(), measuring the CPU time of the server process `pid` across it. */
export async function loadWithCpu(
  pid: number,
  options: autocannon.Options,
): Promise<CpuLoadResult> {
  const before = cpuMsOf(pid);
  const result = await load(options);
  return { ...result, cpuUs: ((cpuMsOf(pid) - before) * 1000) / Math.max(1, result.total) };
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** The median (the mean of the middle two for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
