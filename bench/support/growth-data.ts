// Bulk data for `npm run bench growth`: a bench fixture that is the same at every size (the
// "empty" store holds only it) plus background users, organizations and memberships, written
// straight into a migrated store with the bridge stopped. Ids have the store's format (prefix,
// 10 Crockford base32 time characters, 16 more), secrets are sealed by the store's own SecretBox
// under the data's key, so every row is one the bridge could have written itself.
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createApiKeyForEmail } from '../../server/src/domain/api-key-admin';
import { JWT_SECRET_FIELD, newJwtSecret } from '../../server/src/domain/jwt-secret';
import { createSecretBox } from '../../server/src/domain/secret-box';
import { storeOrigins } from '../../server/src/embed-origins';
import { openStore } from '../../server/src/store/db';
import type { MembersTable, OrganizationsTable, UsersTable } from '../../server/src/store/schema';
import type { BridgeData } from '../../test/support/bridge-data';

/** Organizations the "heavy" member belongs to (the last page of their list is measured). */
export const HEAVY_ORGS = 10_000;
/** Organizations of the "typical" API-key user whose first page (limit=50) is measured. */
export const LIST_ORGS = 50;
/** Returning members of the SSO organization. */
export const SSO_MEMBERS = 1000;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

export interface Fixture {
  listKey: string;
  heavyKey: string;
  /** The heavy member's one ADMIN organization (a PATCH to it bumps the store version). */
  heavyAdminOrgId: string;
  ssoOrgId: string;
  ssoSecret: string;
  ssoEmails: string[];
}

export interface Loaded {
  fixture: Fixture;
  rows: { users: number; organizations: number; memberships: number };
  /** Wall time of the bulk load (rows only: migrations and the two API keys excluded). */
  loadSeconds: number;
}

type OrgRow = OrganizationsTable;
type MemberRow = Omit<MembersTable, 'groups'>;
type UserRow = Pick<UsersTable, 'id' | 'email' | 'createdAt'>;

/** Ids in the store's format, in id order within a kind: `<prefix>_<time><16 hex digits>`. */
const idOf = (prefix: string, time: string, n: number) =>
  `${prefix}_${time}${n.toString(16).toUpperCase().padStart(16, '0')}`;

/** Background sizes for `users` background users: one membership each, ten per organization. */
export const backgroundOf = (users: number) => ({
  users,
  organizations: users / 10,
  memberships: users,
});

/**
 * Membership i joins background user i to background organization (i × 7919) mod orgs: every
 * organization gets users/orgs members, scattered over the table (not stored next to each
 * other), as memberships made over time are.
 */
const STRIDE = 7919;

/**
 * Migrates the store, makes the fixture (two API-key users, the heavy member's organizations,
 * the SSO organization and its returning members) and `users` background users with their
 * organizations and memberships.
 */
