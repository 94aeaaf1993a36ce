// PostgreSQL with the SSO counters in the store (`rate_limits`) next to the used jtis
// (`sso_jti`). An exchange takes two round trips: the organization with the membership (one
// read, before the signature is checked: nothing read is used unless it is), then the hit with
// the claim (one statement). A first sign-in adds its provisioning transaction.
//
// Both are gathered (store/gathered.ts): what arrives while a statement runs goes in the next.
// Every exchange of an organization hits the same counter row, whose lock each statement holds
// through its commit, so one at a time could pass whatever the pool size; gathered, each commit
// carries a batch, counted as one by one.
import type Pg from 'pg';
import type { Limiter } from '../../rate-limit';
import { limiterFault } from '../../rate-limit';
import type { Db } from '../db';
import { gathered, perOwner } from '../gathered';
import type { OrganizationRow } from '../organizations';
import { statementNameOn } from '../pg-prepared';
import { camelRow } from '../precompiled';
import { PURGE_EVERY, sqliteSsoExchange } from './sqlite';
import {
  type CountedClaim,
  type MembersAdded,
  type OrganizationRead,
  type PrefixedMember,
  type SsoExchangeStore,
  splitOrganizationRead,
  ssoCounterKey,
} from './types';

// The read through the function of migration 0008 (the server keeps its plan per connection;
// an unnamed statement is planned anew on every call), for a batch of (organization, email)
// pairs: `i` says which pair a row answers; an unknown organization has none.
const ORGS_WITH_MEMBERS = `select q.i::int as i, (f.o).*, (f.m).id as member_id,
  (f.m).role as member_role, (f.m).groups as member_groups,
  (f.m).created_at as member_created_at, (f.u).id as user_id, (f.u).email as user_email,
  (f.u).full_name as user_full_name, (f.u).first_name as user_first_name,
  (f.u).last_name as user_last_name, (f.u).title as user_title,
  (f.u).avatar_url as user_avatar_url, (f.u).is_email_verified as user_is_email_verified,
  (f.u).created_at as user_created_at
from unnest($1::text[], $2::text[]) with ordinality as q(org_id, email, i)
  cross join lateral bk_org_with_member(q.org_id, q.email) f`;

interface PendingRead {
  orgId: string;
  email: string;
  resolve(read: OrganizationRead | undefined): void;
  reject(err: unknown): void;
}

async function sendReads(pool: Pg.Pool, batch: PendingRead[]) {
  try {
    const { rows } = await pool.query({
      name: statementNameOn(pool, ORGS_WITH_MEMBERS),
      text: ORGS_WITH_MEMBERS,
      values: [batch.map((r) => r.orgId), batch.map((r) => r.email)],
    });
    const found = new Map<number, OrganizationRead>();
    for (const raw of rows) {
      const { i, ...row } = camelRow(raw) as unknown as OrganizationRow &
        PrefixedMember & { i: number };
      found.set(i - 1, splitOrganizationRead(row));
    }
    for (const [i, r] of batch.entries()) r.resolve(found.get(i));
  } catch (err) {
    for (const r of batch) r.reject(err);
  }
}

const readsOn = perOwner((pool: Pg.Pool) =>
  gathered((_key: '', batch: PendingRead[]) => sendReads(pool, batch)),
);

