column api_keys.created_at text not null
column api_keys.expires_at text
column api_keys.hint text not null
column api_keys.id text not null collate C
column api_keys.key_hash text not null
column api_keys.last_used_at text
column api_keys.name text
column api_keys.revoked_at text
column api_keys.user_id text not null collate C
column catalog_columns.column_name text not null
column catalog_columns.column_type text not null
column catalog_columns.data_source_id text not null collate C
column catalog_columns.nullable integer not null
column catalog_columns.position integer not null
column catalog_columns.table_position integer not null
column catalog_tables.data_source_id text not null collate C
column catalog_tables.kind text not null
column catalog_tables.position integer not null
column catalog_tables.schema_name text not null
column catalog_tables.table_name text not null
column data_sources.big_query_json_key_sealed text
column data_sources.big_query_project_id text
column data_sources.catalog_read_at text
column data_sources.catalog_table_count integer not null default 0
column data_sources.catalog_truncated integer not null default 0
column data_sources.created_at text not null
column data_sources.database_name text
column data_sources.description text
column data_sources.dialect text not null
column data_sources.display_name text not null
column data_sources.has_completed_first_sync integer not null default 0
column data_sources.health_error_message text
column data_sources.host text
column data_sources.id text not null collate C
column data_sources.is_demo integer not null default 0
column data_sources.is_service_warehouse integer not null default 0
column data_sources.last_health_check_attempt_at text
column data_sources.last_health_status text
column data_sources.last_healthy_at text
column data_sources.last_successful_sync_at text
column data_sources.last_sync_attempt_at text
column data_sources.last_sync_status text not null
column data_sources.organization_id text not null collate C
column data_sources.password_sealed text
column data_sources.port integer
column data_sources.snowflake_account_id text
column data_sources.snowflake_private_key_passphrase_sealed text
column data_sources.snowflake_private_key_sealed text
column data_sources.snowflake_role text
column data_sources.snowflake_warehouse text
column data_sources.spanner_instance_id text
column data_sources.ssh_enabled integer not null
column data_sources.ssh_host text
column data_sources.ssh_password_sealed text
column data_sources.ssh_port integer
column data_sources.ssh_private_key_passphrase_sealed text
column data_sources.ssh_private_key_sealed text
column data_sources.ssh_username text
column data_sources.ssl_custom_certificates_enabled integer not null default 0
column data_sources.ssl_enabled integer not null
column data_sources.sync_error_message text
column data_sources.sync_started_at text
column data_sources.updated_at text not null
column data_sources.username text
column embed_handoffs.code_hash text not null collate C
column embed_handoffs.expires_at text not null
column embed_handoffs.framing_origin text not null
column embed_handoffs.member_id text not null collate C
column embed_handoffs.organization_id text not null collate C
column embed_handoffs.replayed_at text
column embed_handoffs.session_id text
column embed_handoffs.used_at text
column embed_origin_patterns.organization_id text not null collate C
column embed_origin_patterns.pattern text not null collate C
column key_checks.check_value text not null
column key_checks.name text not null
column key_checks.recorded_at text not null
column members.created_at text not null
column members.groups text
column members.id text not null collate C
column members.organization_id text not null collate C
column members.role text not null
column members.user_id text not null collate C
column organizations.created_at text not null
column organizations.custom_ai_context text
column organizations.embed_allowed_origins text not null default '[]'::text
column organizations.full_embed_enabled integer not null default 0
column organizations.id text not null collate C
column organizations.jwt_secret_sealed text not null
column organizations.name text not null
column organizations.onboarding_status text not null
column organizations.previous_jwt_secret_expires_at text
column organizations.previous_jwt_secret_sealed text
column organizations.slug text not null collate C
column organizations.updated_at text not null
column rate_limits.expire bigint
column rate_limits.key character varying not null
column rate_limits.points integer not null default 0
column revoked_sessions.expires_at text not null
column revoked_sessions.organization_id text not null collate C
column revoked_sessions.session_id text not null collate C
column sso_jti.expires_at text not null
column sso_jti.jti text not null collate C
column sso_jti.organization_id text not null collate C
column store_version.id integer
column store_version.version bigint
column store_versions.data_sources bigint not null default 0
column store_versions.members bigint not null default 0
column store_versions.organizations bigint not null default 0
column store_versions.slot integer not null
column store_versions.users bigint not null default 0
column users.avatar_url text
column users.created_at text not null
column users.email text not null
column users.first_name text
column users.full_name text
column users.id text not null collate C
column users.is_email_verified integer not null default 0
column users.last_name text
column users.title text
column webhook_deliveries.attempts integer not null default 0
column webhook_deliveries.created_at text not null
column webhook_deliveries.endpoint_id text not null collate C
column webhook_deliveries.event_id text not null collate C
column webhook_deliveries.id text not null collate C
column webhook_deliveries.last_attempt_at text
column webhook_deliveries.last_error text
column webhook_deliveries.last_response_status integer
column webhook_deliveries.lease_until text
column webhook_deliveries.next_attempt_at text
column webhook_deliveries.status text not null
column webhook_endpoints.created_at text not null
column webhook_endpoints.description text
column webhook_endpoints.disabled_at text
column webhook_endpoints.disabled_reason text
column webhook_endpoints.enabled integer not null
column webhook_endpoints.event_types text not null
column webhook_endpoints.id text not null collate C
column webhook_endpoints.organization_id text not null collate C
column webhook_endpoints.previous_secret_expires_at text
column webhook_endpoints.previous_secret_sealed text
column webhook_endpoints.secret_sealed text not null
column webhook_endpoints.updated_at text not null
column webhook_endpoints.url text not null
column webhook_events.created_at text not null
column webhook_events.id text not null collate C
column webhook_events.organization_id text not null collate C
column webhook_events.payload text not null
column webhook_events.type text not null
constraint api_keys.api_keys_key_hash_key UNIQUE (key_hash)
constraint api_keys.api_keys_pkey PRIMARY KEY (id)
constraint api_keys.api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
constraint catalog_columns.catalog_columns_data_source_id_fkey FOREIGN KEY (data_source_id) REFERENCES data_sources(id) ON DELETE CASCADE
constraint catalog_columns.catalog_columns_pk PRIMARY KEY (data_source_id, table_position, "position")
constraint catalog_tables.catalog_tables_data_source_id_fkey FOREIGN KEY (data_source_id) REFERENCES data_sources(id) ON DELETE CASCADE
constraint catalog_tables.catalog_tables_pk PRIMARY KEY (data_source_id, "position")
constraint data_sources.data_sources_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
constraint data_sources.data_sources_pkey PRIMARY KEY (id)
constraint embed_handoffs.embed_handoffs_pkey PRIMARY KEY (code_hash)
constraint embed_origin_patterns.embed_origin_patterns_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
constraint embed_origin_patterns.embed_origin_patterns_pk PRIMARY KEY (pattern, organization_id)
constraint key_checks.key_checks_pkey PRIMARY KEY (name)
constraint members.members_org_user UNIQUE (organization_id, user_id)
constraint members.members_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
constraint members.members_pkey PRIMARY KEY (id)
constraint members.members_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
constraint organizations.organizations_pkey PRIMARY KEY (id)
constraint organizations.organizations_slug_key UNIQUE (slug)
constraint rate_limits.rate_limits_pkey PRIMARY KEY (key)
constraint revoked_sessions.revoked_sessions_pkey PRIMARY KEY (session_id)
constraint sso_jti.sso_jti_pk PRIMARY KEY (organization_id, jti)
constraint store_versions.store_versions_pkey PRIMARY KEY (slot)
constraint users.users_email_key UNIQUE (email)
constraint users.users_pkey PRIMARY KEY (id)
constraint webhook_deliveries.webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id) ON DELETE CASCADE
constraint webhook_deliveries.webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES webhook_events(id) ON DELETE CASCADE
constraint webhook_deliveries.webhook_deliveries_pkey PRIMARY KEY (id)
constraint webhook_endpoints.webhook_endpoints_pkey PRIMARY KEY (id)
constraint webhook_events.webhook_events_pkey PRIMARY KEY (id)
CREATE UNIQUE INDEX api_keys_key_hash_key ON public.api_keys USING btree (key_hash)
CREATE UNIQUE INDEX api_keys_pkey ON public.api_keys USING btree (id)
CREATE INDEX api_keys_user ON public.api_keys USING btree (user_id)
CREATE UNIQUE INDEX catalog_columns_pk ON public.catalog_columns USING btree (data_source_id, table_position, "position")
CREATE UNIQUE INDEX catalog_tables_pk ON public.catalog_tables USING btree (data_source_id, "position")
CREATE INDEX data_sources_org_id ON public.data_sources USING btree (organization_id, id)
CREATE UNIQUE INDEX data_sources_pkey ON public.data_sources USING btree (id)
CREATE INDEX embed_handoffs_expires ON public.embed_handoffs USING btree (expires_at)
CREATE UNIQUE INDEX embed_handoffs_pkey ON public.embed_handoffs USING btree (code_hash)
CREATE INDEX embed_origin_patterns_organization ON public.embed_origin_patterns USING btree (organization_id)
CREATE UNIQUE INDEX embed_origin_patterns_pk ON public.embed_origin_patterns USING btree (pattern, organization_id)
CREATE UNIQUE INDEX key_checks_pkey ON public.key_checks USING btree (name)
CREATE UNIQUE INDEX members_org_user ON public.members USING btree (organization_id, user_id)
CREATE UNIQUE INDEX members_pkey ON public.members USING btree (id)
CREATE INDEX members_user_org ON public.members USING btree (user_id, organization_id)
CREATE UNIQUE INDEX organizations_pkey ON public.organizations USING btree (id)
CREATE UNIQUE INDEX organizations_slug_key ON public.organizations USING btree (slug)
CREATE UNIQUE INDEX rate_limits_pkey ON public.rate_limits USING btree (key)
CREATE INDEX revoked_sessions_expires ON public.revoked_sessions USING btree (expires_at)
CREATE UNIQUE INDEX revoked_sessions_pkey ON public.revoked_sessions USING btree (session_id)
CREATE INDEX sso_jti_expires ON public.sso_jti USING btree (expires_at)
CREATE UNIQUE INDEX sso_jti_pk ON public.sso_jti USING btree (organization_id, jti)
CREATE UNIQUE INDEX store_versions_pkey ON public.store_versions USING btree (slot)
CREATE UNIQUE INDEX users_email_key ON public.users USING btree (email)
CREATE UNIQUE INDEX users_pkey ON public.users USING btree (id)
CREATE INDEX webhook_deliveries_due ON public.webhook_deliveries USING btree (status, next_attempt_at)
CREATE INDEX webhook_deliveries_endpoint ON public.webhook_deliveries USING btree (endpoint_id, id)
CREATE UNIQUE INDEX webhook_deliveries_pkey ON public.webhook_deliveries USING btree (id)
CREATE INDEX webhook_endpoints_org ON public.webhook_endpoints USING btree (organization_id, id)
CREATE UNIQUE INDEX webhook_endpoints_pkey ON public.webhook_endpoints USING btree (id)
CREATE UNIQUE INDEX webhook_events_pkey ON public.webhook_events USING btree (id)
CREATE TRIGGER data_sources_bump_store_version BEFORE INSERT OR DELETE OR UPDATE OF id, organization_id, display_name, description, dialect, database_name, username, host, port, ssl_enabled, ssl_custom_certificates_enabled, ssh_enabled, ssh_host, ssh_port, ssh_username, big_query_project_id, spanner_instance_id, snowflake_account_id, snowflake_warehouse, snowflake_role, is_demo, is_service_warehouse, password_sealed, ssh_password_sealed, ssh_private_key_sealed, ssh_private_key_passphrase_sealed, snowflake_private_key_sealed, snowflake_private_key_passphrase_sealed, big_query_json_key_sealed, created_at, updated_at OR TRUNCATE ON public.data_sources FOR EACH STATEMENT EXECUTE FUNCTION bk_bump_store_version()
CREATE TRIGGER embed_origin_patterns_insert AFTER INSERT ON public.organizations FOR EACH ROW EXECUTE FUNCTION bk_index_embed_origins()
CREATE TRIGGER embed_origin_patterns_update AFTER UPDATE OF embed_allowed_origins ON public.organizations FOR EACH ROW WHEN ((old.embed_allowed_origins IS DISTINCT FROM new.embed_allowed_origins)) EXECUTE FUNCTION bk_index_embed_origins()
CREATE TRIGGER members_bump_store_version BEFORE INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.members FOR EACH STATEMENT EXECUTE FUNCTION bk_bump_store_version()
CREATE TRIGGER organizations_bump_store_version BEFORE INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.organizations FOR EACH STATEMENT EXECUTE FUNCTION bk_bump_store_version()
CREATE TRIGGER store_version_write_lock INSTEAD OF UPDATE ON public.store_version FOR EACH ROW EXECUTE FUNCTION bk_lock_store_versions()
CREATE TRIGGER users_bump_store_version BEFORE INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.users FOR EACH STATEMENT EXECUTE FUNCTION bk_bump_store_version()
CREATE OR REPLACE FUNCTION public.bk_api_key_counting_hit(text, text, bigint, text, bigint, integer)
 RETURNS TABLE(id text, "userId" text, "expiresAt" text, "revokedAt" text, "lastUsedAt" text, "storeVersion" text, "hitPoints" integer, "hitExpire" text)
 LANGUAGE plpgsql
