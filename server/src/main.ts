import type { Server, ServerResponse } from 'node:http';
import { createApp } from './app';
import { bootstrap } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import { seedDemo } from './domain/demo';
import { startBackgroundJobs } from './lifecycle/start';
import { createLogger } from './log';

const SHUTDOWN_GRACE_MS = 10_000;

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

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const deps = await bootstrap(config, log, { server: true }).catch((err) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  });
  if (config.demo) {
    const demo = await seedDemo(deps);
    if (demo) printDemo(demo.key, config.port);
  }
  await startBackgroundJobs(deps);
  const app = createApp(deps);
  const server: Server = app.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    log.info(
      { port, host: config.host, store: deps.store.engine },
      `bridge listening on http://localhost:${port}`,
    );
  });
  server.on('error', (err) => {
    log.fatal({ err }, 'cannot listen');
    process.exit(1);
  });

  let stopping = false;
  // Once stopping, responses say `Connection: close`: Node keeps serving a busy keep-alive
  // connection after close(), which would hold the exit until the grace timer (exit 1).
  const open = new Set<ServerResponse>();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (stopping && !res.headersSent) res.setHeader('Connection', 'close');
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
    log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      log.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(async () => {
      await deps.lifecycle.stop().catch((err) => log.error({ err }, 'stopping jobs failed'));
      await deps.store.close().catch((err) => log.error({ err }, 'closing the store failed'));
      log.info('stopped');
      process.exit(0);
    });
    // Keep-alive connections with no request in flight would hold close() open.
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

await main();
