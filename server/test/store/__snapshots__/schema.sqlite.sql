-- index api_keys_user
CREATE INDEX "api_keys_user" on "api_keys" ("user_id");
-- index data_sources_org_id
CREATE INDEX "data_sources_org_id" on "data_sources" ("organization_id", "id");
-- index embed_handoffs_expires
CREATE INDEX "embed_handoffs_expires" on "embed_handoffs" ("expires_at");
-- index embed_origin_patterns_organization
CREATE INDEX "embed_origin_patterns_organization" on "embed_origin_patterns" ("organization_id");
-- index members_user_org
CREATE INDEX "members_user_org" on "members" ("user_id", "organization_id");
-- index revoked_sessions_expires
CREATE INDEX "revoked_sessions_expires" on "revoked_sessions" ("expires_at");
-- index sso_jti_expires
CREATE INDEX "sso_jti_expires" on "sso_jti" ("expires_at");
-- index webhook_deliveries_due
CREATE INDEX "webhook_deliveries_due" on "webhook_deliveries" ("status", "next_attempt_at");
-- index webhook_deliveries_endpoint
CREATE INDEX "webhook_deliveries_endpoint" on "webhook_deliveries" ("endpoint_id", "id");
-- index webhook_endpoints_org
CREATE INDEX "webhook_endpoints_org" on "webhook_endpoints" ("organization_id", "id");
-- table api_keys
CREATE TABLE "api_keys" ("id" text primary key, "user_id" text not null references "users" ("id") on delete cascade, "name" text, "key_hash" text not null unique, "hint" text not null, "created_at" text not null, "last_used_at" text, "expires_at" text, "revoked_at" text);
-- table catalog_columns
CREATE TABLE "catalog_columns" ("data_source_id" text not null references "data_sources" ("id") on delete cascade, "table_position" integer not null, "position" integer not null, "column_name" text not null, "column_type" text not null, "nullable" integer not null, constraint "catalog_columns_pk" primary key ("data_source_id", "table_position", "position"));
-- table catalog_tables
CREATE TABLE "catalog_tables" ("data_source_id" text not null references "data_sources" ("id") on delete cascade, "position" integer not null, "schema_name" text not null, "table_name" text not null, "kind" text not null, constraint "catalog_tables_pk" primary key ("data_source_id", "position"));
-- table data_sources
CREATE TABLE "data_sources" ("id" text primary key, "organization_id" text not null references "organizations" ("id") on delete cascade, "display_name" text not null, "description" text, "dialect" text not null, "database_name" text, "username" text, "host" text, "port" integer, "ssl_enabled" integer not null, "ssl_custom_certificates_enabled" integer default 0 not null, "ssh_enabled" integer not null, "ssh_host" text, "ssh_port" integer, "ssh_username" text, "big_query_project_id" text, "spanner_instance_id" text, "snowflake_account_id" text, "snowflake_warehouse" text, "snowflake_role" text, "last_successful_sync_at" text, "last_sync_status" text not null, "last_sync_attempt_at" text, "has_completed_first_sync" integer default 0 not null, "sync_error_message" text, "last_healthy_at" text, "last_health_status" text, "last_health_check_attempt_at" text, "is_demo" integer default 0 not null, "is_service_warehouse" integer default 0 not null, "password_sealed" text, "ssh_password_sealed" text, "ssh_private_key_sealed" text, "ssh_private_key_passphrase_sealed" text, "snowflake_private_key_sealed" text, "snowflake_private_key_passphrase_sealed" text, "big_query_json_key_sealed" text, "created_at" text not null, "updated_at" text not null, "health_error_message" text, "sync_started_at" text, "catalog_read_at" text, "catalog_truncated" integer default 0 not null, "catalog_table_count" integer default 0 not null);
-- table embed_handoffs
CREATE TABLE "embed_handoffs" ("code_hash" text primary key, "organization_id" text not null, "member_id" text not null, "framing_origin" text not null, "expires_at" text not null, "used_at" text, "session_id" text, "replayed_at" text);
-- table embed_origin_patterns
CREATE TABLE "embed_origin_patterns" ("pattern" text not null, "organization_id" text not null references "organizations" ("id") on delete cascade, constraint "embed_origin_patterns_pk" primary key ("pattern", "organization_id"));
-- table key_checks
CREATE TABLE "key_checks" ("name" text primary key, "check_value" text not null, "recorded_at" text not null);
-- table members
CREATE TABLE "members" ("id" text primary key, "organization_id" text not null references "organizations" ("id") on delete cascade, "user_id" text not null references "users" ("id") on delete cascade, "role" text not null, "groups" text, "created_at" text not null, constraint "members_org_user" unique ("organization_id", "user_id"));
-- table organizations
CREATE TABLE "organizations" ("id" text primary key, "name" text not null, "slug" text not null unique, "custom_ai_context" text, "onboarding_status" text not null, "full_embed_enabled" integer default 0 not null, "embed_allowed_origins" text default '[]' not null, "jwt_secret_sealed" text not null, "created_at" text not null, "updated_at" text not null, "previous_jwt_secret_sealed" text, "previous_jwt_secret_expires_at" text);
-- table rate_limits
CREATE TABLE "rate_limits" ("key" varchar(255) primary key, "points" integer default 0 not null, "expire" bigint);
-- table revoked_sessions
CREATE TABLE "revoked_sessions" ("session_id" text primary key, "organization_id" text not null, "expires_at" text not null);
-- table sso_jti
CREATE TABLE "sso_jti" ("organization_id" text not null, "jti" text not null, "expires_at" text not null, constraint "sso_jti_pk" primary key ("organization_id", "jti"));
-- table users
CREATE TABLE "users" ("id" text primary key, "email" text not null unique, "full_name" text, "first_name" text, "last_name" text, "title" text, "avatar_url" text, "is_email_verified" integer default 0 not null, "created_at" text not null);
-- table webhook_deliveries
CREATE TABLE "webhook_deliveries" ("id" text primary key, "endpoint_id" text not null references "webhook_endpoints" ("id") on delete cascade, "event_id" text not null references "webhook_events" ("id") on delete cascade, "status" text not null, "attempts" integer default 0 not null, "next_attempt_at" text, "lease_until" text, "last_attempt_at" text, "last_response_status" integer, "last_error" text, "created_at" text not null);
-- table webhook_endpoints
CREATE TABLE "webhook_endpoints" ("id" text primary key, "organization_id" text not null, "url" text not null, "description" text, "event_types" text not null, "secret_sealed" text not null, "previous_secret_sealed" text, "previous_secret_expires_at" text, "enabled" integer not null, "disabled_reason" text, "disabled_at" text, "created_at" text not null, "updated_at" text not null);
-- table webhook_events
CREATE TABLE "webhook_events" ("id" text primary key, "organization_id" text not null, "type" text not null, "payload" text not null, "created_at" text not null);
-- trigger embed_origin_patterns_insert
CREATE TRIGGER embed_origin_patterns_insert after insert on organizations
      begin insert or ignore into embed_origin_patterns (pattern, organization_id)
      select value, new.id from json_each(new.embed_allowed_origins); end;
-- trigger embed_origin_patterns_update
CREATE TRIGGER embed_origin_patterns_update
      after update of embed_allowed_origins on organizations
      when old.embed_allowed_origins is not new.embed_allowed_origins
      begin
        delete from embed_origin_patterns where organization_id = old.id;
        insert or ignore into embed_origin_patterns (pattern, organization_id)
      select value, new.id from json_each(new.embed_allowed_origins);
      end;