AS $function$
      #variable_conflict use_column
      begin
        return query
        with k as (
          select id, user_id as "userId", expires_at as "expiresAt", revoked_at as "revokedAt", last_used_at as "lastUsedAt" from api_keys where key_hash = $1
        ), hit as (
          insert into rate_limits (key, points, expire)
          select $2 || k.id, $6::int, $3::bigint from k
          where k."revokedAt" is null and (k."expiresAt" is null or k."expiresAt" > $4)
          on conflict (key) do update set
            points = case when rate_limits.expire <= $5::bigint then $6::int
              else rate_limits.points + $6::int end,
            expire = case when rate_limits.expire <= $5::bigint then $3::bigint else rate_limits.expire end
          returning points, expire
        )
        select k.*, null::text as "storeVersion",
          hit.points as "hitPoints", hit.expire::text as "hitExpire"
        from k left join hit on true;
      end $function$

CREATE OR REPLACE FUNCTION public.bk_bump_store_version()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        update store_versions set users = users + (tg_table_name = 'users')::int, organizations = organizations + (tg_table_name = 'organizations')::int, members = members + (tg_table_name = 'members')::int, data_sources = data_sources + (tg_table_name = 'data_sources')::int
          where slot = (txid_current() % 16)::int;
        return null;
      end $function$

