// The plans of the queries whose cost must not grow with the data (`npm run bench growth`
// measures it on a million users): a keyset page of a user's organizations, the SSO exchange's
// member lookup by email and a preflight's lookup of an origin's patterns. They pin what the
// bench relies on, so a lost index, a predicate that can't use one (a collation mismatch on
// PostgreSQL) or a page that sorts every membership fails here, not months later on a large
// store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Compilable, CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../../test/support/bridge';
import { type Db, openStore, type Store } from '../../src/store/db';
import { memberByEmailQuery } from '../../src/store/members';
import {
  anyOrganizationHasPattern,
  anyPatternStatement,
  listOrganizationsForUser,
  organizationsForUserQuery,
} from '../../src/store/organizations';

const NOW = new Date().toISOString();
// A member of nearly every organization: the skew under which PostgreSQL once walked every
// organization to serve one page.
const ORGS = 2000;
const orgId = (i: number) => `org_${String(i).padStart(26, '0')}`;

async function seed(db: Db) {
  await db
    .insertInto('users')
    .values(
      ['heavy', 'other'].map((name) => ({
        id: `usr_${name}`,
        email: `${name}@example.com`,
        fullName: null,
        firstName: null,
        lastName: null,
        title: null,
        avatarUrl: null,
        isEmailVerified: 0,
        createdAt: NOW,
      })),
    )
    .execute();
  const ids = Array.from({ length: ORGS }, (_, i) => orgId(i));
  await db
    .insertInto('organizations')
    .values(
      ids.map((id) => ({
        id,
        name: id,
        slug: id.toLowerCase(),
        customAiContext: null,
        onboardingStatus: 'STARTED',
        fullEmbedEnabled: 0,
        // Every organization its own origin; one in ten also a wildcard over its own domain.
        embedAllowedOrigins: JSON.stringify([
          `https://app.${id}.example.com`,
          ...(Number(id.slice(4)) % 10 ? [] : [`https://*.${id}.example.net`]),
        ]),
        jwtSecretSealed: 'sealed',
        previousJwtSecretSealed: null,
        previousJwtSecretExpiresAt: null,
        createdAt: NOW,
        updatedAt: NOW,
      })),
    )
    .execute();
  // Inserted out of id order: the heavy user in every organization, the other in one in ten.
  const members = ids
    .reverse()
    .flatMap((id, i) => [
      { id: `mem_h${i}`, organizationId: id, userId: 'usr_heavy', role: 'MEMBER' },
      ...(i % 10
        ? []
        : [{ id: `mem_o${i}`, organizationId: id, userId: 'usr_other', role: 'ADMIN' }]),
    ]);
  await db
    .insertInto('members')
    .values(members.map((m) => ({ ...m, groups: null, createdAt: NOW })))
    .execute();
}

