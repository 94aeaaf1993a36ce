// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
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
export const ssoClaimsReadBackOnce = {
  sqlite: [],
  postgres: [
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
      end $$`,
  ],
};
