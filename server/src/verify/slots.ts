/** Gives a slot back; calling it again does nothing. */
export type Release = () => void;

/**
 * A counting semaphore with two ways in: `tryAcquire` answers at once (a verify that finds every
 * slot taken is refused, not queued), `acquire` waits its turn (background work). Waiters are
 * served first come, first served; a freed slot passes straight to the next waiter, so a
 * `tryAcquire` never jumps the queue.
 */
export interface Slots {
  readonly limit: number;
  /** Slots only `tryAcquire` may take: a backlog of waiting work can't lock immediate callers out. */
  readonly reserved: number;
  /** Slots taken now. */
  readonly inUse: number;
  /** Callers waiting in `acquire`. */
  readonly waiting: number;
  /** A slot now, or undefined when all `limit` are taken. */
  tryAcquire(): Release | undefined;
  /**
   * A slot once one of the `limit - reserved` shared ones is free. Rejects with `signal.reason`
   * if the signal aborts first; the place in line is given up.
   */
  acquire(signal?: AbortSignal): Promise<Release>;
}

export function createSlots(options: { limit: number; reserved?: number }): Slots {
  const { limit, reserved = 0 } = options;
  if (!Number.isInteger(limit) || limit < 1) throw new Error('limit must be a positive integer');
  if (!Number.isInteger(reserved) || reserved < 0 || reserved >= limit) {
    throw new Error('reserved must be an integer from 0 to limit - 1');
  }
  const shared = limit - reserved;
  const waiters: Array<() => void> = [];
  let inUse = 0;

  const take = (): Release => {
    inUse++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inUse--;
      // Hand the slot on while the shared part has room; each waiter takes its own.
      while (waiters.length > 0 && inUse < shared) waiters.shift()?.();
    };
  };

  return {
    limit,
    reserved,
    get inUse() {
      return inUse;
    },
    get waiting() {
      return waiters.length;
    },
    tryAcquire: () => (inUse < limit ? take() : undefined),
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (waiters.length === 0 && inUse < shared) return Promise.resolve(take());
      return new Promise<Release>((resolve, reject) => {
        const onAbort = () => {
          const index = waiters.indexOf(turn);
          if (index >= 0) waiters.splice(index, 1);
          reject(signal?.reason);
        };
        const turn = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(take());
        };
        waiters.push(turn);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
