/**
 * Everything one verify opens: closers run once, in reverse order, when the scope
 * closes; a closer registered after that runs at once, so a step that finishes
 * after the deadline cannot leave a socket behind.
 */
export class Scope {
  readonly #controller = new AbortController();
  readonly #closers: Array<() => void> = [];

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
