// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/** Creates (or replaces) one of the two claims functions; see claimsQuery. */
export const ssoWriteFunctions = {
  sqlite: [],
  postgres: [
    `create or replace function bk_sso_claims(text, bigint, bigint, text[], int, text, text[], text, text[], text[])
      returns table (i int, r int, n int, points int, expire text, claimed boolean, member_id text,
      member_role text, member_groups text, member_created_at text, user_id text, user_email text,
      user_full_name text, user_first_name text, user_last_name text, user_title text,
      user_avatar_url text, user_is_email_verified int, user_created_at text)
      language plpgsql
      as $$
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
      end $$`,
    `create or replace function bk_sso_claims_creating(text, bigint, bigint, text[], int, text, text[], text, text[], text[], text[], text[], text[], text[], text[], text[], text[])
      returns table (i int, r int, n int, points int, expire text, claimed boolean, member_id text,
      member_role text, member_groups text, member_created_at text, user_id text, user_email text,
      user_full_name text, user_first_name text, user_last_name text, user_title text,
      user_avatar_url text, user_is_email_verified int, user_created_at text)
      language plpgsql
      as $$
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
), m as (
  select * from new_m
  union all
  select old.* from members old join users u on u.id = old.user_id
  where old.organization_id = $6 and u.email in (select email from ranked)
), u as (
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
      end $$`,
    `create function bk_new_users_and_members(text[], text[], text[], text[], text[],
      text[], text[], text[], text[], text[])
      returns table (i int, id text, "organizationId" text, "userId" text, role text,
        groups text, "createdAt" text, "userEmail" text, "userFullName" text,
        "userFirstName" text, "userLastName" text, "userTitle" text, "userAvatarUrl" text,
        "userIsEmailVerified" int, "userCreatedAt" text)
      language plpgsql
      as $$
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
      end $$`,
    `create function bk_api_key_counting_hit(text, text, bigint, text, bigint, int)
      returns table (id text, "userId" text, "expiresAt" text, "revokedAt" text,
        "lastUsedAt" text, "storeVersion" text, "hitPoints" int, "hitExpire" text)
      language plpgsql
      as $$
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
        select k.*, (select concat_ws('.', coalesce(sum(members), 0), coalesce(sum(organizations), 0)) as "version" from store_versions) as "storeVersion",
          hit.points as "hitPoints", hit.expire::text as "hitExpire"
        from k left join hit on true;
      end $$`,
  ],
};
