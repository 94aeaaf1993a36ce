import { setMaxListeners } from 'node:events';
import type Pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Deps } from '../deps';
import { lazy } from '../lazy';
import { pg as pgModule } from '../verify/modules';
import { QUEUE, SWEEP } from './job-schema';
import { BUSY_RETRY_MS, type JobKind, paced, runJob, slotOf, sweepOpen } from './jobs';
import type { EngineOptions, JobEngine } from './lifecycle';

const pgBossModule = lazy<typeof PgBoss>('pg-boss');

interface JobData {
  id?: string;
}

/** What the sweeps and the queue loops of one engine share. */
interface Engine {
  deps: Deps;
  boss: PgBoss;
  signal: AbortSignal;
  /** Aborts when a shutdown's grace is nearly over: running syncs hand their work back. */
  handBack: AbortSignal;
  pollMs: number;
  /** Records a finished job, for the next batch of completions. */
  completed(name: string, id: string): void;
}

/** Sleeps between a loop's polls; `wake` ends the sleep at once (work was just sent). */
function waker() {
  let woken = false;
  let ring: (() => void) | undefined;
  return {
    wake() {
      woken = true;
      ring?.();
    },
    async sleep(signal: AbortSignal, ms: number) {
      if (!woken) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            ring = undefined;
            resolve();
          };
          const timer = setTimeout(done, ms);
          signal.addEventListener('abort', done);
          ring = done;
        });
      }
      woken = false;
    },
  };
}

/** How long a worker queue's job may stay active before pg-boss counts it failed. */
const WORKER_JOB_EXPIRY_S = 300;

const intervalOf = (config: Deps['config'], kind: JobKind) =>
  kind === 'health' ? config.healthIntervalSeconds : config.syncIntervalSeconds;

/**
 * The scheduler of instances sharing a PostgreSQL store, on pg-boss: every instance asks, a few
 * times per interval, for that interval's sweep job; pg-boss's throttle (one job per key and
 * time slot, a unique index) lets exactly one into the queue, whoever asks. The instance that
 * takes it queues one job per data source, again one per slot, and every instance works the
 * queues as its connection slots allow. A job whose instance dies expires and, for a sweep,
 * is retried; the per-slot key keeps it from running twice. The workers' queues are worked the
 * same way by every instance; their finished jobs are deleted (what they did is recorded by
 * the worker, in the store).
 */
