import type { FetchLike } from '@bridgekit/client';
import type { CatalogTable, DataSource } from '@bridgekit/contract';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, fakeFetch, type Handlers, ok, paginate } from '../../../../stories/fake-bridge';
import { ada, dataSource, grace, ORG_ID } from '../../../../test/support/fixtures';
import { BridgeProvider } from '../provider/bridge-provider';
import { EmbedPage } from './embed-page';

afterEach(cleanup);
vi.setConfig({ testTimeout: 20_000 });

const NOW = Date.now();
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

const healthy = dataSource({
  id: 'ds_000000000001',
  displayName: 'Healthy and synced',
  lastHealthStatus: 'HEALTHY',
  lastHealthCheckAttemptAt: ago(5),
  lastHealthyAt: ago(5),
  lastSyncStatus: 'SUCCEEDED',
  lastSyncAttemptAt: ago(90),
  lastSuccessfulSyncAt: ago(90),
  hasCompletedFirstSync: true,
});
const broken = dataSource({
  id: 'ds_000000000002',
  displayName: 'Broken one',
  lastHealthStatus: 'UNHEALTHY',
  lastHealthCheckAttemptAt: ago(2),
  lastHealthyAt: ago(60 * 26),
  healthErrorMessage: 'The connection was refused. Check the host and port.',
  lastSyncStatus: 'FAILED',
  lastSyncAttemptAt: ago(3),
  syncErrorMessage: 'The database rejected the username or password.',
});
const fresh = dataSource({ id: 'ds_000000000003', displayName: 'Brand new' });
const running = dataSource({
  id: 'ds_000000000004',
  displayName: 'Busy one',
  lastSyncStatus: 'SYNCING',
  lastSyncAttemptAt: ago(0),
});

const table = (i: number): CatalogTable => ({
  schema: 'public',
  name: `table_${String(i).padStart(3, '0')}`,
  kind: i % 10 === 0 ? 'VIEW' : 'TABLE',
  columns: [
    { name: 'id', type: 'integer', nullable: false },
    { name: 'note', type: 'text', nullable: true },
  ],
});
const TABLES = Array.from({ length: 60 }, (_, i) => table(i + 1));

const schemaPages: Handlers['getDataSourceSchema'] = ({ query, params }) => {
  const limit = Number(query.get('limit'));
  const start = Number(query.get('cursor') ?? 0);
  const next = start + limit < TABLES.length ? String(start + limit) : null;
  return {
    status: 200,
    body: {
      data: {
        dataSourceId: params.id,
        readAt: ago(90),
        truncated: false,
        tableCount: TABLES.length,
        tables: TABLES.slice(start, start + limit),
      },
      pagination: { hasMore: next !== null, nextCursor: next },
    },
  };
};

function setup(handlers: Handlers, member = ada) {
  const calls: string[] = [];
  const fake = fakeFetch({ getMember: ok(member), ...handlers });
  const fetch: FetchLike = (url, init) => {
    calls.push(`${init.method ?? 'GET'} ${url}`);
    return fake(url, init);
  };
  // The page as the embed app shows it once signed in (sign-in itself: embed-app.test.tsx).
  render(
    <BridgeProvider baseUrl="" getSessionToken={() => 'sess_embed'} fetch={fetch}>
      <EmbedPage
        orgId={ORG_ID}
        memberId={member.id}
        orgName="Acme"
        hideOrgName={false}
        theme="light"
      />
    </BridgeProvider>,
  );
  return { calls, user: userEvent.setup() };
}

const itemOf = async (name: string) =>
  (await screen.findByText(name)).closest('li') as HTMLLIElement;
