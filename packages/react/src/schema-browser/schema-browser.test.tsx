import type { CatalogTable } from '@bridgekit/contract';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Call, json, renderKit } from '../../test/render-kit';
import { SchemaBrowser } from './schema-browser';

afterEach(cleanup);
vi.setConfig({ testTimeout: 30_000 });

const ORG = 'org_0000000001';
const DS = 'ds_0000000001';
const SCHEMA = `/api/public/organizations/${ORG}/data-sources/${DS}/schema`;
const READ_AT = new Date(Date.now() - 2 * 3_600_000).toISOString();

const table = (i: number): CatalogTable => ({
  schema: i < 5000 ? 'public' : 'reporting',
  name: `table_${String(i).padStart(5, '0')}`,
  kind: i % 10 === 0 ? 'VIEW' : 'TABLE',
  columns: [
    { name: 'id', type: 'integer', nullable: false },
    { name: i === 1777 ? 'invoice_total' : 'note', type: 'text', nullable: true },
  ],
});
const MANY = Array.from({ length: 10_000 }, (_, i) => table(i));

/** The bridge's catalog pages over `tables`: the cursor is the offset. */
const catalog =
  (tables: CatalogTable[], extra: { readAt?: string | null; truncated?: boolean } = {}) =>
  (call: Call) => {
    const query = new URL(call.path, 'https://x').searchParams;
    const limit = Number(query.get('limit'));
    const start = Number(query.get('cursor') ?? 0);
    const next = start + limit < tables.length ? String(start + limit) : null;
    return json(200, {
      data: {
        dataSourceId: DS,
        readAt: extra.readAt === undefined ? READ_AT : extra.readAt,
        truncated: extra.truncated ?? false,
        tableCount: tables.length,
        tables: tables.slice(start, start + limit),
      },
      pagination: { hasMore: next !== null, nextCursor: next },
    });
  };

const items = () => screen.getAllByRole('treeitem');

