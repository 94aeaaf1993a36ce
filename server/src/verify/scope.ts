import type { Socket } from 'node:net';

/** How often the bytes read under TLS are counted (a TLS socket's raw side emits no `data`). */
const METER_INTERVAL_MS = 20;

/**
 * Everything one verify opens: closers run once, in reverse order, when the scope
 * closes; a closer registered after that runs at once, so a step that finishes
 * after the deadline cannot leave a socket behind.
 *
 * With `maxReadBytes`, the sockets given to `meter` may read that much in all: a server that
 * sends more (a message declaring gigabytes, which the drivers buffer whole) closes the scope,
 * and `overRead` says why.
 */
export class Scope {
  readonly #controller = new AbortController();
  readonly #closers: Array<() => void> = [];
  readonly #maxReadBytes: number;
  readonly #metered: Socket[] = [];
  #ticker: NodeJS.Timeout | undefined;
  #overRead = false;

  constructor(options: { maxReadBytes?: number } = {}) {
    this.#maxReadBytes = options.maxReadBytes ?? Number.POSITIVE_INFINITY;
  }

  /** True once the metered sockets read more than `maxReadBytes` (the scope is closed then). */
  get overRead(): boolean {
    return this.#overRead;
  }

  /**
   * Counts what `socket` reads against `maxReadBytes`: every METER_INTERVAL_MS (TLS reads
   * through a socket without its `data` events, but its `bytesRead` counts), and with
   * `perChunk` on every chunk too. `perChunk` adds a `data` listener, which starts the socket
   * flowing: only for a socket whose reader is attached before any byte can arrive.
   */
  meter(socket: Socket, { perChunk = false }: { perChunk?: boolean } = {}): void {
    if (this.#maxReadBytes === Number.POSITIVE_INFINITY) return;
    this.#metered.push(socket);
    if (perChunk) socket.on('data', this.#check);
    if (!this.#ticker) {
      this.#ticker = setInterval(this.#check, METER_INTERVAL_MS).unref();
      this.defer(() => clearInterval(this.#ticker));
    }
  }

  readonly #check = () => {
    if (this.closed) return;
    let read = 0;
    for (const socket of this.#metered) read += socket.bytesRead;
    if (read > this.#maxReadBytes) {
      this.#overRead = true;
      this.close();
    }
  };

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get closed(): boolean {
    return this.#controller.signal.aborted;
  }

  defer(closer: () => void): void {
    if (this.closed) runQuietly(closer);
    else this.#closers.push(closer);
  }

  /** For steps that cannot be cancelled (DNS lookup): stop before opening anything new. */
  throwIfClosed(): void {
    if (this.closed) throw new ScopeClosedError();
  }

  close(): void {
    if (this.closed) return;
    this.#controller.abort();
    for (const closer of this.#closers.splice(0).reverse()) runQuietly(closer);
  }
}

export class ScopeClosedError extends Error {
  readonly code = 'aborted';
  constructor() {
    super('The verification was stopped');
    this.name = 'ScopeClosedError';
  }
}

function runQuietly(closer: () => void): void {
  try {
    closer();
  } catch {
    // Teardown must reach every resource even if one closer throws.
  }
}
