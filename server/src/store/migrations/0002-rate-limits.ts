import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from './dialect';

/**
 * Shared rate-limit counters, in the layout rate-limiter-flexible's PostgreSQL store uses.
 * UNLOGGED on PostgreSQL: counters lost in a crash are harmless, and skipping the WAL keeps
 * the write every request makes cheap.
 */
export const rateLimits = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    const table = db.schema.createTable('rate_limits');
    await (dialect === 'postgres' ? table.modifyFront(sql`unlogged`) : table)
      .addColumn('key', 'varchar(255)', (col) => col.primaryKey())
      .addColumn('points', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('expire', 'bigint')
      .execute();
  },
});
