// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * `key_checks`: one check value per configured key (an HMAC of a fixed text under the key, never
 * the key), so an instance started with another BRIDGE_SECRET_KEY or BRIDGE_SESSION_SECRET than
 * the store's is refused at start instead of splitting the data between two keys.
 */
export const keyChecks = {
  sqlite: [
    `create table "key_checks" ("name" text primary key, "check_value" text not null, "recorded_at" text not null)`,
  ],
  postgres: [
    `create table "key_checks" ("name" text primary key, "check_value" text not null, "recorded_at" text not null)`,
  ],
};
