import type { Deps } from '../deps';
import { WEBHOOK_QUEUE } from '../lifecycle/job-schema';
import type { JobEngine, QueueWorker } from '../lifecycle/lifecycle';
import { signingSecrets } from './endpoints';
import { DEFAULT_SEND_LIMITS, type SendLimits, sendWebhook } from './send';
import { webhookHeaders } from './signing';
import {
  type DueDelivery,
  dueDeliveries,
  type EndpointRow,
  findLeased,
  leaseDeliveries,
  leasedByEndpoint,
  pruneOutbox,
  recordAttempt,
  releaseLeases,
} from './store';

/**
 * The wait before each attempt (Standard Webhooks' schedule): at once, then 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h and 10 h: eight attempts over about 27 hours.
 */
export const RETRY_SCHEDULE_MS = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
] as const;

export interface DispatcherOptions {
  /** How often the outbox is looked at for due deliveries (and idle workers poll the queue). */
  pollMs?: number;
  /** Attempts in flight in this process, all endpoints together. */
  concurrency?: number;
  /** Deliveries of one endpoint in hand at once: a slow receiver holds no more than these. */
  perEndpoint?: number;
  /** Deliveries in hand (queued or being sent), every instance and endpoint together. */
  maxLeased?: number;
  /** The wait before each attempt; its length is the number of attempts. */
  scheduleMs?: readonly number[];
  /**
   * How long a delivery handed to the job engine stays its job's: longer than a job waits in
   * the queue plus an attempt. A job lost with its instance is sent again when it ends.
   */
  leaseMs?: number;
  limits?: SendLimits;
  /** How long finished deliveries stay in the log (default 30 days). */
  retentionMs?: number;
}

type Settings = Required<DispatcherOptions>;

const settingsOf = (options: DispatcherOptions): Settings => {
  const concurrency = options.concurrency ?? 32;
  return {
    pollMs: options.pollMs ?? 500,
    concurrency,
    perEndpoint: options.perEndpoint ?? 2,
    maxLeased: options.maxLeased ?? 2 * concurrency,
    scheduleMs: options.scheduleMs ?? RETRY_SCHEDULE_MS,
    leaseMs: options.leaseMs ?? 60_000,
    limits: options.limits ?? DEFAULT_SEND_LIMITS,
    retentionMs: options.retentionMs ?? 30 * 86_400_000,
  };
};

/** One job: a delivery to attempt, under the lease it was queued with. */
export interface DeliveryJob {
  id: string;
  /** The delivery's `lease_until` when queued: the job is void once the lease changed. */
  lease: string;
}

/** How often finished deliveries past their retention are deleted. */
const PRUNE_EVERY_MS = 3_600_000;
/** Lease an attempt must have left when it starts, beyond its own time limit. */
const LEASE_MARGIN_MS = 5_000;

/** What a delivery that used its last attempt does to its endpoint. */
const givenUp = (attempts: number, last: string) =>
  `Disabled after a delivery failed ${attempts} attempts (the last: ${last}); turn it back on with enabled: true`;

/** Signs and sends one leased delivery, then records the outcome (see webhookWorker). */
async function attempt(
  deps: Deps,
  delivery: DueDelivery,
  leaseUntil: string,
  settings: { scheduleMs: readonly number[]; limits: SendLimits },
) {
  const endpoint: EndpointRow = delivery;
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
    await recordAttempt(db, delivery.deliveryId, leaseUntil, {
      ...base,
      status: 'succeeded',
      nextAttemptAt: null,
    });
    return;
  }
  const wait = settings.scheduleMs[attempts];
  if (wait !== undefined) {
    const next = new Date(at.getTime() + wait).toISOString();
    await recordAttempt(db, delivery.deliveryId, leaseUntil, { ...base, nextAttemptAt: next });
    return;
  }
  await db.transaction().execute(async (tx) => {
    await recordAttempt(tx, delivery.deliveryId, leaseUntil, {
      ...base,
      status: 'failed',
      nextAttemptAt: null,
    });
    await tx
      .updateTable('webhookEndpoints')
      .set({ enabled: 0, disabledReason: givenUp(attempts, last), disabledAt: at.toISOString() })
      .where('id', '=', endpoint.id)
      .where('enabled', '=', 1)
      .execute();
  });
  deps.log.warn({ endpointId: endpoint.id, attempts }, 'webhook endpoint disabled');
}

