import type { FetchLike } from '@bridgekit/client';
import type { CatalogTable, DataSource } from '@bridgekit/contract';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, fakeFetch, type Handlers, ok, paginate } from '../../../../stories/fake-bridge';
import { dataSource, ORG_ID, organizations, sessionInfo } from '../../../../test/support/fixtures';
import { BridgeProvider } from '../provider/bridge-provider';
import { DataSourceList } from './data-source-list';

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

function setup(handlers: Handlers, role: 'ADMIN' | 'MEMBER' = 'ADMIN') {
  const calls: string[] = [];
  const fake = fakeFetch({ ssoSession: ok(sessionInfo(organizations[0]!, role)), ...handlers });
  const fetch: FetchLike = (url, init) => {
    if (!url.endsWith('/api/sso/session')) calls.push(`${init.method ?? 'GET'} ${url}`);
    return fake(url, init);
  };
  render(
    <BridgeProvider baseUrl="" getSessionToken={() => 'sess_kit'} fetch={fetch}>
      <DataSourceList orgId={ORG_ID} />
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

describe('DataSourceList: health, sync and tables', () => {
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

  it('gives a MEMBER the badges and tables without Check now, Sync now, Edit or Add', async () => {
    setup({ listDataSources: paginate([healthy]) }, 'MEMBER');
    const ok1 = await itemOf('Healthy and synced');
    await waitFor(() => expect(screen.queryByText('Loading data sources…')).toBeNull());
    expect(within(ok1).getByRole('button', { name: /^Health: Healthy/ })).toBeTruthy();
    expect(within(ok1).queryByRole('button', { name: /^Sync now|^Check now|^Edit/ })).toBeNull();
    expect(within(ok1).getByRole('button', { name: 'Tables of Healthy and synced' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Add data source' })).toBeNull();
  });

  it('opens the synced tables on demand in a SchemaBrowser', async () => {
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
    const tree = await within(ok1).findByRole('tree', { name: 'Tables of Healthy and synced' });
    expect(
      document.getElementById(toggle.getAttribute('aria-controls') ?? '')?.contains(tree),
    ).toBe(true);
    expect(within(ok1).getByText('60 tables, read 2 hours ago')).toBeTruthy();
    expect(within(tree).getByText('public.table_010').nextSibling?.textContent).toBe(
      'view · 2 columns',
    );
    expect(calls.filter((call) => call.includes('/schema'))).toEqual([
      `GET /api/public/organizations/${ORG_ID}/data-sources/${healthy.id}/schema?limit=100`,
    ]);

    await user.click(toggle);
    expect(within(ok1).queryByRole('tree')).toBeNull();
  });

  it('Check now (ADMIN): POST …/health-check, then the result with the error in words', async () => {
    const checked: DataSource = {
      ...fresh,
      lastHealthStatus: 'UNHEALTHY',
      lastHealthCheckAttemptAt: new Date().toISOString(),
      healthErrorMessage: 'The connection timed out. Allow 203.0.113.7 in the database firewall.',
    };
    const { calls, user } = setup({
      listDataSources: paginate([fresh]),
      checkDataSourceHealth: () => ok(checked),
    });
    const row = await itemOf('Brand new');
    await user.click(within(row).getByRole('button', { name: 'Check now Brand new' }));
    expect(calls).toContain(
      `POST /api/public/organizations/${ORG_ID}/data-sources/${fresh.id}/health-check`,
    );
    await within(row).findByRole('button', { name: 'Health: Unhealthy just now' });
    // The last error in words, not only in the badge's tip.
    expect(row.querySelector('p.bk-data-source-list__reason')?.textContent).toBe(
      checked.healthErrorMessage,
    );
  });

  it('says why a health check could not run', async () => {
    const { user } = setup({
      listDataSources: paginate([fresh]),
      checkDataSourceHealth: fail('TooManyRequests', 'Too many checks; try again in 30 seconds.'),
    });
    const row = await itemOf('Brand new');
    await user.click(within(row).getByRole('button', { name: 'Check now Brand new' }));
    expect((await within(row).findByRole('alert')).textContent).toBe(
      'Too many checks; try again in 30 seconds.',
    );
    expect(row.textContent).toContain('Health: Not checked yet');
  });

  it('opens DataSourceForm in the row to edit, and a new one at the top to add', async () => {
    const { user } = setup({ listDataSources: paginate([healthy, broken]) });
    const bad = await itemOf('Broken one');
    await user.click(within(bad).getByRole('button', { name: 'Edit Broken one' }));
    const title = await within(bad).findByRole('heading', { name: 'Edit “Broken one”' });
    expect(document.activeElement).toBe(title);
    expect(within(bad).getByLabelText('Display name')).toBeTruthy();
    await user.click(within(bad).getByRole('button', { name: 'Close' }));
    expect(document.activeElement).toBe(
      within(bad).getByRole('button', { name: 'Edit Broken one' }),
    );

    await user.click(screen.getByRole('button', { name: 'Add data source' }));
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Add data source' }));
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
    await user.click(within(ok1).getByRole('button', { name: /^Tables of/ }));
    await within(ok1).findByText('public.table_001');
    const { violations } = await axe.run(document.body);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
