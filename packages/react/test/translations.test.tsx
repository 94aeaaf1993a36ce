import {
  type CatalogTable,
  ErrorCode,
  FieldCode,
  type OriginPatternError,
  originPatternMessages,
} from '@bridgekit/contract';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ada,
  dataSource,
  grace,
  organizations,
  tunnelled,
  warehouse,
} from '../../../test/support/fixtures';
import {
  DataSourceForm,
  DataSourceList,
  defaultMessages,
  MemberCard,
  MemberList,
  type Messages,
  OrganizationSettings,
  OrgPicker,
  SchemaBrowser,
} from '../src';
import { initialsOf } from '../src/member-card/avatar';
import { type Call, json, renderKit, settled } from './render-kit';

afterEach(cleanup);
vi.setConfig({ testTimeout: 30_000 });

// A pseudo-locale: every string of the kit, and every failure code of the bridge, becomes a
// marker ⟦…⟧. Whatever text is left once the markers and the records' own data are taken out
// is English the kit failed to take from `messages`.

const mark = (key: string) => `⟦${key}⟧`;
const pseudo = Object.fromEntries(
  Object.entries(defaultMessages).map(([key, value]) => [
    key,
    typeof value === 'function'
      ? (...args: unknown[]) => mark(`${key}(${args.join('|')})`)
      : mark(key),
  ]),
) as unknown as Messages;
pseudo.errorCodes = Object.fromEntries(ErrorCode.options.map((c) => [c, mark(`error:${c}`)]));
pseudo.fieldCodes = Object.fromEntries(FieldCode.options.map((c) => [c, mark(`field:${c}`)]));
pseudo.originErrors = Object.fromEntries(
  Object.keys(originPatternMessages).map((c) => [c, mark(`origin:${c}`)]),
) as Record<OriginPatternError, string>;

const broken = dataSource({
  id: 'ds_000000000077',
  displayName: 'Orders replica',
  host: 'orders.acme.example',
  databaseName: 'orders',
  lastHealthStatus: 'UNHEALTHY',
  lastHealthCheckAttemptAt: '2026-01-01T00:00:00.000Z',
  healthErrorMessage: 'The connection timed out.',
  lastSyncStatus: 'FAILED',
  lastSyncAttemptAt: '2026-01-01T00:00:00.000Z',
  syncErrorMessage: 'The database rejected the password.',
  lastSuccessfulSyncAt: '2025-12-31T00:00:00.000Z',
  hasCompletedFirstSync: true,
});
const TABLES: CatalogTable[] = [
  {
    schema: 'public',
    name: 'orders',
    kind: 'VIEW',
    columns: [{ name: 'id', type: 'integer', nullable: true }],
  },
  { schema: 'public', name: 'customers', kind: 'TABLE', columns: [] },
];

const ORG = organizations[0]!.id;
const people = [ada, grace].map((m) => m.user);
/** Text that comes from records, not from the kit: names, slugs, emails, titles, initials. */
const DATA = [
  ...organizations.flatMap((org) => [org.name, org.slug]),
  ...organizations[0]!.embedAllowedOrigins,
  ...[warehouse, tunnelled, broken].flatMap((d) => [
    d.displayName,
    d.host ?? '',
    d.databaseName ?? '',
    d.healthErrorMessage ?? '',
    d.syncErrorMessage ?? '',
  ]),
  ...TABLES.flatMap((t) => [
    `${t.schema}.${t.name}`,
    ...t.columns.flatMap((c) => [c.name, c.type]),
  ]),
  ...people.flatMap((u) => [
    u.fullName ?? '',
    u.email,
    u.title ?? '',
    initialsOf(u.fullName ?? ''),
  ]),
]
  .filter((text) => text !== '')
  .sort((a, b) => b.length - a.length);

/** Visible text and accessible names in the document, with markers and data taken out. */
function english(): string[] {
  const texts: string[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    texts.push(node.textContent ?? '');
  }
  for (const el of document.body.querySelectorAll('*')) {
    for (const name of ['aria-label', 'placeholder', 'title', 'alt']) {
      const value = el.getAttribute(name);
      if (value) texts.push(value);
    }
  }
  return texts
    .map((text) => DATA.reduce((rest, data) => rest.split(data).join(' '), text))
    .map((text) => text.replace(/⟦[^⟧]*⟧/g, ' '))
    .filter((text) => /\p{L}/u.test(text));
}

const kit = (ui: React.ReactNode, respond?: (call: Call) => Response, role?: 'MEMBER') =>
  renderKit(ui, respond, { provider: { messages: pseudo }, orgId: ORG, ...(role ? { role } : {}) });

const error = (status: number, title: string, code: string, extra: object = {}) =>
  json(status, { error: { title, code, detail: `English detail for ${code}`, ...extra } });

