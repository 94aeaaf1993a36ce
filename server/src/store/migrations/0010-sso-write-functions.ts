import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from './dialect';

/**
 * PostgreSQL: the SSO exchange's batched writes as PL/pgSQL functions, for the same reason as
 * the read in 0008: PL/pgSQL plans each statement inside once per server connection and keeps
 * the plan, invisible to the client (so as safe through a transaction pooler as any unnamed
 * statement), where the unnamed statement was parsed and planned on every call. These CTE
 * statements were the costliest to plan of the exchange: with plans kept, first sign-ins on
 * PostgreSQL ran as fast as with named statements. The callers and what the statements do are
 * in store/sso-exchange.ts; `$n` inside is the function's n-th argument.
 *
 * - bk_sso_claims(counter key, new window's expiry ms, now ms, jtis, limit, organization id,
 *   jti expiries, now ISO, organization versions, emails): the rate-limit hits and jti claims
 *   of a batch, with the membership of each email.
 * - bk_sso_claims_creating(the same, then new user ids, full names, first names, last names,
 *   new membership ids, roles, groups): the same, creating the user and membership a claim
 *   brings for an email never seen. Two functions, not one with nulls: a statement with an
 *   INSERT into users or members fires their version triggers (0009) even when it inserts
 *   nothing, and returning members must leave those versions be.
 * - bk_new_users_and_members(user ids, emails, full names, first names, last names, created
 *   ats, membership ids, organization ids, roles, groups): first sign-ins' users and
 *   memberships, created where the email is new.
 * - bk_api_key_counting_hit(key hash, counter prefix, new window's expiry ms, now ISO, now ms,
 *   hits): an API key with the store version of organizations and members (LIST_VERSION_TABLES
 *   in store/db.ts: a change to that list needs this function made anew) and its rate-limit
 *   hits (store/api-keys.ts), on every request an API key makes.
 */
const CLAIMS_ARGS = 'text, bigint, bigint, text[], int, text, text[], text, text[], text[]';
const NEW_MEMBER_ARGS = 'text[], text[], text[], text[], text[], text[], text[]';
const CLAIMS_COLUMNS = `i int, r int, n int, points int, expire text, claimed boolean, member_id text,
      member_role text, member_groups text, member_created_at text, user_id text, user_email text,
      user_full_name text, user_first_name text, user_last_name text, user_title text,
      user_avatar_url text, user_is_email_verified int, user_created_at text`;
/** The membership columns of CLAIMS_COLUMNS, for another function answering the same way. */
export const MEMBER_COLUMNS = CLAIMS_COLUMNS.slice(CLAIMS_COLUMNS.indexOf('member_id'));

/**
 * The CTEs that create the user and membership each entry of `ranked` brings for an email never
 * seen (one user per email, in email order), then gather, once each, the memberships (`m`) and
 * users (`u`) of the entries' emails, created or already there. `from` is what entries may
 * create (`ranked`, or those whose claim held), `org` and `at` the organization and the time.
 */
export const newMemberCtes = (p: {
  org: string;
  at: string;
  from: string;
  readBackOnce: boolean;
}) => `new_u as (
  insert into users (id, email, full_name, first_name, last_name, title, avatar_url,
    is_email_verified, created_at)
  select distinct on (ranked.email) ranked.new_user_id, ranked.email, ranked.full_name,
    ranked.first_name, ranked.last_name, null, null, 0, ${p.at}
  from ${p.from}
  where ranked.new_user_id is not null
    and not exists (select 1 from users known where known.email = ranked.email)
  order by ranked.email, ranked.i
  on conflict (email) do nothing
  returning *
), new_m as (
  insert into members (id, organization_id, user_id, role, groups, created_at)
  select ranked.new_member_id, ${p.org}, new_u.id, ranked.role, ranked.groups, ${p.at}
  from new_u join ranked on ranked.new_user_id = new_u.id
  returning *
), m as${p.readBackOnce ? ' materialized' : ''} (
  select * from new_m
  union all
  select old.* from members old join users u on u.id = old.user_id
  where old.organization_id = ${p.org} and u.email in (select email from ranked)
), u as${p.readBackOnce ? ' materialized' : ''} (
  select * from new_u
  union all
  select * from users where email in (select email from ranked)
)`;

/** The membership columns (MEMBER_COLUMNS) of `m` and `u`, as the claims functions answer. */
export const MEMBER_SELECT = `m.id as member_id, m.role as member_role, m.groups as member_groups,
  m.created_at as member_created_at, u.id as user_id, u.email as user_email,
  u.full_name as user_full_name, u.first_name as user_first_name,
  u.last_name as user_last_name, u.title as user_title, u.avatar_url as user_avatar_url,
  u.is_email_verified as user_is_email_verified, u.created_at as user_created_at`;

/**
 * The claims statement; with `createMembers`, creating what the claims bring (see above). With
 * `readBackOnce` (migration 0013), the users and memberships it answers with are each gathered
 * once; here, as released, they are not.
 */
const claimsQuery = (createMembers: boolean, readBackOnce: boolean) => `
with cur as (
  select xmin::text as v from organizations where id = $6
), ranked as (
  select c.*, row_number() over (order by c.i) as r, count(*) over () as n
  from unnest($4::text[], $7::text[], $9::text[], $10::text[]${
    createMembers
      ? `, $11::text[], $12::text[],
    $13::text[], $14::text[], $15::text[], $16::text[], $17::text[]`
      : ''
  }) with ordinality
    as c(jti, expires_at, v, email, ${
      createMembers
        ? `new_user_id, full_name, first_name, last_name,
      new_member_id, role, groups, `
        : ''
    }i)
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
)${
  createMembers
    ? `, ${newMemberCtes({ org: '$6', at: '$8', from: 'ranked join claim on claim.jti = ranked.jti', readBackOnce })}`
    : ''
}
select ranked.i::int as "i", ranked.r::int as "r", ranked.n::int as "n", hit.points as "points",
  hit.expire::text as "expire", ranked.jti in (select jti from claim) as "claimed",
  ${MEMBER_SELECT}
from ranked cross join hit
  left join ${createMembers ? 'u' : 'users u'} on u.email = ranked.email
  left join ${createMembers ? 'm' : 'members m'} on m.organization_id = $6 and m.user_id = u.id
order by ranked.i`;

/** Creates (or replaces) one of the two claims functions; see claimsQuery. */
export async function createClaimsFunction(
  db: Kysely<unknown>,
  createMembers: boolean,
  readBackOnce: boolean,
) {
  const name = createMembers ? 'bk_sso_claims_creating' : 'bk_sso_claims';
  const args = createMembers ? `${CLAIMS_ARGS}, ${NEW_MEMBER_ARGS}` : CLAIMS_ARGS;
  await sql`create or replace function ${sql.raw(name)}(${sql.raw(args)})
      returns table (${sql.raw(CLAIMS_COLUMNS)})
      language plpgsql
      as $$
      #variable_conflict use_column
      begin
        return query ${sql.raw(claimsQuery(createMembers, readBackOnce))};
      end $$`.execute(db);
}

export const ssoWriteFunctions = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    if (dialect !== 'postgres') return;
    await createClaimsFunction(db, false, false);
    await createClaimsFunction(db, true, false);
    await sql`create function bk_new_users_and_members(text[], text[], text[], text[], text[],
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
      end $$`.execute(db);
    await sql`create function bk_api_key_counting_hit(text, text, bigint, text, bigint, int)
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
      end $$`.execute(db);
  },
});
