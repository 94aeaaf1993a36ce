// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * Webhooks. `webhook_endpoints`: where an organization wants events (its signing secret sealed,
 * the one a rotation replaced beside it until its grace ends). No foreign key to the
 * organization: `organization.deleted` is still delivered after the organization is gone.
 * `webhook_events`: the outbox, written in the transaction of the change it reports.
 * `webhook_deliveries`: one per event and endpoint, with its attempts and the next one's time;
 * `lease_until` marks the instance sending it, so two never send it at once.
 */
export const webhooks = {
  sqlite: [
    `create table "webhook_endpoints" ("id" text primary key, "organization_id" text not null, "url" text not null, "description" text, "event_types" text not null, "secret_sealed" text not null, "previous_secret_sealed" text, "previous_secret_expires_at" text, "enabled" integer not null, "disabled_reason" text, "disabled_at" text, "created_at" text not null, "updated_at" text not null)`,
    `create index "webhook_endpoints_org" on "webhook_endpoints" ("organization_id", "id")`,
    `create table "webhook_events" ("id" text primary key, "organization_id" text not null, "type" text not null, "payload" text not null, "created_at" text not null)`,
    `create table "webhook_deliveries" ("id" text primary key, "endpoint_id" text not null references "webhook_endpoints" ("id") on delete cascade, "event_id" text not null references "webhook_events" ("id") on delete cascade, "status" text not null, "attempts" integer default 0 not null, "next_attempt_at" text, "lease_until" text, "last_attempt_at" text, "last_response_status" integer, "last_error" text, "created_at" text not null)`,
    `create index "webhook_deliveries_due" on "webhook_deliveries" ("status", "next_attempt_at")`,
    `create index "webhook_deliveries_endpoint" on "webhook_deliveries" ("endpoint_id", "id")`,
  ],
  postgres: [
    `create table "webhook_endpoints" ("id" text primary key collate "C", "organization_id" text not null collate "C", "url" text not null, "description" text, "event_types" text not null, "secret_sealed" text not null, "previous_secret_sealed" text, "previous_secret_expires_at" text, "enabled" integer not null, "disabled_reason" text, "disabled_at" text, "created_at" text not null, "updated_at" text not null)`,
    `create index "webhook_endpoints_org" on "webhook_endpoints" ("organization_id", "id")`,
    `create table "webhook_events" ("id" text primary key collate "C", "organization_id" text not null collate "C", "type" text not null, "payload" text not null, "created_at" text not null)`,
    `create table "webhook_deliveries" ("id" text primary key collate "C", "endpoint_id" text not null references "webhook_endpoints" ("id") on delete cascade collate "C", "event_id" text not null references "webhook_events" ("id") on delete cascade collate "C", "status" text not null, "attempts" integer default 0 not null, "next_attempt_at" text, "lease_until" text, "last_attempt_at" text, "last_response_status" integer, "last_error" text, "created_at" text not null)`,
    `create index "webhook_deliveries_due" on "webhook_deliveries" ("status", "next_attempt_at")`,
    `create index "webhook_deliveries_endpoint" on "webhook_deliveries" ("endpoint_id", "id")`,
  ],
};
