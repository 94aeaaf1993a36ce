// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * Sessions ended before their time (logout), kept until the session could no longer be renewed
 * anyway. Every request made with a session checks it is not here, on every instance.
 */
export const revokedSessions = {
  sqlite: [
    `create table "revoked_sessions" ("session_id" text primary key, "organization_id" text not null, "expires_at" text not null)`,
    `create index "revoked_sessions_expires" on "revoked_sessions" ("expires_at")`,
  ],
  postgres: [
    `create table "revoked_sessions" ("session_id" text primary key collate "C", "organization_id" text not null collate "C", "expires_at" text not null)`,
    `create index "revoked_sessions_expires" on "revoked_sessions" ("expires_at")`,
  ],
};
