import type PgBoss from 'pg-boss';
import type { JobKind } from './jobs';

/** The queues the scheduler works (see pg-boss.ts): one per kind, one sweep per kind. */
export const QUEUE: Record<JobKind, string> = {
  health: 'bridgekit-health',
  sync: 'bridgekit-sync',
};
export const SWEEP: Record<JobKind, string> = {
  health: 'bridgekit-health-sweep',
  sync: 'bridgekit-sync-sweep',
};
/** Webhook deliveries: one job per attempt (see webhooks/dispatcher.ts). */
export const WEBHOOK_QUEUE = 'bridgekit-webhook';

/** pg-boss's default schema, where its tables live. */
const SCHEMA = 'pgboss';

/** Runs one SQL text (several statements, no parameters) inside the migration's transaction. */
export type RunSql = (text: string) => Promise<Record<string, unknown>[]>;

/**
 * pg-boss wraps each plan in BEGIN … COMMIT under a lock of its own; here it runs inside the
 * migration's transaction, under the migration lock, so the wrapper is taken off.
 */
function unwrapped(plan: string): string {
  const text = plan.trim();
  if (!text.startsWith('BEGIN;') || !text.endsWith('COMMIT;')) {
    throw new Error('pg-boss plan is not one BEGIN … COMMIT block; update job-schema.ts');
  }
  return text.slice('BEGIN;'.length, -'COMMIT;'.length);
}

/**
 * The job engine's schema and queues as part of migration: created (or brought to pg-boss's
 * version) under the migration lock, so instances starting together on an empty database never
 * race on pg-boss's DDL (its concurrent queue creation deadlocks). Returns what it applied.
 */
export async function migrateJobSchema(
  boss: typeof PgBoss,
  latest: number,
  run: RunSql,
): Promise<string[]> {
  const applied: string[] = [];
  const [table] = await run(`select to_regclass('${SCHEMA}.version') is not null as "installed"`);
  if (!table?.installed) {
    await run(unwrapped(boss.getConstructionPlans(SCHEMA)));
    applied.push('pg-boss schema');
  } else {
    const [row] = await run(`select version::int as "version" from ${SCHEMA}.version`);
    const installed = Number(row?.version);
    if (installed < latest) {
      await run(unwrapped(boss.getMigrationPlans(SCHEMA, String(installed))));
      applied.push(`pg-boss schema ${installed} → ${latest}`);
    }
  }
  const names = [...Object.values(QUEUE), ...Object.values(SWEEP), WEBHOOK_QUEUE];
  const existing = new Set(
    (await run(`select name from ${SCHEMA}.queue`)).map((r) => String(r.name)),
  );
  for (const name of names.filter((n) => !existing.has(n))) {
    await run(`select ${SCHEMA}.create_queue('${name}', '{"policy":"standard"}'::json)`);
    applied.push(`queue ${name}`);
  }
  return applied;
}
