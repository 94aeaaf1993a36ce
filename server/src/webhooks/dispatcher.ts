import type { Deps } from '../deps';
import { signingSecrets } from './endpoints';
import { DEFAULT_SEND_LIMITS, type SendLimits, sendWebhook } from './send';
import { webhookHeaders } from './signing';
import { claimDue, type DueDelivery, findEndpointById, pruneOutbox, recordAttempt } from './store';

/**
 * The wait before each attempt (Standard Webhooks' schedule): at once, then 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h and 10 h: eight attempts over about 27 hours.
 */
export const RETRY_SCHEDULE_MS = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
] as const;

export interface DispatcherOptions {
  /** How often due deliveries are looked for. */
  pollMs?: number;
  /** Attempts in flight in this process, all endpoints together. */
  concurrency?: number;
  /** Attempts in flight to one endpoint: a slow receiver holds no more than these. */
  perEndpoint?: number;
  /** The wait before each attempt; its length is the number of attempts. */
  scheduleMs?: readonly number[];
  /** How long a claimed delivery stays this instance's (longer than an attempt can take). */
  leaseMs?: number;
  limits?: SendLimits;
  /** How long finished deliveries stay in the log (default 30 days). */
  retentionMs?: number;
}

/** How often finished deliveries past their retention are deleted. */
const PRUNE_EVERY_MS = 3_600_000;

export interface Dispatcher {
  /** Stops claiming; waits for the attempts in flight. */
  stop(): Promise<void>;
}

/** What a delivery that used its last attempt does to its endpoint. */
const givenUp = (attempts: number, last: string) =>
  `Disabled after a delivery failed ${attempts} attempts (the last: ${last}); turn it back on with enabled: true`;

/** Signs and sends one claimed delivery, then records the outcome (see startDispatcher). */
async function attempt(
  deps: Deps,
  delivery: DueDelivery,
  leaseUntil: string,
  settings: { scheduleMs: readonly number[]; limits: SendLimits },
) {
  const endpoint = await findEndpointById(deps.store.db, delivery.endpointId);
  if (!endpoint) return;
  const timestamp = Math.floor(deps.now().getTime() / 1000);
  const secrets = signingSecrets(deps, endpoint);
  const headers = webhookHeaders(secrets, delivery.eventId, timestamp, delivery.payload);
  const policy = { allowPrivateNetworks: deps.config.allowPrivateNetworks };
  const result = await sendWebhook(
    endpoint.url,
    headers,
    delivery.payload,
    policy,
    settings.limits,
  );
  const attempts = delivery.attempts + 1;
  const at = deps.now();
  const ok = 'status' in result && result.status >= 200 && result.status < 300;
  const last = 'status' in result ? `HTTP ${result.status}` : result.error;
  const base = {
    attempts,
    lastAttemptAt: at.toISOString(),
    lastResponseStatus: 'status' in result ? result.status : null,
    lastError: ok ? null : last,
  };
  const { db } = deps.store;
  if (ok) {
    await recordAttempt(db, delivery.id, leaseUntil, {
      ...base,
      status: 'succeeded',
      nextAttemptAt: null,
    });
    return;
  }
  const wait = settings.scheduleMs[attempts];
  if (wait !== undefined) {
    const next = new Date(at.getTime() + wait).toISOString();
    await recordAttempt(db, delivery.id, leaseUntil, { ...base, nextAttemptAt: next });
    return;
  }
  await db.transaction().execute(async (tx) => {
    await recordAttempt(tx, delivery.id, leaseUntil, {
      ...base,
      status: 'failed',
      nextAttemptAt: null,
    });
    await tx
      .updateTable('webhookEndpoints')
      .set({ enabled: 0, disabledReason: givenUp(attempts, last), disabledAt: at.toISOString() })
      .where('id', '=', delivery.endpointId)
      .where('enabled', '=', 1)
      .execute();
  });
  deps.log.warn({ endpointId: delivery.endpointId, attempts }, 'webhook endpoint disabled');
}

/** Deletes finished events past `retentionMs`, hourly; returns the timer. */
function startPruner(deps: Deps, retentionMs: number): NodeJS.Timeout {
  const prune = () => {
    const before = new Date(deps.now().getTime() - retentionMs).toISOString();
    pruneOutbox(deps.store.db, before).catch((err) =>
      deps.log.warn({ err }, 'webhook dispatcher: prune failed'),
    );
  };
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref();
  return timer;
}

/**
 * Sends the outbox: claims due deliveries (a lease in the store, so on a shared PostgreSQL each
 * is taken by one instance, and one left by a killed process is taken again when its lease
 * ends), signs and POSTs each, and records the outcome: succeeded on a 2xx, else the next
 * attempt's time, or failed after the last, which disables the endpoint with the reason.
 */
export function startDispatcher(deps: Deps, options: DispatcherOptions = {}): Dispatcher {
  const {
    pollMs = 500,
    concurrency = 32,
    perEndpoint = 2,
    scheduleMs = RETRY_SCHEDULE_MS,
    leaseMs = 60_000,
    limits = DEFAULT_SEND_LIMITS,
    retentionMs = 30 * 86_400_000,
  } = options;
  const perEndpointBusy = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();

  const busyEndpoints = () =>
    [...perEndpointBusy].filter(([, n]) => n >= perEndpoint).map(([id]) => id);

  function run(delivery: DueDelivery, leaseUntil: string) {
    const id = delivery.endpointId;
    perEndpointBusy.set(id, (perEndpointBusy.get(id) ?? 0) + 1);
    const work = attempt(deps, delivery, leaseUntil, { scheduleMs, limits })
      .catch((err) => deps.log.error({ err, deliveryId: delivery.id }, 'webhook attempt failed'))
      .finally(() => {
        const n = (perEndpointBusy.get(id) ?? 1) - 1;
        if (n > 0) perEndpointBusy.set(id, n);
        else perEndpointBusy.delete(id);
        inFlight.delete(work);
      });
    inFlight.add(work);
  }

  async function poll() {
    const room = concurrency - inFlight.size;
    if (room <= 0) return;
    const now = deps.now();
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
    const claimed = await claimDue(
      deps.store.db,
      deps.store.engine,
      { now: now.toISOString(), leaseUntil },
      room,
      busyEndpoints(),
    );
    const extra: string[] = [];
    for (const delivery of claimed) {
      if ((perEndpointBusy.get(delivery.endpointId) ?? 0) >= perEndpoint) extra.push(delivery.id);
      else run(delivery, leaseUntil);
    }
    // More for one endpoint than it may have in flight: back to the store for the next poll.
    if (extra.length > 0) {
      await deps.store.db
        .updateTable('webhookDeliveries')
        .set({ leaseUntil: null })
        .where('id', 'in', extra)
        .where('leaseUntil', '=', leaseUntil)
        .execute();
    }
  }

  const pruner = startPruner(deps, retentionMs);

  const tick = () => {
    polling = poll()
      .catch((err) => deps.log.warn({ err }, 'webhook dispatcher: poll failed'))
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(tick, pollMs);
          timer.unref();
        }
      });
  };
  tick();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(pruner);
      await polling;
      await Promise.allSettled([...inFlight]);
    },
  };
}
