import { type Migration, sql } from 'kysely';
import { MEMBER_COLUMNS, MEMBER_SELECT, newMemberCtes } from './0010-sso-write-functions';
import type { Dialect } from './dialect';

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
export const ssoMembersAfterRedis = (dialect: Dialect): Migration => ({
  async up(db) {
    if (dialect !== 'postgres') return;
    const query = `
with cur as (
  select xmin::text as v from organizations where id = $1
), ranked as (
  select c.* from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
    $9::text[], $10::text[], $11::text[]) with ordinality
    as c(v, email, new_user_id, full_name, first_name, last_name, new_member_id, role, groups, i)
  where c.v = (select v from cur)
), ${newMemberCtes({ org: '$1', at: '$2', from: 'ranked', readBackOnce: true })}
select ranked.i::int as "i", ${MEMBER_SELECT}
from ranked
  left join u on u.email = ranked.email
  left join m on m.organization_id = $1 and m.user_id = u.id
order by ranked.i`;
    await sql`create function bk_sso_members_creating(text, text, text[], text[], text[], text[],
        text[], text[], text[], text[], text[])
      returns table (i int, ${sql.raw(MEMBER_COLUMNS)})
      language plpgsql
      as $$
      #variable_conflict use_column
      begin
        return query ${sql.raw(query)};
      end $$`.execute(db);
  },
});
