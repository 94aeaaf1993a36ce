import { vi } from 'vitest';

/** How long and how often to poll, and what to name in the timeout error. */
export interface WaitOptions<T = unknown> {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 100 ms. */
  intervalMs?: number;
  /** Named in the timeout error. */
  what?: string;
  /** When a value is the one waited for. Default: truthy. */
  ok?: (value: T) => boolean;
}

/**
 * `vi.waitFor` over a probe's value: polls `probe` until its value is `ok` (errors count as
 * "not yet"); resolves with that value, or fails naming `what` and the last value or error.
 */
export async function waitFor<T>(
  probe: () => Promise<T>,
  options: WaitOptions<T> = {},
): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 100, what = 'condition', ok = Boolean } = options;
  try {
    return await vi.waitFor(
      async () => {
        const value = await probe();
        if (!ok(value)) throw new Error(JSON.stringify(value));
        return value;
      },
      { timeout: timeoutMs, interval: intervalMs },
    );
  } catch (last) {
    const detail = last instanceof Error ? last.message : String(last);
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${detail}`, {
      cause: last,
    });
  }
}

/** waitFor with the suites' longer default: `read`'s value once `ok` holds for it, within `ms`. */
export const until = <T>(
  what: string,
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  ms = 20_000,
) => waitFor(read, { what, ok, timeoutMs: ms });
