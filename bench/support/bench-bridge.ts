import {
  type BridgeProcess,
  type BridgeProcessOptions,
  startBridgeProcess,
} from '../../test/support/bridge-process';

/**
 * The bridge as the benchmarks run it: its own process on fresh data (or `data`), default logging, request
 * limits out of the way. BENCH_NODE_ARGS adds node flags (e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof` to profile it under load); BENCH_STDOUT=1 shows its log;
 * BENCH_BRIDGE_ENV adds settings for an A/B (e.g. `BRIDGE_METRICS_PORT=0`: metrics on). `bundle`
 * (or BENCH_BUNDLE) runs another build (another commit's, for an A/B of code).
 */
export function startBenchBridge(
  env: Record<string, string> = {},
  launch?: BridgeProcessOptions['launch'],
  data?: BridgeProcessOptions['data'],
  bundle?: BridgeProcessOptions['bundle'],
): Promise<BridgeProcess> {
  return startBridgeProcess({
    launch,
    data,
    bundle: bundle ?? process.env.BENCH_BUNDLE,
    env: {
      BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
      BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'info',
      ...Object.fromEntries(
        (process.env.BENCH_BRIDGE_ENV ?? '')
          .split(' ')
          .filter(Boolean)
          .map((pair) => pair.split('=', 2) as [string, string]),
      ),
      ...env,
    },
    nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
    stdout: process.env.BENCH_STDOUT ? 'inherit' : 'ignore',
    stderr: 'inherit',
  });
}