CREATE OR REPLACE FUNCTION public.bk_index_embed_origins()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
        begin
          if tg_op = 'UPDATE' then
            delete from embed_origin_patterns where organization_id = old.id;
          end if;
          insert into embed_origin_patterns (pattern, organization_id)
            select p, new.id from json_array_elements_text(new.embed_allowed_origins::json) as p
            on conflict do nothing;
          return null;
        end $function$

CREATE OR REPLACE FUNCTION public.bk_lock_store_versions()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        perform 1 from store_versions order by slot for update;
        return new;
      end $function$

CREATE OR REPLACE FUNCTION public.bk_new_users_and_members(text[], text[], text[], text[], text[], text[], text[], text[], text[], text[])
 RETURNS TABLE(i integer, id text, "organizationId" text, "userId" text, role text, groups text, "createdAt" text, "userEmail" text, "userFullName" text, "userFirstName" text, "userLastName" text, "userTitle" text, "userAvatarUrl" text, "userIsEmailVerified" integer, "userCreatedAt" text)
 LANGUAGE plpgsql
AS $function$
      #variable_conflict use_column
      begin
        return query
        with input as (
          select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
            $7::text[], $8::text[], $9::text[], $10::text[]) with ordinality
            as c(user_id, email, full_name, first_name, last_name, created_at, member_id,
              organization_id, role, groups, i)
        ), u as (
          insert into users (id, email, full_name, first_name, last_name, title, avatar_url,
            is_email_verified, created_at)
          select user_id, email, full_name, first_name, last_name, null, null, 0, created_at
          from input order by email
          on conflict (email) do nothing
          returning *
        ), m as (
          insert into members (id, organization_id, user_id, role, groups, created_at)
          select input.member_id, input.organization_id, u.id, input.role, input.groups,
            input.created_at
          from input join u on u.id = input.user_id
          returning *
        )
        select input.i::int as "i", m.id, m.organization_id as "organizationId", m.user_id as "userId",
          m.role, m.groups, m.created_at as "createdAt", u.email as "userEmail",
          u.full_name as "userFullName", u.first_name as "userFirstName",
          u.last_name as "userLastName", u.title as "userTitle",
          u.avatar_url as "userAvatarUrl", u.is_email_verified as "userIsEmailVerified",
          u.created_at as "userCreatedAt"
        from m join u on u.id = m.user_id join input on input.member_id = m.id;
      end $function$

