// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * The jwtSecret a rotation replaced, sealed like the current one, and when it stops verifying
 * SSO tokens. Both null until the first rotation.
 */
export const previousJwtSecret = {
  sqlite: [
    `alter table "organizations" add column "previous_jwt_secret_sealed" text`,
    `alter table "organizations" add column "previous_jwt_secret_expires_at" text`,
  ],
  postgres: [
    `alter table "organizations" add column "previous_jwt_secret_sealed" text`,
    `alter table "organizations" add column "previous_jwt_secret_expires_at" text`,
  ],
};
