import type { DataSource } from '@bridgekit/contract';
import { useEffect, useRef, useState } from 'react';
import { isAdminRequired } from '../internal/error-text';
import { refuseAdmin } from '../provider/session-store';
import type { ListContext } from './list-context';

/** Waits between reads of the record while a requested sync runs: 1 s, 2 s, then every 4 s. */
const POLL_MS = [1000, 2000, 4000];
/** Gives up watching after this long; the badge then shows whatever the record says. */
const POLL_FOR_MS = 5 * 60_000;

interface ActionArgs {
  context: ListContext;
  orgId: string;
  record: DataSource;
  /** A newer copy of the record (after a request and while watching it). */
  onRecord: (record: DataSource) => void;
}

/** False once the component is gone: late answers are dropped. */
function useAlive() {
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  return alive;
}

/** One request at a time, its failure kept apart from `admin_required` (which turns read-only). */
function useAction({ context, orgId }: ActionArgs) {
  const alive = useAlive();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (work: () => Promise<void>) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      if (!alive.current) return;
      if (isAdminRequired(failure)) refuseAdmin(context.client, orgId);
      else setError(failure);
    }
    if (alive.current) setBusy(false);
  };
  return { alive, busy, error, run };
}

/**
 * "Sync now": `POST …/sync` (202), then the record is read again until the sync it asked for
 * has finished (a new attempt that is no longer SYNCING); until then the badge says Syncing.
 */
export function useSyncNow(args: ActionArgs) {
  const { context, orgId, record, onRecord } = args;
  const action = useAction(args);
  const { alive } = action;

  const watch = async (before: string | null) => {
    const until = Date.now() + POLL_FOR_MS;
    for (let i = 0; alive.current && Date.now() < until; i++) {
      await new Promise((done) => setTimeout(done, POLL_MS[Math.min(i, POLL_MS.length - 1)]));
      if (!alive.current) return;
      try {
        const { data } = await context.client.getDataSource({ params: { orgId, id: record.id } });
        if (!alive.current) return;
        onRecord(data);
        if (data.lastSyncStatus !== 'SYNCING' && data.lastSyncAttemptAt !== before) break;
      } catch {
        // A failed read is retried at the next tick.
      }
    }
  };

  const start = () =>
    action.run(async () => {
      const before = record.lastSyncAttemptAt;
      const { data } = await context.client.syncDataSource({ params: { orgId, id: record.id } });
      if (!alive.current) return;
      onRecord(data);
      await watch(before);
    });
  return { syncing: action.busy, error: action.error, start };
}

/** "Check now": `POST …/health-check`, which answers the record with the check's result. */
export function useCheckNow(args: ActionArgs) {
  const { context, orgId, record, onRecord } = args;
  const action = useAction(args);
  const start = () =>
    action.run(async () => {
      const { data } = await context.client.checkDataSourceHealth({
        params: { orgId, id: record.id },
      });
      if (action.alive.current) onRecord(data);
    });
  return { checking: action.busy, error: action.error, start };
}