CREATE OR REPLACE FUNCTION public.bk_org_with_member(p_org_id text, p_email text)
 RETURNS TABLE(o organizations, m members, u users, ov text)
 LANGUAGE plpgsql
 STABLE
AS $function$
      begin
        return query
          select org, mem, usr, org.xmin::text from organizations org
            left join users usr on usr.email = p_email
            left join members mem on mem.organization_id = org.id and mem.user_id = usr.id
          where org.id = p_org_id;
      end $function$

CREATE OR REPLACE FUNCTION public.bk_sso_claims(text, bigint, bigint, text[], integer, text, text[], text, text[], text[])
 RETURNS TABLE(i integer, r integer, n integer, points integer, expire text, claimed boolean, member_id text, member_role text, member_groups text, member_created_at text, user_id text, user_email text, user_full_name text, user_first_name text, user_last_name text, user_title text, user_avatar_url text, user_is_email_verified integer, user_created_at text)
 LANGUAGE plpgsql
AS $function$
      #variable_conflict use_column
      begin
        return query 
with cur as (
  select xmin::text as v from organizations where id = $6
), ranked as (
  select c.*, row_number() over (order by c.i) as r, count(*) over () as n
  from unnest($4::text[], $7::text[], $9::text[], $10::text[]) with ordinality
    as c(jti, expires_at, v, email, i)
  where c.v is null or c.v = (select v from cur)
), hit as (
  insert into rate_limits (key, points, expire)
  select $1, ranked.n::int, $2::bigint from ranked where ranked.r = 1
  on conflict (key) do update set
    points = case when rate_limits.expire <= $3::bigint then excluded.points
      else rate_limits.points + excluded.points end,
    expire = case when rate_limits.expire <= $3::bigint then $2::bigint else rate_limits.expire end
  returning points, expire
), wanted as (
  select ranked.jti, ranked.expires_at from ranked, hit
  where ranked.jti is not null and hit.points - ranked.n + ranked.r <= $5::int
), claim as (
  insert into sso_jti (organization_id, jti, expires_at)
  select $6, wanted.jti, wanted.expires_at from wanted
  on conflict (organization_id, jti) do update set expires_at = excluded.expires_at
    where sso_jti.expires_at < $8
  returning jti
)
select ranked.i::int as "i", ranked.r::int as "r", ranked.n::int as "n", hit.points as "points",
  hit.expire::text as "expire", ranked.jti in (select jti from claim) as "claimed",
  m.id as member_id, m.role as member_role, m.groups as member_groups,
  m.created_at as member_created_at, u.id as user_id, u.email as user_email,
  u.full_name as user_full_name, u.first_name as user_first_name,
  u.last_name as user_last_name, u.title as user_title, u.avatar_url as user_avatar_url,
  u.is_email_verified as user_is_email_verified, u.created_at as user_created_at
