import autocannon from 'autocannon';

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

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