const pending = () => new Promise<Response>(() => {});

describe('a non-English message set', () => {
  it('leaves no English in MemberCard: loading, loaded, given, not found, failed', async () => {
    kit(<MemberCard orgId={ORG} memberId={ada.id} />, () => pending() as never);
    expect(english()).toEqual([]);
    cleanup();
    kit(<MemberCard orgId={ORG} memberId={ada.id} />, () => json(200, { data: ada }));
    await screen.findByText(ada.user.fullName!);
    kit(<MemberCard member={grace} />);
    const notFound = error(404, 'NotFound', 'member_not_found');
    kit(<MemberCard orgId={ORG} memberId="mem_x" />, () => notFound);
    kit(<MemberCard orgId={ORG} memberId="mem_y" />, () =>
      error(500, 'InternalError', 'internal_error'),
    );
    await waitFor(() => expect(screen.getAllByRole('alert')).toHaveLength(2));
    expect(english()).toEqual([]);
  });

  it('leaves no English in OrgPicker: closed, list, more, no match, empty, failed', async () => {
    const page = {
      data: organizations.slice(0, 3),
      pagination: { hasMore: true, nextCursor: organizations[2]!.id },
    };
    const { user } = kit(<OrgPicker pageSize={3} />, () => json(200, page));
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button'));
    await screen.findByRole('listbox');
    await screen.findByRole('button', { name: '⟦loadMore⟧' });
    expect(english()).toEqual([]);
    await user.type(screen.getByRole('searchbox'), 'zzz');
    expect(english()).toEqual([]);
    cleanup();

    const empty = { data: [], pagination: { hasMore: false, nextCursor: null } };
    const view = kit(<OrgPicker />, () => json(200, empty));
    await view.user.click(screen.getByRole('button'));
    await screen.findByText('⟦orgsEmpty⟧');
    expect(english()).toEqual([]);
    cleanup();

    const failed = kit(<OrgPicker />, () => error(503, 'ServiceUnavailable', 'store_unavailable'));
    await failed.user.click(screen.getByRole('button'));
    await screen.findByRole('alert', undefined, { timeout: 10_000 });
    expect(english()).toEqual([]);
  });

  it('leaves no English in a new DataSourceForm: its checks, a verify failure with params, verified', async () => {
    const replies = [
      () =>
        error(422, 'VerificationFailed', 'timeout', {
          fieldErrors: { host: 'The connection timed out.' },
          fieldCodes: { host: 'timeout' },
          params: { serviceIp: '203.0.113.7' },
        }),
      () => json(200, { data: { success: true } }),
    ];
    const { user } = kit(<DataSourceForm orgId={ORG} />, () => replies.shift()!());
    await settled();
    await user.click(screen.getByLabelText('⟦sshEnabled⟧'));
    await user.click(screen.getByRole('button', { name: '⟦testConnection⟧' }));
    expect(english()).toEqual([]);

    await user.type(screen.getByLabelText('⟦host⟧'), 'db.example.com');
    await user.type(screen.getByLabelText('⟦username⟧'), 'reader');
    await user.click(screen.getByLabelText('⟦sshEnabled⟧'));
    await user.click(screen.getByRole('button', { name: '⟦testConnection⟧' }));
    await screen.findByText('⟦error:timeout⟧');
    expect(screen.getByText('⟦field:timeout⟧')).toBeTruthy();
    expect(english()).toEqual([]);

    await user.click(screen.getByRole('button', { name: '⟦testConnection⟧' }));
    await screen.findByText('⟦verified⟧');
    expect(english()).toEqual([]);
  });

  it('leaves no English in a save refused by validation, and after a network failure', async () => {
    const replies = [
      () =>
        error(400, 'ValidationError', 'validation_failed', {
          fieldErrors: { displayName: 'Must be at most 200 characters' },
          fieldCodes: { displayName: 'too_long' },
        }),
      () => Promise.reject(new TypeError('Failed to fetch')),
    ];
    const { user } = kit(
      <DataSourceForm orgId={ORG} dataSource={warehouse} requireVerify={false} />,
      () => replies.shift()!() as Response,
    );
    await settled();
    await user.type(screen.getByLabelText('⟦displayName⟧'), '!');
    await user.click(screen.getByRole('button', { name: '⟦save⟧' }));
    await screen.findByText('⟦field:too_long⟧');
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦save⟧' }));
    await screen.findByText('⟦networkError⟧');
    expect(english()).toEqual([]);
  });

  it('leaves no English in edit mode: stored, removing, replacing, SSH key, saved, deleted', async () => {
    const { user } = kit(
      <DataSourceForm orgId={ORG} dataSource={tunnelled} requireVerify={false} />,
      (call) =>
        call.method === 'DELETE' ? json(200, { data: tunnelled }) : json(200, { data: tunnelled }),
    );
    await settled();
    expect(english()).toEqual([]);
    await user.click(
      screen.getByRole('button', { name: '⟦secretAction(⟦secretRemove⟧|⟦password⟧)⟧' }),
    );
    await user.click(
      screen.getByRole('button', { name: '⟦secretAction(⟦secretReplace⟧|⟦sshPrivateKey⟧)⟧' }),
    );
    // Typed text is data too: digits only, so that it never reads as English.
    await user.type(screen.getByLabelText('⟦sshPrivateKey⟧'), '0123-4567');
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦save⟧' }));
    await screen.findByText('⟦saved⟧');
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦deleteDataSource⟧' }));
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦deleteConfirm⟧' }));
    await screen.findByText('⟦deleted⟧');
    expect(english()).toEqual([]);
  });

  it('leaves no English in a failed delete, a failed load, a missing record and a loading form', async () => {
    const { user } = kit(<DataSourceForm orgId={ORG} dataSource={warehouse} />, () =>
      error(409, 'Conflict', 'conflict'),
    );
    await settled();
    await user.click(screen.getByRole('button', { name: '⟦deleteDataSource⟧' }));
    await user.click(screen.getByRole('button', { name: '⟦deleteConfirm⟧' }));
    await screen.findByText('⟦error:conflict⟧');
    expect(english()).toEqual([]);
    cleanup();

    kit(<DataSourceForm orgId={ORG} dataSourceId="ds_a" />, () => pending() as never);
    expect(english()).toEqual([]);
    kit(<DataSourceForm orgId={ORG} dataSourceId="ds_b" />, () =>
      error(404, 'NotFound', 'data_source_not_found'),
    );
    kit(<DataSourceForm orgId={ORG} dataSourceId="ds_c" />, () =>
      error(500, 'InternalError', 'internal_error'),
    );
    await waitFor(() => expect(screen.getAllByRole('alert')).toHaveLength(2));
    expect(english()).toEqual([]);
  });

  it('leaves no English for a MEMBER: read-only record, and no new form', async () => {
    kit(<DataSourceForm orgId={ORG} dataSource={tunnelled} />, undefined, 'MEMBER');
    kit(<DataSourceForm orgId={ORG} />, undefined, 'MEMBER');
    await settled();
    expect(screen.getAllByText(/⟦readOnly/)).toHaveLength(2);
    expect(english()).toEqual([]);
  });

  it('leaves no English in MemberList: loading, ADMIN rows, the last-ADMIN rule, add, remove, MEMBER, failed', async () => {
    kit(<MemberList orgId={ORG} />, () => pending() as never);
    expect(english()).toEqual([]);
    cleanup();
    const page = json(200, {
      data: [ada, grace],
      pagination: { hasMore: true, nextCursor: grace.id },
    });
    const { user } = kit(<MemberList orgId={ORG} />, (call) =>
      call.method === 'GET'
        ? page.clone()
        : error(400, 'ValidationError', 'validation_failed', {
            fieldErrors: { email: 'Must be an email address' },
            fieldCodes: { email: 'invalid_format' },
          }),
    );
    await screen.findByText(grace.user.email);
    await user.click(screen.getByRole('button', { name: '⟦addMember⟧' }));
    expect(english()).toEqual([]);
    await user.type(screen.getByLabelText('⟦addMemberEmail⟧'), '0123');
    await user.click(screen.getByRole('button', { name: '⟦addMember⟧' }));
    await screen.findByText('⟦field:invalid_format⟧');
    await user.click(screen.getAllByRole('button', { name: /removeMemberNamed/ })[1]!);
    expect(english()).toEqual([]);
    cleanup();

    const sole = json(200, { data: [ada], pagination: { hasMore: false, nextCursor: null } });
    kit(<MemberList orgId={ORG} />, () => sole.clone());
    await screen.findByText('⟦lastAdmin⟧');
    expect(english()).toEqual([]);
    cleanup();
    kit(<MemberList orgId={ORG} />, () => sole.clone(), 'MEMBER');
    await screen.findByText('⟦membersReadOnly⟧');
    expect(english()).toEqual([]);
    cleanup();
    kit(<MemberList orgId={ORG} />, () => error(500, 'InternalError', 'internal_error'));
    await screen.findByRole('alert');
    expect(english()).toEqual([]);
  });

  it('leaves no English in OrganizationSettings: origins refused, rotation, new secret, delete, MEMBER', async () => {
    const org = organizations[0]!;
    const rotated = {
      ...org,
      jwtSecret: '0123456789',
      previousJwtSecretExpiresAt: '2026-12-01T10:30:00.000Z',
    };
    const { user } = renderKit(
      <OrganizationSettings orgId={ORG} />,
      (call) => json(200, { data: call.method === 'POST' ? rotated : org }),
      { provider: { messages: pseudo }, orgId: ORG, role: null },
    );
    await screen.findByText('⟦secretTitle⟧');
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦addOrigin⟧' }));
    await user.type(screen.getByRole('textbox', { name: '⟦originLabel(2)⟧' }), '0');
    await user.tab();
    await screen.findByText('⟦origin:form⟧');
    await user.click(screen.getByRole('button', { name: '⟦orgSave⟧' }));
    await screen.findByText('⟦orgCheckFields⟧');
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦rotateSecret⟧' }));
    expect(english()).toEqual([]);
    await user.click(
      within(screen.getByRole('dialog')).getByRole('button', { name: '⟦rotateConfirm⟧' }),
    );
    await screen.findByLabelText('⟦newSecret⟧');
    await user.click(screen.getByRole('button', { name: '⟦copy⟧' }));
    await screen.findByText('⟦copied⟧');
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦deleteOrg⟧' }));
    expect(english()).toEqual([]);
    cleanup();

    kit(<OrganizationSettings orgId={ORG} />, () => json(200, { data: org }), 'MEMBER');
    await screen.findByText('⟦orgReadOnly⟧');
    expect(english()).toEqual([]);
    cleanup();
    kit(<OrganizationSettings orgId={ORG} />, () => json(200, { data: org }));
    await screen.findByText('⟦orgHostSettingsLocked⟧');
    expect(english()).toEqual([]);
    cleanup();
    kit(<OrganizationSettings orgId={ORG} />, () => pending() as never);
    expect(english()).toEqual([]);
    kit(<OrganizationSettings orgId="org_x" />, () =>
      error(404, 'NotFound', 'organization_not_found'),
    );
    await screen.findByText('⟦orgNotFound⟧');
    expect(english()).toEqual([]);
  });

  it('leaves no English in DataSourceList and SchemaBrowser: states, actions, tables, search', async () => {
    const schema = json(200, {
      data: {
        dataSourceId: broken.id,
        readAt: '2026-01-01T00:00:00.000Z',
        truncated: true,
        tableCount: 2,
        tables: TABLES,
      },
      pagination: { hasMore: false, nextCursor: null },
    });
    const { user } = kit(<DataSourceList orgId={ORG} />, (call) => {
      if (call.path.includes('/schema')) return schema.clone();
      if (call.path.endsWith('/health-check')) return error(429, 'TooManyRequests', 'rate_limited');
      return json(200, {
        data: [warehouse, broken],
        pagination: { hasMore: true, nextCursor: broken.id },
      });
    });
    await screen.findByText('Orders replica');
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦checkNowNamed(Orders replica)⟧' }));
    await screen.findByText('⟦error:rate_limited⟧');
    await user.click(screen.getByRole('button', { name: '⟦tablesOf(Orders replica)⟧' }));
    await screen.findByRole('tree');
    await user.click(screen.getByRole('treeitem', { name: /^public\.orders/ }));
    expect(english()).toEqual([]);
    await user.type(screen.getByRole('searchbox'), '0');
    await screen.findByText('⟦schemaNoMatch(0)⟧');
    expect(english()).toEqual([]);
    await user.click(screen.getByRole('button', { name: '⟦editNamed(Orders replica)⟧' }));
    await screen.findByLabelText('⟦displayName⟧');
    expect(english()).toEqual([]);
    cleanup();

    kit(<DataSourceList orgId={ORG} />, () => pending() as never);
    kit(<SchemaBrowser orgId={ORG} dataSourceId={broken.id} />, () => pending() as never);
    expect(english()).toEqual([]);
    cleanup();
    kit(<DataSourceList orgId={ORG} />, () =>
      json(200, { data: [], pagination: { hasMore: false, nextCursor: null } }),
    );
    kit(<SchemaBrowser orgId={ORG} dataSourceId={broken.id} />, () =>
      json(200, {
        data: {
          dataSourceId: broken.id,
          readAt: null,
          truncated: false,
          tableCount: 0,
          tables: [],
        },
        pagination: { hasMore: false, nextCursor: null },
      }),
    );
    await screen.findByText('⟦dataSourcesEmpty⟧');
    await screen.findByText('⟦tablesNotSynced⟧');
    expect(english()).toEqual([]);
  });

  it('would notice English', async () => {
    const { container } = kit(<MemberCard member={grace} />);
    // Inside the rendered container, so that cleanup takes it out of the document.
    container.insertAdjacentHTML('beforeend', '<p>Try again</p>');
    expect(english()).toEqual(['Try again']);
  });
});
