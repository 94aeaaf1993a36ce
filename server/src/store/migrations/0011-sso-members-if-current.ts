import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from './dialect';

/**
 * PostgreSQL: bk_sso_members_if_current(organization id, organization version, emails, new
 * user ids, full names, first names, last names, new membership ids, roles, groups, now ISO):
 * for exchanges whose jti was claimed elsewhere (Redis) on the word of a kept organization row
 * (store/sso-exchange.ts), the membership of each email, creating the user and membership a
 * claim brings for an email never seen (users in email order, one per email, as
 * bk_new_users_and_members does), only while the organization row is still at that version
 * (its `xmin`, as bk_org_with_member returns it). Otherwise nothing is written and no row comes
 * back: the caller gives the claims back and starts over on a fresh read. One row per email
 * otherwise, `i` its place in the arrays. A PL/pgSQL function for the reason of 0008 and 0010:
 * the server keeps its plan.
 */
export const ssoMembersIfCurrent = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    if (dialect !== 'postgres') return;
    await sql`create function bk_sso_members_if_current(text, text, text[], text[], text[],
      text[], text[], text[], text[], text[], text)
      returns table (i int, member_id text, member_role text, member_groups text,
        member_created_at text, user_id text, user_email text, user_full_name text,
        user_first_name text, user_last_name text, user_title text, user_avatar_url text,
        user_is_email_verified int, user_created_at text)
      language plpgsql
      as $$
      #variable_conflict use_column
      begin
        return query
        with input as (
          select c.* from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::text[], $9::text[], $10::text[]) with ordinality
            as c(email, new_user_id, full_name, first_name, last_name, new_member_id, role,
              groups, i)
          where exists (select 1 from organizations o where o.id = $1 and o.xmin::text = $2)
        ), new_u as (
          insert into users (id, email, full_name, first_name, last_name, title, avatar_url,
            is_email_verified, created_at)
          select distinct on (input.email) input.new_user_id, input.email, input.full_name,
            input.first_name, input.last_name, null, null, 0, $11
          from input
          where input.new_user_id is not null
            and not exists (select 1 from users known where known.email = input.email)
          order by input.email, input.i
          on conflict (email) do nothing
          returning *
        ), new_m as (
          insert into members (id, organization_id, user_id, role, groups, created_at)
          select input.new_member_id, $1, new_u.id, input.role, input.groups, $11
          from new_u join input on input.new_user_id = new_u.id
          returning *
        ), m as (
          select * from new_m
          union all
          select old.* from members old join users u on u.id = old.user_id
          where old.organization_id = $1 and u.email in (select email from input)
        ), u as (
          select * from new_u
          union all
          select * from users where email in (select email from input)
        )
        select input.i::int, m.id, m.role, m.groups, m.created_at, u.id, u.email, u.full_name,
          u.first_name, u.last_name, u.title, u.avatar_url, u.is_email_verified, u.created_at
        from input
          left join u on u.email = input.email
          left join m on m.organization_id = $1 and m.user_id = u.id
        order by input.i;
      end $$`.execute(db);
  },
});