export async function loadGrowthData(data: BridgeData, users: number): Promise<Loaded> {
  const store = openStore({ databaseUrl: data.databaseUrl, dataDir: data.dataDir, poolSize: 1 });
  const now = new Date();
  let listKey: string;
  let heavy: { key: string; userId: string };
  let listUserId: string;
  try {
    await store.migrate();
    const list = await createApiKeyForEmail(store.db, { email: 'list@bench.example.com' }, now);
    listKey = list.key;
    listUserId = list.userId;
    const h = await createApiKeyForEmail(store.db, { email: 'heavy@bench.example.com' }, now);
    heavy = { key: h.key, userId: h.userId };
  } finally {
    await store.close();
  }

  const started = performance.now();
  const box = createSecretBox(Buffer.from(data.secretKey, 'base64'));
  const at = now.toISOString();
  // Background rows were "made" a day earlier, fixture rows now: ids sort like creation times.
  const bgTime = encodeTime(now.getTime() - 86_400_000);
  const fxTime = encodeTime(now.getTime());
  const origins = storeOrigins(['https://*.example.com']);
  const org = (id: string, name: string, secret = newJwtSecret()): OrgRow => ({
    id,
    name,
    slug: id.toLowerCase().replace('_', '-'),
    customAiContext: null,
    onboardingStatus: 'COMPLETED',
    fullEmbedEnabled: 0,
    embedAllowedOrigins: origins,
    jwtSecretSealed: box.seal(secret, id, JWT_SECRET_FIELD),
    previousJwtSecretSealed: null,
    previousJwtSecretExpiresAt: null,
    createdAt: at,
    updatedAt: at,
  });

  // The fixture: ids from counters under the current time, past every background id.
  let n = 0;
  const fxOrgs: OrgRow[] = [];
  const fxUsers: UserRow[] = [];
  const fxMembers: MemberRow[] = [];
  const member = (organizationId: string, userId: string, role: string) =>
    fxMembers.push({ id: idOf('mem', fxTime, n++), organizationId, userId, role, createdAt: at });
  for (let i = 0; i < LIST_ORGS; i++) {
    const o = org(idOf('org', fxTime, n++), `Bench org ${i}`);
    fxOrgs.push(o);
    member(o.id, listUserId, 'ADMIN');
  }
  for (let i = 0; i < HEAVY_ORGS; i++) {
    const o = org(idOf('org', fxTime, n++), `Heavy org ${i}`);
    fxOrgs.push(o);
    member(o.id, heavy.userId, i === 0 ? 'ADMIN' : 'MEMBER');
  }
  const ssoSecret = newJwtSecret();
  const ssoOrg = org(idOf('org', fxTime, n++), 'SSO bench', ssoSecret);
  fxOrgs.push(ssoOrg);
  const ssoEmails = Array.from({ length: SSO_MEMBERS }, (_, i) => `member${i}@bench.example.com`);
  for (const email of ssoEmails) {
    const u = { id: idOf('usr', fxTime, n++), email, createdAt: at };
    fxUsers.push(u);
    member(ssoOrg.id, u.id, 'MEMBER');
  }

  const bg = backgroundOf(users);
  const bgOrgs = Array.from({ length: bg.organizations }, (_, i) =>
    org(idOf('org', bgTime, i), `Org ${i}`),
  );
  const ids = { time: bgTime, at };
  if (data.databaseUrl) {
    await loadPostgres(data.databaseUrl, { fxOrgs, fxUsers, fxMembers, bgOrgs }, bg, ids);
  } else {
    loadSqlite(data.dataDir, { fxOrgs, fxUsers, fxMembers, bgOrgs }, bg, ids);
  }
  return {
    fixture: {
      listKey,
      heavyKey: heavy.key,
      heavyAdminOrgId: fxOrgs[LIST_ORGS]!.id,
      ssoOrgId: ssoOrg.id,
      ssoSecret,
      ssoEmails,
    },
    rows: {
      users: 2 + fxUsers.length + bg.users,
      organizations: fxOrgs.length + bg.organizations,
      memberships: fxMembers.length + bg.memberships,
    },
    loadSeconds: (performance.now() - started) / 1000,
  };
}

interface Rows {
  fxOrgs: OrgRow[];
  fxUsers: UserRow[];
  fxMembers: MemberRow[];
  bgOrgs: OrgRow[];
}

const ORG_COLUMNS = [
  'id',
  'name',
  'slug',
  'custom_ai_context',
  'onboarding_status',
  'full_embed_enabled',
  'embed_allowed_origins',
  'jwt_secret_sealed',
  'created_at',
  'updated_at',
] as const;
const orgValues = (o: OrgRow) => [
  o.id,
  o.name,
  o.slug,
  o.customAiContext,
  o.onboardingStatus,
  o.fullEmbedEnabled,
  o.embedAllowedOrigins,
  o.jwtSecretSealed,
  o.createdAt,
  o.updatedAt,
];

