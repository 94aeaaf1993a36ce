import type { Deps } from '../deps';
import { countDataSources, dataSourceIdsAfter, findDataSourceById } from '../store/data-sources';
import { checkHealth } from './health';
import { type SyncResult, syncDataSource } from './sync';

/** What a job does to a data source. */
export type JobKind = 'health' | 'sync';

/** A scheduled run's time slot: the interval-long window (from the epoch) it belongs to. */
export const slotOf = (at: Date, intervalSeconds: number) =>
  new Date(Math.floor(at.getTime() / 1000 / intervalSeconds) * intervalSeconds * 1000);

/**
 * Runs one job in a shared connection slot: background work waits its turn, and only while
 * more than the reserved slots are free, so it never takes the last ones from the API.
 * `slot` is the scheduled window it runs for (none for a requested sync).
 */
export async function runJob(
  deps: Deps,
  kind: JobKind,
  id: string,
  slot: Date | undefined,
  signal: AbortSignal,
  handBack?: AbortSignal,
): Promise<SyncResult | 'late'> {
  const release = await deps.connectionSlots.acquire(signal);
  let result: SyncResult | 'late' | 'failed' = 'failed';
  try {
    const seconds =
      kind === 'health' ? deps.config.healthIntervalSeconds : deps.config.syncIntervalSeconds;
    // A scheduled job whose interval is over (a backlog, or queued before a restart) is
    // dropped: the next interval's job stands for it, so work never piles up.
    if (slot && deps.now().getTime() >= slot.getTime() + seconds * 1000) {
      deps.log.debug({ job: kind, dataSourceId: id }, 'data source job late: dropped');
      result = 'late';
      return result;
    }
    deps.log.debug(
      { job: kind, dataSourceId: id, slot: slot?.toISOString() ?? null },
      'data source job',
    );
    if (kind === 'sync') {
      result = await syncDataSource(deps, id, handBack);
      return result;
    }
    const row = await findDataSourceById(deps.store.db, id);
    if (row) await checkHealth(deps, row);
    result = row ? 'ran' : 'gone';
    return result;
  } finally {
    release();
    deps.metrics.job(kind, result);
  }
}

/** Every data source id, a page at a time. */
export async function* allDataSourceIds(deps: Deps, pageSize = 500) {
  let cursor = '';
  for (;;) {
    const ids = await dataSourceIdsAfter(deps.store.db, cursor, pageSize);
    if (ids.length > 0) yield ids;
    if (ids.length < pageSize) return;
    cursor = ids.at(-1) as string;
  }
}

/** The share of what is left of an interval over which a sweep spreads its jobs. */
const SPREAD = 0.8;

/**
 * Whether a sweep for `slot` may still start at `now`: only in the first half of its interval,
 * so its jobs are spread over at least 40% of one (a process that starts late in an interval
 * waits for the next one rather than checking everything in a rush).
 */
export const sweepOpen = (slot: Date, intervalSeconds: number, now: Date) =>
  now.getTime() < slot.getTime() + (intervalSeconds * 1000) / 2;

/**
 * Every data source id with the delay (ms from now) at which its job is due: spread evenly over
 * most of what is left of the slot's interval, so background work is a steady trickle beside
 * the API rather than a burst at each interval's start, and every job is due within its own
 * interval.
 */
export async function* paced(deps: Deps, slot: Date, intervalSeconds: number, pageSize = 500) {
  const left = slot.getTime() + intervalSeconds * 1000 - deps.now().getTime();
  const spreadMs = Math.max(left, 0) * SPREAD;
  const count = await countDataSources(deps.store.db);
  const step = count > 0 ? spreadMs / count : 0;
  let i = 0;
  for await (const ids of allDataSourceIds(deps, pageSize)) {
    yield ids.map((id) => ({ id, delayMs: Math.round(Math.min(i++, count) * step) }));
  }
}

/** How long to wait before retrying a requested sync that found another one running. */
export const BUSY_RETRY_MS = 5_000;
