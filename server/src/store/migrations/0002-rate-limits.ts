// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * Shared rate-limit counters, in the layout rate-limiter-flexible's PostgreSQL store uses.
 * UNLOGGED on PostgreSQL: counters lost in a crash are harmless, and skipping the WAL keeps
 * the write every request makes cheap.
 */
export const rateLimits = {
  sqlite: [
    `create table "rate_limits" ("key" varchar(255) primary key, "points" integer default 0 not null, "expire" bigint)`,
  ],
  postgres: [
    `create unlogged table "rate_limits" ("key" varchar(255) primary key, "points" integer default 0 not null, "expire" bigint)`,
  ],
};