describe('SchemaBrowser', () => {
  it('draws only the rows in view of 10,000 tables, and pages as the user scrolls', async () => {
    const { calls } = renderKit(
      <SchemaBrowser orgId={ORG} dataSourceId={DS} dataSourceName="Warehouse" height={320} />,
      catalog(MANY),
    );
    const tree = await screen.findByRole('tree', { name: 'Tables of Warehouse' });
    expect(screen.getByText('10000 tables, read 2 hours ago')).toBeTruthy();
    // 320 px of 32 px rows, plus the overscan below: far fewer than the page of 100.
    expect(items().length).toBeLessThanOrEqual(20);
    expect(items()[0]!.getAttribute('aria-setsize')).toBe('100');
    expect(calls.map((c) => c.path)).toEqual([`${SCHEMA}?limit=100`]);

    tree.scrollTop = 90 * 32;
    tree.dispatchEvent(new Event('scroll'));
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]!.path).toBe(`${SCHEMA}?limit=100&cursor=100`);
    await screen.findByText('public.table_00095');
    expect(items().length).toBeLessThanOrEqual(30);
    expect(screen.queryByText('public.table_00000')).toBeNull();
  });

  it('searches table and column names across the whole catalog, reading the rest first', async () => {
    const { user, calls } = renderKit(
      <SchemaBrowser orgId={ORG} dataSourceId={DS} pageSize={100} />,
      catalog(MANY.slice(0, 2000)),
    );
    await screen.findByRole('tree', { name: 'Tables' });
    await user.type(
      screen.getByRole('searchbox', { name: 'Search tables and columns' }),
      'invoice',
    );
    await screen.findByText('1 table matches', undefined, { timeout: 20_000 });
    expect(calls).toHaveLength(20);
    // Found by a column: open on the matching column only.
    const found = screen.getByRole('treeitem', { name: /public\.table_01777/ });
    expect(found.getAttribute('aria-expanded')).toBe('true');
    expect(items().map((item) => item.textContent)).toEqual([
      'public.table_017772 columns',
      'invoice_totaltext · nullable',
    ]);

    await user.clear(screen.getByRole('searchbox'));
    await user.type(screen.getByRole('searchbox'), 'zzz');
    expect(screen.getByText('No table or column matches “zzz”.')).toBeTruthy();
    expect(screen.queryByRole('tree')).toBeNull();
  });

  it('is keyboard-complete: arrows, Right and Left to open, enter and leave a table, Home and End', async () => {
    const tables = MANY.slice(0, 30);
    const { user } = renderKit(<SchemaBrowser orgId={ORG} dataSourceId={DS} />, catalog(tables));
    const tree = await screen.findByRole('tree');
    const active = () =>
      document.getElementById(tree.getAttribute('aria-activedescendant') ?? '')?.textContent;
    await user.tab();
    await user.tab();
    expect(document.activeElement).toBe(tree);
    expect(active()).toBe('public.table_00000view · 2 columns');

    await user.keyboard('{ArrowDown}{ArrowRight}');
    const opened = screen.getByRole('treeitem', { name: /public\.table_00001/ });
    expect(opened.getAttribute('aria-expanded')).toBe('true');
    await user.keyboard('{ArrowRight}');
    expect(active()).toBe('idinteger');
    await user.keyboard('{ArrowDown}');
    expect(active()).toBe('notetext · nullable');
    await user.keyboard('{ArrowLeft}');
    expect(active()).toBe('public.table_000012 columns');
    await user.keyboard('{ArrowLeft}');
    expect(opened.getAttribute('aria-expanded')).toBe('false');
    await user.keyboard('{Enter}');
    expect(opened.getAttribute('aria-expanded')).toBe('true');
    await user.keyboard('{End}');
    expect(active()).toBe('public.table_000292 columns');
    await user.keyboard('{Home}');
    expect(active()).toBe('public.table_00000view · 2 columns');
  });

  it('says when not synced yet, when the sync found nothing, and when the catalog was cut', async () => {
    renderKit(<SchemaBrowser orgId={ORG} dataSourceId={DS} />, catalog([], { readAt: null }));
    await screen.findByText('Not synced yet: the tables show once a sync has succeeded.');
    cleanup();
    renderKit(<SchemaBrowser orgId={ORG} dataSourceId={DS} />, catalog([]));
    await screen.findByText('The last sync found no tables.');
    cleanup();
    renderKit(
      <SchemaBrowser orgId={ORG} dataSourceId={DS} />,
      catalog(MANY.slice(0, 3), { truncated: true }),
    );
    await screen.findByText(
      'The database has more tables than the bridge keeps; the rest are left out.',
    );
  });

  it('shows loading, then a failure with its reason, and retries', async () => {
    let failing = true;
    const { user } = renderKit(<SchemaBrowser orgId={ORG} dataSourceId={DS} />, (call) =>
      failing
        ? json(500, { error: { title: 'InternalError', code: 'internal_error', detail: 'Boom' } })
        : catalog(MANY.slice(0, 3))(call),
    );
    expect(screen.getByRole('status').textContent).toBe('Loading tables…');
    expect((await screen.findByRole('alert')).textContent).toContain('Boom');
    failing = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByRole('tree');
    expect(within(screen.getByRole('tree')).getAllByRole('treeitem')).toHaveLength(3);
  });

  it('has no axe violations with a table open', async () => {
    const { user } = renderKit(
      <SchemaBrowser orgId={ORG} dataSourceId={DS} dataSourceName="Warehouse" />,
      catalog(MANY.slice(0, 40)),
    );
    await screen.findByRole('tree');
    await user.click(screen.getByRole('treeitem', { name: /public\.table_00003/ }));
    // `region` is a page-level rule: the component is not a page.
    const { violations } = await axe.run(document.body, { rules: { region: { enabled: false } } });
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
