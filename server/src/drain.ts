import type { Server, ServerResponse } from 'node:http';
import net from 'node:net';
import type { Logger } from 'pino';

/** How long idle keep-alive sockets stay open after SIGTERM, for a request already on its way. */
export const IDLE_LINGER_MS = 1000;

export interface DrainOptions {
  server: Server;
  log: Logger;
  /** How long everything may take before `stop` is told to hand back and the process exits 1. */
  graceMs: number;
  /** Called at once: marks the instance not ready. */
  onStart(): void;
  /** Stops background work; when `handBack` aborts, work still running hands itself back. */
  stopWork(handBack: AbortSignal): Promise<void>;
  /** Closes what is left (store, metrics listener, tracing) once requests and work are done. */
  close(): Promise<void>;
  exit(code: number): void;
}

/**
 * The drain on SIGTERM: stop accepting; answer every request in flight, and any that arrives on
 * an open keep-alive socket, with `Connection: close`; close idle sockets after a short linger
 * (a request sent just before it is answered, not reset); stop background work (it finishes, or
 * hands itself back when the grace is nearly over). Exit 0 when all of it finished in time.
 */
export function drainOnSignals(options: DrainOptions) {
  const { server, log, graceMs } = options;
  let stopping = false;
  const open = new Set<ServerResponse>();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (stopping && !res.headersSent) res.setHeader('Connection', 'close');
    open.add(res);
    res.on('close', () => open.delete(res));
  });

  const drain = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    options.onStart();
    for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
    log.info(
      { signal, graceS: graceMs / 1000 },
      'shutting down: no new connections, finishing in-flight requests and background work',
    );
    // http.Server#close would also drop idle keep-alive sockets at once, racing a request
    // already on its way on one: stop listening only, and let the idle ones go after a linger.
    const requestsDone = new Promise<void>((resolve) =>
      net.Server.prototype.close.call(server, () => resolve()),
    );
    const sweep = setTimeout(() => {
      server.closeIdleConnections();
      const again = setInterval(() => server.closeIdleConnections(), 100);
      again.unref();
      void requestsDone.then(() => clearInterval(again));
    }, IDLE_LINGER_MS);
    sweep.unref();

    const handBack = new AbortController();
    // Work still running a second before the grace ends gives itself back.
    const handBackTimer = setTimeout(() => handBack.abort(), Math.max(0, graceMs - 1000));
    handBackTimer.unref();
    const workDone = options.stopWork(handBack.signal).catch((err) => {
      log.error({ err }, 'stopping background work failed');
    });
    const inTime = await Promise.race([
      Promise.all([requestsDone, workDone]).then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs).unref()),
    ]);
    clearTimeout(handBackTimer);
    if (!inTime) {
      log.error(
        { openRequests: open.size, graceS: graceMs / 1000, handedBack: handBack.signal.aborted },
        'the grace period ended with work unfinished; exiting',
      );
      server.closeAllConnections();
    }
    await options.close().catch((err) => log.error({ err }, 'closing failed'));
    log.info({ ms: Date.now() - started }, 'stopped');
    options.exit(inTime && !handBack.signal.aborted ? 0 : 1);
  };
  process.on('SIGTERM', () => void drain('SIGTERM'));
  process.on('SIGINT', () => void drain('SIGINT'));
}
