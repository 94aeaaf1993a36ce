import type { Kysely, Migration } from 'kysely';

/**
 * The jwtSecret a rotation replaced, sealed like the current one, and when it stops verifying
 * SSO tokens. Both null until the first rotation.
 */
export const previousJwtSecret = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('organizations')
      .addColumn('previous_jwt_secret_sealed', 'text')
      .execute();
    await db.schema
      .alterTable('organizations')
      .addColumn('previous_jwt_secret_expires_at', 'text')
      .execute();
  },
});
