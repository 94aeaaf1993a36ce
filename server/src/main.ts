import http from 'node:http';
import pino from 'pino';
import { createApp } from './app';
import { bootstrap, StartupError } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import type { Deps } from './deps';
import { seedDemo } from './domain/demo';
import { drainOnSignals } from './drain';
import { keptAlive } from './http/keep-alive';
import { startBackgroundJobs } from './lifecycle/start';
import { createLogger } from './log';
import { metricsServer } from './observability/metrics-server';

function printDemo(key: string, port: number) {
  const base = `http://localhost:${port}`;
  process.stdout.write(
    [
      '',
      'Bridgekit demo ready: user demo@bridgekit.dev, organization "Demo Organization".',
      'API key (shown once; create more with `npx bridge keys create --email you@example.com`):',
      '',
      `  ${key}`,
      '',
      'Try it:',
      '',
      `  curl -H "Authorization: Bearer ${key}" ${base}/api/public/organizations`,
      '',
      `API reference: ${base}/docs`,
      '',
    ].join('\n'),
  );
}

// Start-up failures: one JSON line on stderr, written before exit, naming what is at fault.
const fatalLog = createLogger('fatal', pino.destination({ dest: 2, sync: true }));

function failStart(err: unknown): never {
  if (err instanceof ConfigError) {
    fatalLog.fatal({ variables: err.variables }, err.message);
  } else if (err instanceof StartupError) {
    fatalLog.fatal({ dependency: err.dependency, variable: err.variable }, err.message);
  } else {
    fatalLog.fatal({ err }, 'cannot start');
  }
  process.exit(1);
}

/** Listens on `port`; rejects (EADDRINUSE, EACCES) before anything says it listens. */
function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

async function listenOrFail(server: http.Server, port: number, host: string, variable: string) {
  try {
    return await listen(server, port, host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    fatalLog.fatal({ variables: [variable], port, host, code }, `cannot listen on ${host}:${port}`);
    process.exit(1);
  }
}

async function main() {
  let config: ReturnType<typeof loadConfig>;
  let deps: Deps;
  try {
    config = loadConfig();
  } catch (err) {
    failStart(err);
  }
  const log = createLogger(config.logLevel);
  try {
    deps = await bootstrap(config, log, { server: true });
  } catch (err) {
    failStart(err);
  }
  if (config.demo) {
    const demo = await seedDemo(deps);
    if (demo) printDemo(demo.key, config.port);
  }
  const server = keptAlive(http.createServer(createApp(deps)), config.keepAliveTimeoutSeconds);
  const port = await listenOrFail(server, config.port, config.host, 'PORT');
  const metrics =
    deps.metrics.registry && config.metrics ? metricsServer(deps.metrics.registry) : undefined;
  const metricsPort =
    metrics && config.metrics
      ? await listenOrFail(metrics, config.metrics.port, config.metrics.host, 'BRIDGE_METRICS_PORT')
      : undefined;
  await startBackgroundJobs(deps).catch(failStart);
  log.info(
    {
      port,
      host: config.host,
      store: deps.store.engine,
      ...(metricsPort !== undefined ? { metricsPort } : {}),
    },
    `bridge listening on http://localhost:${port}`,
  );

  drainOnSignals({
    server,
    log,
    graceMs: config.shutdownGraceSeconds * 1000,
    onStart: () => {
      deps.draining = true;
    },
    stopWork: (handBack) => deps.lifecycle.stop(handBack),
    close: async () => {
      metrics?.close();
      await deps.tracing.shutdown().catch(() => {});
      await deps.store.close();
    },
    exit: (code) => process.exit(code),
  });
}

await main();