describe.each(['sqlite', 'postgres'] as const)('query plans on %s', (engine) => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  let store: Store;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-plans-'));
    database = engine === 'sqlite' ? undefined : await createPgDatabase();
    store = openStore({ databaseUrl: database?.url, dataDir });
    await store.migrate();
    await seed(store.db);
    // Statistics, as autovacuum gathers them on a live store.
    if (engine !== 'sqlite') await sql`analyze`.execute(store.db);
  });
  afterAll(async () => {
    await store.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * The plan the engine picks for the query with these parameters, as text. PostgreSQL would
   * rightly scan a table this small: with sequential scans priced out it shows the index
   * access it would use on a large one (none at all when no index fits).
   */
  async function planOf(
    query: Compilable<unknown> | { sql: string; parameters: readonly unknown[] },
  ): Promise<string> {
    const { sql: text, parameters } = 'compile' in query ? query.compile() : query;
    if (engine === 'sqlite') {
      const { rows } = await store.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${text}`, [...parameters]),
      );
      return rows.map((r) => r.detail).join('\n');
    }
    return store.db.transaction().execute(async (tx) => {
      await sql`set local enable_seqscan = off`.execute(tx);
      const { rows } = await tx.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${text}`, [...parameters]),
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  it('serves a keyset page of a user’s organizations from members_user_org, in order, unsorted', async () => {
    const cursor = orgId(ORGS - 51);
    const page = { cursor, limit: 50 };
    const plan = await planOf(organizationsForUserQuery(store.db, 'usr_heavy', page));
    if (engine === 'sqlite') {
      expect(plan).toBe(
        'CO-ROUTINE m\n' +
          'SEARCH members USING INDEX members_user_org (user_id=? AND organization_id>?)\n' +
          'SCAN m\n' +
          'SEARCH o USING INDEX sqlite_autoindex_organizations_1 (id=?)',
      );
    } else {
      // The memberships are cut to the page (Limit) before the join, found by user and cursor…
      expect(plan).toMatch(
        /Limit[^\n]*\n(.*\n)*?.*members_user_org[^\n]*\n\s*Index Cond: \(\(user_id = .+\) AND \(organization_id > .+\)\)/,
      );
      // …and organizations are only ever read by id: never a scan from the first one.
      const lines = plan.split('\n');
      const orgScans = lines.flatMap((line, i) => (/ on organizations o\b/.test(line) ? [i] : []));
      expect(orgScans.length).toBeGreaterThan(0);
      for (const i of orgScans) expect(lines[i + 1]).toMatch(/(Index|Recheck) Cond: .*\bid\b/);
    }
    // And the page is the right one: the organizations after the cursor, in id order.
    const rows = await listOrganizationsForUser(store.db, 'usr_heavy', page);
    expect(rows.map((r) => r.id)).toEqual(
      Array.from({ length: 50 }, (_, i) => orgId(ORGS - 50 + i)),
    );
    expect(rows.every((r) => r.role === 'MEMBER')).toBe(true);
  });

  it('finds an SSO member by the unique email, then the (organization, user) key', async () => {
    const plan = await planOf(memberByEmailQuery(store.db, orgId(7), 'other@example.com'));
    if (engine === 'sqlite') {
      expect(plan).toBe(
        'SEARCH u USING INDEX sqlite_autoindex_users_2 (email=?)\n' +
          'SEARCH m USING INDEX sqlite_autoindex_members_2 (organization_id=? AND user_id=?)',
      );
    } else {
      expect(plan).toMatch(/users_email_key on users u\b[^\n]*\n\s*Index Cond: \(email = /);
      // The members side by an index on the organization (with the user, on a large store).
      expect(plan).toMatch(
        /members_(org_user|user_org) on members m\b[^\n]*\n\s*Index Cond: .*organization_id = /,
      );
      expect(plan).not.toContain('Seq Scan');
    }
  });

  it('answers whether any organization allows an origin by the pattern key, never a scan', async () => {
    const wildcard = `https://*.${orgId(20)}.example.net`;
    const patterns = [`https://x.${orgId(20)}.example.net`, wildcard, 'https://*.example.net'];
    const plan = await planOf(anyPatternStatement(store.db, engine, patterns));
    if (engine === 'sqlite') {
      expect(plan).toBe(
        'SEARCH embed_origin_patterns USING COVERING INDEX sqlite_autoindex_embed_origin_patterns_1 (pattern=?)\n' +
          'LIST SUBQUERY 1\n' +
          'SCAN json_each VIRTUAL TABLE INDEX 1:',
      );
    } else {
      expect(plan).toMatch(
        /Index Only Scan using embed_origin_patterns_pk on embed_origin_patterns\b[^\n]*\n\s*Index Cond: \(pattern = ANY /,
      );
      expect(plan).not.toContain('Seq Scan');
    }
    expect(await anyOrganizationHasPattern(store.db, engine, patterns)).toBe(true);
    expect(await anyOrganizationHasPattern(store.db, engine, [patterns[0]!])).toBe(false);
    // Organization 21 lists no wildcard.
    expect(
      await anyOrganizationHasPattern(store.db, engine, [`https://*.${orgId(21)}.example.net`]),
    ).toBe(false);
  });
});