from ranked cross join hit
  left join users u on u.email = ranked.email
  left join members m on m.organization_id = $6 and m.user_id = u.id
order by ranked.i;
      end $function$

CREATE OR REPLACE FUNCTION public.bk_sso_claims_creating(text, bigint, bigint, text[], integer, text, text[], text, text[], text[], text[], text[], text[], text[], text[], text[], text[])
 RETURNS TABLE(i integer, r integer, n integer, points integer, expire text, claimed boolean, member_id text, member_role text, member_groups text, member_created_at text, user_id text, user_email text, user_full_name text, user_first_name text, user_last_name text, user_title text, user_avatar_url text, user_is_email_verified integer, user_created_at text)
 LANGUAGE plpgsql
AS $function$
      #variable_conflict use_column
      begin
        return query 
with cur as (
  select xmin::text as v from organizations where id = $6
), ranked as (
  select c.*, row_number() over (order by c.i) as r, count(*) over () as n
  from unnest($4::text[], $7::text[], $9::text[], $10::text[], $11::text[], $12::text[],
    $13::text[], $14::text[], $15::text[], $16::text[], $17::text[]) with ordinality
    as c(jti, expires_at, v, email, new_user_id, full_name, first_name, last_name,
      new_member_id, role, groups, i)
  where c.v is null or c.v = (select v from cur)
), hit as (
  insert into rate_limits (key, points, expire)
  select $1, ranked.n::int, $2::bigint from ranked where ranked.r = 1
  on conflict (key) do update set
    points = case when rate_limits.expire <= $3::bigint then excluded.points
      else rate_limits.points + excluded.points end,
    expire = case when rate_limits.expire <= $3::bigint then $2::bigint else rate_limits.expire end
  returning points, expire
), wanted as (
  select ranked.jti, ranked.expires_at from ranked, hit
  where ranked.jti is not null and hit.points - ranked.n + ranked.r <= $5::int
), claim as (
  insert into sso_jti (organization_id, jti, expires_at)
  select $6, wanted.jti, wanted.expires_at from wanted
  on conflict (organization_id, jti) do update set expires_at = excluded.expires_at
    where sso_jti.expires_at < $8
  returning jti
), new_u as (
  insert into users (id, email, full_name, first_name, last_name, title, avatar_url,
    is_email_verified, created_at)
  select distinct on (ranked.email) ranked.new_user_id, ranked.email, ranked.full_name,
    ranked.first_name, ranked.last_name, null, null, 0, $8
  from ranked join claim on claim.jti = ranked.jti
  where ranked.new_user_id is not null
    and not exists (select 1 from users known where known.email = ranked.email)
  order by ranked.email, ranked.i
  on conflict (email) do nothing
  returning *
), new_m as (
  insert into members (id, organization_id, user_id, role, groups, created_at)
  select ranked.new_member_id, $6, new_u.id, ranked.role, ranked.groups, $8
  from new_u join ranked on ranked.new_user_id = new_u.id
  returning *
), m as materialized (
  select * from new_m
  union all
  select old.* from members old join users u on u.id = old.user_id
  where old.organization_id = $6 and u.email in (select email from ranked)
), u as materialized (
  select * from new_u
  union all
  select * from users where email in (select email from ranked)
)
select ranked.i::int as "i", ranked.r::int as "r", ranked.n::int as "n", hit.points as "points",
  hit.expire::text as "expire", ranked.jti in (select jti from claim) as "claimed",
  m.id as member_id, m.role as member_role, m.groups as member_groups,
  m.created_at as member_created_at, u.id as user_id, u.email as user_email,
  u.full_name as user_full_name, u.first_name as user_first_name,
  u.last_name as user_last_name, u.title as user_title, u.avatar_url as user_avatar_url,
  u.is_email_verified as user_is_email_verified, u.created_at as user_created_at