export async function startPgBoss(deps: Deps, options: EngineOptions): Promise<JobEngine> {
  const { config, log } = deps;
  const pool = jobPool(deps);
  const boss = await startBoss(deps, pool);
  const stopping = new AbortController();
  const handingBack = new AbortController();
  // Every job in hand waits on it for a connection slot.
  setMaxListeners(0, stopping.signal, handingBack.signal);
  const timers = options.dataSources ? askForSweeps(deps, boss) : [];
  const completions = batchedCompletions(deps, boss, new Set(options.workers.map((w) => w.name)));
  timers.push(completions.timer);
  const shortest = Math.min(config.healthIntervalSeconds, config.syncIntervalSeconds);
  const engine: Engine = {
    deps,
    boss,
    signal: stopping.signal,
    handBack: handingBack.signal,
    pollMs: Math.min(2000, Math.max(500, (shortest * 1000) / 4)),
    completed: completions.add,
  };

  const shared = deps.connectionSlots.limit - deps.connectionSlots.reserved;
  const loops = options.dataSources
    ? [
        work(engine, SWEEP.health, 1, (job) => sweep(engine, 'health', job)),
        work(engine, SWEEP.sync, 1, (job) => sweep(engine, 'sync', job)),
        work(engine, QUEUE.health, shared, (job) => runOne(engine, 'health', job)),
        work(engine, QUEUE.sync, shared, (job) => runOne(engine, 'sync', job)),
      ]
    : [];
  const wakers = new Map<string, ReturnType<typeof waker>>();
  for (const worker of options.workers) {
    const wake = waker();
    wakers.set(worker.name, wake);
    loops.push(
      work(engine, worker.name, worker.concurrency, (job) => worker.run(job.data), {
        pollMs: worker.pollMs,
        sleep: wake.sleep,
      }),
    );
  }

  return {
    requestSync(id) {
      if (stopping.signal.aborted || !options.dataSources) return;
      boss
        .send(QUEUE.sync, { id }, { retryLimit: 0 })
        .catch((err: Error) => log.warn({ err: err.message }, 'job engine: sync not queued'));
    },
    async send(name, jobs) {
      if (jobs.length === 0) return;
      // No pg-boss retry: a job that fails or is lost is the worker's to notice and send again.
      await boss.insert(
        jobs.map((data) => ({
          name,
          data: data as object,
          retryLimit: 0,
          expireInSeconds: WORKER_JOB_EXPIRY_S,
        })),
      );
      wakers.get(name)?.wake();
    },
    async stop(handBack) {
      handBack?.addEventListener('abort', () => handingBack.abort(), { once: true });
      stopping.abort(new Error('stopping'));
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled(loops);
      await completions.flush();
      await boss.stop({ graceful: false, close: false }).catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

/** The pool pg-boss works through: a few connections of its own to the store. */
function jobPool(deps: Deps): Pg.Pool {
  const pg = pgModule();
  // pg-boss's slot times are `timestamp without time zone` in UTC: read them as UTC.
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === 1114
        ? (value: string) => new Date(`${value.replace(' ', 'T')}Z`)
        : pg.types.getTypeParser(oid, format),
  };
  const pool = new pg.Pool({
    // pg-boss keeps no session state (no LISTEN, only transaction-scoped advisory locks, each
    // command one transaction): it works through a transaction pooler, on the store's own URL.
    connectionString: deps.config.databaseUrl as string,
    max: 3,
    application_name: 'bridgekit-jobs',
    connectionTimeoutMillis: 5000,
    types: types as Pg.CustomTypesConfig,
  });
  pool.on('error', () => {});
  return pool;
}

/** pg-boss on `pool`, started; its schema and queues come with the store's migration. */
async function startBoss(deps: Deps, pool: Pg.Pool): Promise<PgBoss> {
  const { config, log } = deps;
  const longest = Math.max(config.healthIntervalSeconds, config.syncIntervalSeconds);
  const boss = new (pgBossModule())({
    db: { executeSql: (text, values) => pool.query(text, values) },
    schedule: false,
    supervise: true,
    migrate: false,
    // The throttle's unique index holds while a job is in the job table: keep them there two
    // intervals, then a day in the archive (a check every 5 minutes is ~300 rows a day each).
    archiveCompletedAfterSeconds: Math.max(600, 2 * longest),
    archiveFailedAfterSeconds: Math.max(600, 2 * longest),
    deleteAfterSeconds: 86_400,
  });
  boss.on('error', (err: Error) => log.warn({ err: err.message }, 'job engine error'));
  await boss.start();
  return boss;
}

/**
 * Asks for the current slot's sweep a few times in the first half of each interval: pg-boss
 * keeps exactly one. Returns the timers that ask.
 */
function askForSweeps(deps: Deps, boss: PgBoss): NodeJS.Timeout[] {
  const { log } = deps;
  return (['health', 'sync'] as const).map((kind) => {
    const seconds = intervalOf(deps.config, kind);
    const ask = () =>
      sweepOpen(slotOf(deps.now(), seconds), seconds, deps.now()) &&
      boss
        .send(
          SWEEP[kind],
          {},
          {
            singletonKey: 'all',
            singletonSeconds: seconds,
            retryLimit: 3,
            expireInSeconds: Math.max(60, seconds),
          },
        )
        .catch((err: Error) => log.warn({ err: err.message }, 'job engine: sweep not queued'));
    void ask();
    const timer = setInterval(ask, Math.min(30_000, Math.max(250, (seconds * 1000) / 4)));
    timer.unref();
    return timer;
  });
}

/**
 * Completions go to pg-boss in batches: one statement for many finished jobs. Jobs of the
 * queues in `deleted` are deleted rather than kept as completed (nothing reads them again).
 */
function batchedCompletions(deps: Deps, boss: PgBoss, deleted: ReadonlySet<string>) {
  const done = new Map<string, string[]>();
  const flush = async () => {
    for (const [name, ids] of done) {
      done.delete(name);
      const finish = deleted.has(name) ? boss.deleteJob(name, ids) : boss.complete(name, ids);
      await finish.catch((err: Error) => {
        deps.log.warn({ err: err.message }, 'job engine: completion not recorded');
      });
    }
  };
  const timer = setInterval(() => void flush(), 250);
  timer.unref();
  return {
    timer,
    flush,
    add(name: string, id: string) {
      const ids = done.get(name);
      if (ids) ids.push(id);
      else done.set(name, [id]);
    },
  };
}

/** Resolves after `ms`, or at once when the engine stops. */
function sleep(signal: AbortSignal, ms: number) {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

async function sweep(engine: Engine, kind: JobKind, job: PgBoss.JobWithMetadata<JobData>) {
  const { deps, boss } = engine;
  const seconds = intervalOf(deps.config, kind);
  // Due through the rest of the sweep's interval (see paced); each job's own slot is fixed
  // now, at insertion.
  const slot = job.singletonOn ?? slotOf(deps.now(), seconds);
  for await (const page of paced(deps, slot, seconds)) {
    await boss.insert(
      page.map(({ id, delayMs }) => ({
        name: QUEUE[kind],
        data: { id },
        startAfter: String(delayMs / 1000),
        singletonKey: id,
        singletonSeconds: seconds,
        retryLimit: 0,
        expireInSeconds: Math.max(60, seconds),
      })),
    );
  }
}

async function runOne(engine: Engine, kind: JobKind, job: PgBoss.JobWithMetadata<JobData>) {
  const id = job.data.id;
  if (!id) return;
  const slot = job.singletonOn ?? undefined;
  const result = await runJob(engine.deps, kind, id, slot, engine.signal, engine.handBack);
  // Another instance takes it at once.
  if (result === 'handed-back') {
    await engine.boss.send(QUEUE.sync, { id }, { retryLimit: 0 });
  } else if (result === 'busy' && !slot && kind === 'sync') {
    await engine.boss.send(QUEUE.sync, { id }, { startAfter: BUSY_RETRY_MS / 1000, retryLimit: 0 });
  }
}

/**
 * One loop per queue: keeps up to `concurrency` jobs in hand. It fetches again once half of
 * them have finished (a batch per fetch, not a fetch per job), at once while a backlog lasts,
 * and polls when the queue is drained (every `pollMs`, or when `sleep` is woken).
 */
async function work<T = JobData>(
  engine: Engine,
  name: string,
  concurrency: number,
  handle: (job: PgBoss.JobWithMetadata<T>) => Promise<void>,
  polling: { pollMs: number; sleep: typeof sleep } = { pollMs: engine.pollMs, sleep },
) {
  const { boss, signal, deps } = engine;
  const { pollMs } = polling;
  const inFlight = new Set<Promise<void>>();
  const refill = Math.ceil(concurrency / 2);
  while (!signal.aborted) {
    if (concurrency - inFlight.size < refill) {
      await Promise.race([sleep(signal, pollMs), ...inFlight]);
      continue;
    }
    const batch = concurrency - inFlight.size;
    const jobs =
      (await boss
        .fetch<T>(name, { batchSize: batch, includeMetadata: true })
        .catch((err: Error) => {
          deps.log.warn({ err: err.message }, 'job engine: fetch failed');
          return null;
        })) ?? [];
    for (const job of jobs) {
      const run = handle(job)
        .then(
          () => engine.completed(name, job.id),
          async (err) => {
            if (!signal.aborted) deps.log.error({ err, queue: name }, 'job failed');
            await boss.fail(name, job.id);
          },
        )
        .catch(() => {})
        .finally(() => inFlight.delete(run));
      inFlight.add(run);
    }
    // A full batch may have left more behind: go on as soon as half are done. Otherwise the
    // queue is drained: poll.
    if (jobs.length < batch) await polling.sleep(signal, pollMs);
  }
  await Promise.allSettled(inFlight);
}