/**
 * Reads leased deliveries for jobs (see findLeased), the jobs that ask in one turn of the event
 * loop together in one query: a job engine starts the jobs it fetched as a batch in one turn,
 * so a batch of jobs costs one read rather than one each.
 */
function leasedReader(deps: Deps) {
  type Ask = DeliveryJob & {
    resolve: (row: DueDelivery | undefined) => void;
    reject: (err: unknown) => void;
  };
  let asks: Ask[] = [];
  const read = async () => {
    const batch = asks;
    asks = [];
    try {
      const rows = await findLeased(deps.store.db, batch);
      const found = new Map(rows.map((row) => [row.deliveryId, row]));
      for (const ask of batch) ask.resolve(found.get(ask.id));
    } catch (err) {
      for (const ask of batch) ask.reject(err);
    }
  };
  return (job: DeliveryJob) =>
    new Promise<DueDelivery | undefined>((resolve, reject) => {
      if (asks.length === 0) queueMicrotask(() => void read());
      asks.push({ ...job, resolve, reject });
    });
}

/**
 * The job engine's worker of deliveries: each job is one attempt of one delivery. A job whose
 * lease changed (the delivery was sent, deleted, or queued again after its lease ended) or
 * that has too little of it left to finish inside it is dropped: the lease is what keeps two
 * instances from sending a delivery at once.
 */
export function webhookWorker(
  deps: Deps,
  options: DispatcherOptions = {},
): QueueWorker<DeliveryJob> {
  const settings = settingsOf(options);
  const readLeased = leasedReader(deps);
  return {
    name: WEBHOOK_QUEUE,
    concurrency: settings.concurrency,
    // The instance that queues a job wakes its own worker; this finds other instances' jobs.
    pollMs: Math.max(settings.pollMs, 1_000),
    async run(job) {
      const left = Date.parse(job.lease) - deps.now().getTime();
      if (left < settings.limits.timeoutMs + LEASE_MARGIN_MS) return;
      const delivery = await readLeased(job);
      if (!delivery) return;
      await attempt(deps, delivery, job.lease, settings).catch((err) =>
        deps.log.error({ err, deliveryId: job.id }, 'webhook attempt failed'),
      );
    },
    dropped: (jobs) => releaseLeases(deps.store.db, jobs),
  };
}

export interface Dispatcher {
  /** Stops queuing deliveries; waits for a look at the outbox in progress. */
  stop(): Promise<void>;
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
 * Moves due deliveries from the outbox onto the job engine, every `pollMs`: leases each (one
 * statement, so on a shared PostgreSQL each is leased by one instance) and queues one job per
 * delivery on `engine`, which any instance's worker takes. At most `perEndpoint` of an
 * endpoint's deliveries and `maxLeased` in all are in hand at once, so a slow receiver's
 * backlog never stands in front of another endpoint's deliveries. The outbox stays the record
 * of what is owed: a retry is the delivery due again at its next attempt's time, and a job lost
 * with its instance (or a process stopped before starting it) is queued again once its lease
 * ends, so nothing is lost across restarts.
 */
export function startDispatcher(
  deps: Deps,
  engine: Pick<JobEngine, 'send'>,
  options: DispatcherOptions = {},
): Dispatcher {
  const settings = settingsOf(options);
  const { db } = deps.store;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();

  async function relay() {
    const now = deps.now();
    const at = now.toISOString();
    const due = await dueDeliveries(db, at, settings.perEndpoint, settings.maxLeased);
    if (due.length === 0) return;
    const leased = await leasedByEndpoint(db, at);
    let room = settings.maxLeased - [...leased.values()].reduce((a, b) => a + b, 0);
    const ids: string[] = [];
    for (const { id, endpointId } of due) {
      const held = leased.get(endpointId) ?? 0;
      if (room <= 0) break;
      if (held >= settings.perEndpoint) continue;
      leased.set(endpointId, held + 1);
      room--;
      ids.push(id);
    }
    const lease = new Date(now.getTime() + settings.leaseMs).toISOString();
    const taken = await leaseDeliveries(db, ids, at, lease);
    // A job the engine did not take stays leased: it is queued again when the lease ends.
    await engine.send<DeliveryJob>(
      WEBHOOK_QUEUE,
      taken.map((id) => ({ id, lease })),
    );
  }

  const pruner = startPruner(deps, settings.retentionMs);
  const tick = () => {
    polling = relay()
      .catch((err) => deps.log.warn({ err }, 'webhook dispatcher: relay failed'))
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(tick, settings.pollMs);
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
    },
  };
}
