import {
  type BridgeProcess,
  type BridgeProcessOptions,
  startBridgeProcess,
} from '../../test/support/bridge-process';

/**
 * The bridge as the benchmarks run it: its own process on fresh data (or `data`), default logging, request
 * limits out of the way. BENCH_NODE_ARGS adds node flags (e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof` to profile it under load); BENCH_STDOUT=1 shows its log.
 */
export function startBenchBridge(
  env: Record<string, string> = {},
  launch?: BridgeProcessOptions['launch'],
  data?: BridgeProcessOptions['data'],
): Promise<BridgeProcess> {
  return startBridgeProcess({
    launch,
    data,
    env: {
      BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
      BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'info',
      ...env,
    },
    nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
    stdout: process.env.BENCH_STDOUT ? 'inherit' : 'ignore',
    stderr: 'inherit',
  });
}
