// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * PostgreSQL: the SSO exchange's read (an organization with the membership of an email, see
 * sso-exchange.ts) as a PL/pgSQL function. PL/pgSQL plans the query inside once per server
 * connection and keeps the plan, while a statement sent unnamed (the only kind that is safe
 * through a transaction pooler) is parsed and planned anew on every call: for this three-table
 * read that was most of PostgreSQL's share of an exchange. The plan cache belongs to the
 * server connection and nothing of it is visible to the client, so it is as safe through a
 * pooler as any statement. It returns whole rows, so columns added to these tables later
 * reach the caller with no change here, and the organization row's `xmin` (the transaction
 * that wrote this version of it: any change makes a new one) for a caller that keeps the row
 * and checks later, in the statement that relies on it, that it is still the current one.
 */
export const ssoReadFunction = {
  sqlite: [],
  postgres: [
    `create function bk_org_with_member(p_org_id text, p_email text)
      returns table (o organizations, m members, u users, ov text)
      language plpgsql stable
      as $$
      begin
        return query
          select org, mem, usr, org.xmin::text from organizations org
            left join users usr on usr.email = p_email
            left join members mem on mem.organization_id = org.id and mem.user_id = usr.id
          where org.id = p_org_id;
      end $$`,
  ],
};