from ranked cross join hit
  left join u on u.email = ranked.email
  left join m on m.organization_id = $6 and m.user_id = u.id
order by ranked.i;
      end $function$

CREATE OR REPLACE FUNCTION public.bk_sso_members_creating(text, text, text[], text[], text[], text[], text[], text[], text[], text[], text[])
 RETURNS TABLE(i integer, member_id text, member_role text, member_groups text, member_created_at text, user_id text, user_email text, user_full_name text, user_first_name text, user_last_name text, user_title text, user_avatar_url text, user_is_email_verified integer, user_created_at text)
 LANGUAGE plpgsql
AS $function$
      #variable_conflict use_column
      begin
        return query 
with cur as (
  select xmin::text as v from organizations where id = $1
), ranked as (
  select c.* from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
    $9::text[], $10::text[], $11::text[]) with ordinality
    as c(v, email, new_user_id, full_name, first_name, last_name, new_member_id, role, groups, i)
  where c.v = (select v from cur)
), new_u as (
  insert into users (id, email, full_name, first_name, last_name, title, avatar_url,
    is_email_verified, created_at)
  select distinct on (ranked.email) ranked.new_user_id, ranked.email, ranked.full_name,
    ranked.first_name, ranked.last_name, null, null, 0, $2
  from ranked
  where ranked.new_user_id is not null
    and not exists (select 1 from users known where known.email = ranked.email)
  order by ranked.email, ranked.i
  on conflict (email) do nothing
  returning *
), new_m as (
  insert into members (id, organization_id, user_id, role, groups, created_at)
  select ranked.new_member_id, $1, new_u.id, ranked.role, ranked.groups, $2
  from new_u join ranked on ranked.new_user_id = new_u.id
  returning *
), m as materialized (
  select * from new_m
  union all
  select old.* from members old join users u on u.id = old.user_id
  where old.organization_id = $1 and u.email in (select email from ranked)
), u as materialized (
  select * from new_u
  union all
  select * from users where email in (select email from ranked)
)
select ranked.i::int as "i", m.id as member_id, m.role as member_role, m.groups as member_groups,
  m.created_at as member_created_at, u.id as user_id, u.email as user_email,
  u.full_name as user_full_name, u.first_name as user_first_name,
  u.last_name as user_last_name, u.title as user_title, u.avatar_url as user_avatar_url,
  u.is_email_verified as user_is_email_verified, u.created_at as user_created_at
from ranked
  left join u on u.email = ranked.email
  left join m on m.organization_id = $1 and m.user_id = u.id
order by ranked.i;
      end $function$
