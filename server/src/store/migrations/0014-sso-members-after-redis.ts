// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * PostgreSQL with the rate-limit counters and used jtis in Redis: a first sign-in's user and
 * membership, created in the statement that checks the kept organization row (see
 * checkKeptOrganization in store/sso-exchange.ts). Before it, such an exchange took three round
 * trips: the organization read, the Redis script, the user and membership. With it, one takes
 * two: the script on the kept row, then this statement, which creates only where that row is the
 * organization's current one (its `xmin`) and answers each entry's membership, created or
 * already there. An entry whose row has changed gets no row back and nothing written; its
 * exchange starts over on a fresh read, keeping the claim it made in Redis.
 *
 * bk_sso_members_creating(organization id, now ISO, organization versions, emails, new user
 * ids, full names, first names, last names, new membership ids, roles, groups): one row per
 * entry whose version is current (`i`, its place in the arrays), with its membership. The
 * user and membership are made as bk_sso_claims_creating (0010) makes them, from the same CTEs.
 */
export const ssoMembersAfterRedis = {
  sqlite: [],
  postgres: [
    `create function bk_sso_members_creating(text, text, text[], text[], text[], text[],
        text[], text[], text[], text[], text[])
      returns table (i int, member_id text,
      member_role text, member_groups text, member_created_at text, user_id text, user_email text,
      user_full_name text, user_first_name text, user_last_name text, user_title text,
      user_avatar_url text, user_is_email_verified int, user_created_at text)
      language plpgsql
      as $$
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
      end $$`,
  ],
};
