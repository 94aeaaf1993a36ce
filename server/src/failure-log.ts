import type { Logger } from 'pino';

/** Logs repeated failures of one kind as one line, then one count per interval. */
export interface FailureLog {
  /**
   * A failure of kind `key` (e.g. `redis_unavailable`): the first in an interval is logged at
   * once (its message, never a stack); later ones are counted into one line at the interval's end.
   */
  report(key: string, message: string, fields?: Record<string, unknown>): void;
}

export function createFailureLog(log: Logger, intervalMs: number): FailureLog {
  const counts = new Map<string, { message: string; fields: Record<string, unknown>; n: number }>();
  return {
    report(key, message, fields = {}) {
      const seen = counts.get(key);
      if (seen) {
        seen.n++;
        return;
      }
      log.warn({ failure: key, ...fields }, message);
      counts.set(key, { message, fields, n: 0 });
      const timer = setTimeout(() => {
        const entry = counts.get(key);
        counts.delete(key);
        if (entry && entry.n > 0) {
          log.warn(
            { failure: key, ...entry.fields, repeated: entry.n, intervalS: intervalMs / 1000 },
            `${entry.message} (${entry.n} more in the last ${intervalMs / 1000} s)`,
          );
        }
      }, intervalMs);
      timer.unref();
    },
  };
}