function loadSqlite(
  dataDir: string,
  rows: Rows,
  bg: ReturnType<typeof backgroundOf>,
  ids: { time: string; at: string },
) {
  const file = new SQLite(path.join(dataDir, 'bridge.db'));
  try {
    // Rows consistent by construction: no per-row foreign-key lookups.
    file.pragma('foreign_keys = OFF');
    // The default 2 MB page cache thrashes on the index inserts of a million rows.
    file.pragma('cache_size = -262144');
    const insertOrg = file.prepare(
      `insert into organizations (${ORG_COLUMNS.join(', ')}) values (${ORG_COLUMNS.map(() => '?').join(', ')})`,
    );
    const insertUser = file.prepare(
      'insert into users (id, email, is_email_verified, created_at) values (?, ?, 0, ?)',
    );
    const insertMember = file.prepare(
      'insert into members (id, organization_id, user_id, role, created_at) values (?, ?, ?, ?, ?)',
    );
    file.transaction(() => {
      for (const o of [...rows.bgOrgs, ...rows.fxOrgs]) insertOrg.run(orgValues(o));
      for (const u of rows.fxUsers) insertUser.run(u.id, u.email, u.createdAt);
      for (let i = 0; i < bg.users; i++) {
        insertUser.run(idOf('usr', ids.time, i), `user${i}@growth.example.com`, ids.at);
      }
      for (const m of rows.fxMembers) {
        insertMember.run(m.id, m.organizationId, m.userId, m.role, m.createdAt);
      }
      for (let i = 0; i < bg.memberships; i++) {
        insertMember.run(
          idOf('mem', ids.time, i),
          idOf('org', ids.time, (i * STRIDE) % bg.organizations),
          idOf('usr', ids.time, i),
          i % 10 === 0 ? 'ADMIN' : 'MEMBER',
          ids.at,
        );
      }
    })();
    file.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    file.close();
  }
}

/** `<prefix>_<time>` then n in 16 upper-case hex digits, in SQL (as idOf). */
const sqlId = (prefix: string, time: string, n: string) =>
  `'${prefix}_${time}' || lpad(upper(to_hex(${n})), 16, '0')`;

async function loadPostgres(
  url: string,
  rows: Rows,
  bg: ReturnType<typeof backgroundOf>,
  ids: { time: string; at: string },
) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('set synchronous_commit = off');
    await client.query('begin');
    // Rows consistent by construction: no per-row foreign-key checks (nor the store-version
    // bump, which a fresh store with no bridge running does not need).
    await client.query('set local session_replication_role = replica');
    const orgs = [...rows.bgOrgs, ...rows.fxOrgs];
    for (let i = 0; i < orgs.length; i += 10_000) {
      const batch = orgs.slice(i, i + 10_000).map(orgValues);
      const columns = ORG_COLUMNS.map((_, c) => batch.map((r) => r[c]));
      const types = ['text', 'text', 'text', 'text', 'text', 'int', 'text', 'text', 'text', 'text'];
      await client.query(
        `insert into organizations (${ORG_COLUMNS.join(', ')})
         select * from unnest(${types.map((t, c) => `$${c + 1}::${t}[]`).join(', ')})`,
        columns,
      );
    }
    // What the organizations' triggers (off here) would have indexed.
    await client.query(
      `insert into embed_origin_patterns (pattern, organization_id)
       select p, o.id from organizations o, json_array_elements_text(o.embed_allowed_origins::json) p`,
    );
    await client.query(
      `insert into users (id, email, is_email_verified, created_at)
       select * from unnest($1::text[], $2::text[], $3::int[], $4::text[])`,
      [
        rows.fxUsers.map((u) => u.id),
        rows.fxUsers.map((u) => u.email),
        rows.fxUsers.map(() => 0),
        rows.fxUsers.map((u) => u.createdAt),
      ],
    );
    if (bg.users > 0) {
      await client.query(
        `insert into users (id, email, is_email_verified, created_at)
         select ${sqlId('usr', ids.time, 'i')}, 'user' || i || '@growth.example.com', 0, $2
         from generate_series(0, $1::int - 1) i`,
        [bg.users, ids.at],
      );
    }
    const m = rows.fxMembers;
    await client.query(
      `insert into members (id, organization_id, user_id, role, created_at)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])`,
      [
        m.map((r) => r.id),
        m.map((r) => r.organizationId),
        m.map((r) => r.userId),
        m.map((r) => r.role),
        m.map((r) => r.createdAt),
      ],
    );
    if (bg.memberships > 0) {
      await client.query(
        `insert into members (id, organization_id, user_id, role, created_at)
         select ${sqlId('mem', ids.time, 'i')}, ${sqlId('org', ids.time, `(i::bigint * ${STRIDE}) % $2`)},
           ${sqlId('usr', ids.time, 'i')}, case when i % 10 = 0 then 'ADMIN' else 'MEMBER' end, $3
         from generate_series(0, $1::int - 1) i`,
        [bg.memberships, bg.organizations, ids.at],
      );
    }
    await client.query('commit');
    // What autovacuum's analyze would have done after this much growth.
    await client.query('analyze');
  } finally {
    await client.end();
  }
}