// One hit per entry and the claim of each entry's jti when its own hit is within the limit, in
// one statement for a batch of n. The counter is rate-limiter-flexible's (`rate_limits`, its
// key layout): a new window once the last one has expired, else the n hits added at once; the
// i-th entry's hit is then the counter's (points - n + i)-th. A claim takes over an expired
// jti; a live one means replay. An entry without a jti (a token without one, or the same jti
// again later in the batch) is a hit alone. $1 counter key, $2 window end (ms), $3 now (ms),
// $4 limit, $5 organization, $6 jtis, $7 their expiries, $8 now (ISO).
const HITS_AND_CLAIMS = `with entries as (
  select c.jti, c.expires_at, c.i, count(*) over () as n
  from unnest($6::text[], $7::text[]) with ordinality as c(jti, expires_at, i)
), hit as (
  insert into rate_limits (key, points, expire)
  select $1, count(*)::int, $2::bigint from entries
  on conflict (key) do update set
    points = case when rate_limits.expire <= $3::bigint then excluded.points
      else rate_limits.points + excluded.points end,
    expire = case when rate_limits.expire <= $3::bigint then excluded.expire
      else rate_limits.expire end
  returning points, expire
), claim as (
  insert into sso_jti (organization_id, jti, expires_at)
  select $5, e.jti, e.expires_at from entries e, hit
  where e.jti is not null and hit.points - e.n + e.i <= $4::int
  on conflict (organization_id, jti) do update set expires_at = excluded.expires_at
    where sso_jti.expires_at < $8
  returning jti
)
select e.i::int as i, (hit.points - e.n + e.i)::int as points, hit.expire::text as expire,
  coalesce(e.jti in (select jti from claim), false) as claimed
from entries e, hit order by e.i`;

interface PendingClaim {
  jti: string | undefined;
  expiresAt: string | undefined;
  resolve(counted: CountedClaim): void;
  reject(err: unknown): void;
}

async function sendClaims(pool: Pg.Pool, limiter: Limiter, orgId: string, batch: PendingClaim[]) {
  try {
    // A jti twice in one batch: the first claims (or is refused), the later ones are replays.
    const seen = new Set<string>();
    const jtis = batch.map(({ jti }) => {
      if (jti === undefined || seen.has(jti)) return null;
      seen.add(jti);
      return jti;
    });
    const at = Date.now();
    const { rows } = await pool.query({
      name: statementNameOn(pool, HITS_AND_CLAIMS),
      text: HITS_AND_CLAIMS,
      values: [
        limiter.keyPrefix + ssoCounterKey(orgId),
        at + limiter.windowMs,
        at,
        limiter.limit,
        orgId,
        jtis,
        batch.map((c) => c.expiresAt ?? null),
        new Date(at).toISOString(),
      ],
    });
    for (const [i, c] of batch.entries()) {
      const row = rows[i] as { points: number; expire: string; claimed: boolean };
      const outcome = {
        consumedPoints: row.points,
        msBeforeNext: Math.max(0, Number(row.expire) - Date.now()),
      };
      const within = row.points <= limiter.limit;
      c.resolve({ outcome, fresh: c.jti === undefined ? within : jtis[i] !== null && row.claimed });
    }
  } catch (err) {
    const fault = limiterFault(limiter.backend, err);
    for (const c of batch) c.reject(fault);
  }
}

/**
 * The PostgreSQL store's SSO exchange: counters in `rate_limits` of the same pool (`limiter`
 * must count there). Provisioning and release are the portable ones (sqlite.ts).
 */
export function postgresSsoExchange(
  db: Db,
  pool: Pg.Pool,
  limiter: Limiter,
  now: () => Date,
  onAdded: MembersAdded,
): SsoExchangeStore {
  const portable = sqliteSsoExchange(db, limiter, now, onAdded);
  const claims = gathered((orgId: string, batch: PendingClaim[]) =>
    sendClaims(pool, limiter, orgId, batch),
  );
  let sent = 0;
  return {
    ...portable,
    read(orgId, email) {
      if (email === undefined) return portable.read(orgId, email);
      return new Promise((resolve, reject) => readsOn(pool)('', { orgId, email, resolve, reject }));
    },
    async countAndClaim(orgId, jti) {
      if (++sent % PURGE_EVERY === 0) {
        await db.deleteFrom('ssoJti').where('expiresAt', '<', now().toISOString()).execute();
      }
      return new Promise((resolve, reject) =>
        claims(orgId, {
          jti: jti?.jti,
          expiresAt: jti?.expiresAt.toISOString(),
          resolve,
          reject,
        }),
      );
    },
  };
}
