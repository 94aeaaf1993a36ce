import type { Migration } from 'kysely';
import { createClaimsFunction } from './0010-sso-write-functions';
import type { Dialect } from './dialect';

/**
 * PostgreSQL: `bk_sso_claims_creating` (migration 0010) gathers the users and memberships it
 * answers with once per statement. As released, its `u` and `m` (what the batch created, with
 * what was already there for the batch's emails) were each referenced once, so the planner
 * inlined them and, estimating one row from the arrays, joined them by nested loop to every
 * entry of the batch: each entry looked every email of the batch up again, 2 × n² scans of
 * `users_email_key` for a batch of n (store-sso-exchange.test.ts counts them). Materialized,
 * each is gathered once. The statement's result is the same row for row.
 *
 * Measured on one 2-core machine (median of 15 calls, client-side, commit included): a batch of
 * 16 first sign-ins 3.4 → 2.2 ms, of 32 8.0 → 3.7 ms. Under `npm run bench sso` (batches of
 * ~15) the function's own time per call went from 1.90–2.04 to 1.74–1.79 ms
 * (`pg_stat_user_functions`). The gain grows with the batch; and since a batch is what arrived
 * while the last statement ran, a slower statement makes the next batch larger, so under a
 * burst the quadratic term would have fed on itself.
 */
export const ssoClaimsReadBackOnce = (dialect: Dialect): Migration => ({
  async up(db) {
    if (dialect !== 'postgres') return;
    await createClaimsFunction(db, true, true);
  },
});
