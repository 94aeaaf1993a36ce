import fs from 'node:fs/promises';

/** Below this much free space, `/healthz` reports a SQLite store as full. */
export const MIN_FREE_BYTES = 1 << 20;

/**
 * Throws ENOSPC (a full store, see faults.ts) when the file system holding `dir` has less than
 * `minBytes` free for this process. SQLite's own failure only shows on a write; this lets
 * `/healthz` say so before one fails, and until space returns.
 */
export async function checkFreeSpace(dir: string, minBytes = MIN_FREE_BYTES): Promise<void> {
  const { bavail, bsize } = await fs.statfs(dir);
  const free = bavail * bsize;
  if (free < minBytes) {
    throw Object.assign(new Error(`${free} bytes free on the store's file system`), {
      code: 'ENOSPC',
    });
  }
}
