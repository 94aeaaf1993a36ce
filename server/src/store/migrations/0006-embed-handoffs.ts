// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * Single-use handoff codes of the full-embed sign-in: `GET /api/sso/jwt` stores one (only its
 * SHA-256, never the code) and the embed page redeems it once at `POST /embed/session`. In the
 * shared store, so a code issued by one instance is redeemed at any other.
 */
export const embedHandoffs = {
  sqlite: [
    `create table "embed_handoffs" ("code_hash" text primary key, "organization_id" text not null, "member_id" text not null, "framing_origin" text not null, "expires_at" text not null, "used_at" text, "session_id" text)`,
    `create index "embed_handoffs_expires" on "embed_handoffs" ("expires_at")`,
  ],
  postgres: [
    `create table "embed_handoffs" ("code_hash" text primary key collate "C", "organization_id" text not null collate "C", "member_id" text not null collate "C", "framing_origin" text not null, "expires_at" text not null, "used_at" text, "session_id" text)`,
    `create index "embed_handoffs_expires" on "embed_handoffs" ("expires_at")`,
  ],
};