const describedText = (element: Element) =>
  (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');

describe('embed data source list: health and sync', () => {
  it('shows each badge state with its relative time', async () => {
    setup({ listDataSources: paginate([healthy, broken, fresh, running]) });

    const ok1 = await itemOf('Healthy and synced');
    expect(within(ok1).getByRole('button', { name: 'Health: Healthy 5 minutes ago' })).toBeTruthy();
    expect(
      within(ok1).getByRole('button', { name: 'Schema sync: Synced 2 hours ago' }),
    ).toBeTruthy();
    const time = ok1.querySelector('time');
    expect(time?.getAttribute('datetime')).toBe(healthy.lastHealthCheckAttemptAt);

    const bad = await itemOf('Broken one');
    expect(
      within(bad).getByRole('button', { name: 'Health: Unhealthy 2 minutes ago' }),
    ).toBeTruthy();
    expect(
      within(bad).getByRole('button', { name: 'Schema sync: Sync failed 3 minutes ago' }),
    ).toBeTruthy();

    const none = await itemOf('Brand new');
    expect(none.textContent).toContain('Health: Not checked yet');
    expect(none.textContent).toContain('Schema sync: Not synced yet');
    // Nothing more to say: plain badges, not buttons.
    expect(within(none).queryByRole('button', { name: /^Health|^Schema/ })).toBeNull();

    const busy = await itemOf('Busy one');
    expect(
      within(busy).getByRole('button', { name: 'Schema sync: Syncing just now' }),
    ).toBeTruthy();
  });

  it('gives the failure reason and the absolute time as the badge’s description (hover and focus)', async () => {
    const { user } = setup({ listDataSources: paginate([broken]) });
    const bad = await itemOf('Broken one');
    const health = within(bad).getByRole('button', { name: /^Health: Unhealthy/ });
    const sync = within(bad).getByRole('button', { name: /^Schema sync: Sync failed/ });

    const healthTip = describedText(health);
    expect(healthTip).toContain('The connection was refused. Check the host and port.');
    expect(healthTip).toMatch(/Last checked [A-Z][a-z]{2} \d{1,2}, \d{4}, .* UTC/);
    expect(healthTip).toMatch(/Last healthy /);
    expect(describedText(sync)).toContain('The database rejected the username or password.');
    expect(document.getElementById(health.getAttribute('aria-describedby') ?? '')?.role).toBe(
      'tooltip',
    );

    // Keyboard reachable; a click pins the tip, Escape dismisses it.
    await user.tab();
    while (document.activeElement !== health) await user.tab();
    const wrap = health.parentElement as HTMLElement;
    await user.click(health);
    expect(wrap.hasAttribute('data-open')).toBe(true);
    await user.keyboard('{Escape}');
    expect(wrap.hasAttribute('data-open')).toBe(false);
    expect(wrap.hasAttribute('data-dismissed')).toBe(true);
  });

  it('Sync now (ADMIN): POST …/sync, Syncing until the record shows the finished sync', async () => {
    let reads = 0;
    const done: DataSource = {
      ...broken,
      lastSyncStatus: 'SUCCEEDED',
      lastSyncAttemptAt: new Date().toISOString(),
      lastSuccessfulSyncAt: new Date().toISOString(),
      hasCompletedFirstSync: true,
      syncErrorMessage: null,
    };
    const { calls, user } = setup({
      listDataSources: paginate([broken]),
      syncDataSource: ok(broken, 202),
      getDataSource: () => {
        reads += 1;
        return ok(reads === 1 ? { ...broken, lastSyncStatus: 'SYNCING' } : done);
      },
      getDataSourceSchema: schemaPages,
    });
    const bad = await itemOf('Broken one');

    await user.click(within(bad).getByRole('button', { name: 'Sync now Broken one' }));
    expect(calls).toContain(
      `POST /api/public/organizations/${ORG_ID}/data-sources/${broken.id}/sync`,
    );
    // Same name and text while it runs (the badge says Syncing); pressing again does nothing.
    const button = within(bad).getByRole('button', { name: 'Sync now Broken one' });
    expect(button.getAttribute('aria-disabled')).toBe('true');
    await user.click(button);
    expect(calls.filter((call) => call.endsWith('/sync'))).toHaveLength(1);
    expect(bad.textContent).toContain('Schema sync: Syncing');

    await waitFor(
      () => expect(within(bad).getByRole('button', { name: /^Schema sync: Synced/ })).toBeTruthy(),
      { timeout: 8000 },
    );
    expect(reads).toBe(2);
    expect(
      within(bad)
        .getByRole('button', { name: 'Sync now Broken one' })
        .getAttribute('aria-disabled'),
    ).toBeNull();
    // The first successful sync brings the tables.
    expect(within(bad).getByRole('button', { name: 'Tables of Broken one' })).toBeTruthy();
  });

  it('shows why a sync could not start, and hides Sync now after admin_required', async () => {
    const { user } = setup({
      listDataSources: paginate([healthy, broken]),
      syncDataSource: ({ params }) =>
        params.id === healthy.id
          ? fail('Conflict', 'A sync is already queued.')
          : fail('Forbidden', 'Only admins', { code: 'admin_required' }),
    });
    const ok1 = await itemOf('Healthy and synced');
    await user.click(within(ok1).getByRole('button', { name: 'Sync now Healthy and synced' }));
    expect((await within(ok1).findByRole('alert')).textContent).toBe('A sync is already queued.');
    expect(within(ok1).getByRole('button', { name: /^Schema sync: Synced/ })).toBeTruthy();

    const bad = await itemOf('Broken one');
    await user.click(within(bad).getByRole('button', { name: 'Sync now Broken one' }));
    await waitFor(() =>
      expect(within(bad).queryByRole('button', { name: 'Sync now Broken one' })).toBeNull(),
    );
  });

  it('gives a MEMBER the badges without Sync now', async () => {
    setup({ listDataSources: paginate([healthy]) }, grace);
    const ok1 = await itemOf('Healthy and synced');
    await screen.findByText('Grace Brewster Murray Hopper-Featherstonehaugh');
    expect(within(ok1).getByRole('button', { name: /^Health: Healthy/ })).toBeTruthy();
    expect(within(ok1).queryByRole('button', { name: /^Sync now/ })).toBeNull();
  });

  it('lists the synced tables on demand, a page at a time', async () => {
    const { calls, user } = setup({
      listDataSources: paginate([healthy, fresh]),
      getDataSourceSchema: schemaPages,
    });
    const ok1 = await itemOf('Healthy and synced');
    expect(within(await itemOf('Brand new')).queryByRole('button', { name: /^Tables/ })).toBeNull();
    const toggle = within(ok1).getByRole('button', { name: 'Tables of Healthy and synced' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(calls.some((call) => call.includes('/schema'))).toBe(false);

    await user.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    await within(ok1).findByText('public.table_001');
    expect(document.getElementById(toggle.getAttribute('aria-controls') ?? '')).toBeTruthy();
    expect(within(ok1).getByText('60 tables, read 2 hours ago')).toBeTruthy();
    expect(within(ok1).getAllByRole('listitem')).toHaveLength(50);
    expect(within(ok1).getByText('public.table_010').nextSibling?.textContent).toBe(
      'view · 2 columns',
    );

    await user.click(within(ok1).getByRole('button', { name: 'Load more' }));
    await within(ok1).findByText('public.table_060');
    expect(within(ok1).getAllByRole('listitem')).toHaveLength(60);
    expect(within(ok1).queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(calls.filter((call) => call.includes('/schema'))).toEqual([
      `GET /api/public/organizations/${ORG_ID}/data-sources/${healthy.id}/schema?limit=50`,
      `GET /api/public/organizations/${ORG_ID}/data-sources/${healthy.id}/schema?limit=50&cursor=50`,
    ]);

    await user.click(toggle);
    expect(within(ok1).queryByText('public.table_001')).toBeNull();
  });

  it('says when the tables could not be loaded, and retries', async () => {
    let failing = true;
    const { user } = setup({
      listDataSources: paginate([healthy]),
      getDataSourceSchema: (request) =>
        failing
          ? fail('InternalError', 'Boom')
          : (schemaPages as (r: typeof request) => never)(request),
    });
    const ok1 = await itemOf('Healthy and synced');
    await user.click(within(ok1).getByRole('button', { name: /^Tables of/ }));
    expect((await within(ok1).findByRole('alert')).textContent).toContain('Try again');
    failing = false;
    await user.click(within(ok1).getByRole('button', { name: 'Try again' }));
    await within(ok1).findByText('public.table_001');
  });

  it('has no axe violations with every state and a list of tables open', async () => {
    const { user } = setup({
      listDataSources: paginate([healthy, broken, fresh, running]),
      getDataSourceSchema: schemaPages,
    });
    const ok1 = await itemOf('Healthy and synced');
    await screen.findByText('Ada Lovelace');
    await user.click(within(ok1).getByRole('button', { name: /^Tables of/ }));
    await within(ok1).findByText('public.table_001');
    const { violations } = await axe.run(document.body);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
