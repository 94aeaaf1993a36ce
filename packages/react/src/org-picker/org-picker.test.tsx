import { createClient } from '@bridgekit/client';
import type { Organization } from '@bridgekit/contract';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { createRef } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { organization } from '../../../../test/support/fixtures';
import { BridgeProvider } from '../provider/bridge-provider';
import { OrgPicker } from './org-picker';

afterEach(cleanup);
// Typing through user-event in jsdom is slow on a busy CI machine.
vi.setConfig({ testTimeout: 20_000 });

const org = (n: number, name: string) =>
  organization({
    id: `org_${String(n).padStart(10, '0')}`,
    name,
    slug: name.toLowerCase().replace(/\W+/g, '-'),
  });
const acme = org(1, 'Acme');
const globex = org(2, 'Globex');
const initech = org(3, 'Initech');
const umbrella = org(4, 'Umbrella');

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const page = (data: Organization[], nextCursor: string | null) =>
  json(200, { data, pagination: { nextCursor, hasMore: nextCursor !== null } });

function setup(ui: React.ReactNode, ...responses: Array<Response | (() => Promise<Response>)>) {
  const fetch = vi.fn(async (_url: string, _init: RequestInit) => {
    const next = responses.shift();
    if (!next) throw new Error('unexpected request');
    return typeof next === 'function' ? next() : next;
  });
  const client = createClient({ baseUrl: 'https://bridge.test', apiKey: 'k' }, fetch);
  const view = render(<BridgeProvider client={client}>{ui}</BridgeProvider>);
  const urls = () => fetch.mock.calls.map(([url]) => url.replace('https://bridge.test', ''));
  return { fetch, urls, ...view };
}

const activeOption = (listbox: HTMLElement) => {
  const id = listbox.getAttribute('aria-activedescendant');
  return id ? document.getElementById(id)?.querySelector('span')?.textContent : null;
};

describe('OrgPicker', () => {
  it('opens a dialog that loads the first page', async () => {
    let respond = (_: Response) => {};
    const first = new Promise<Response>((resolve) => {
      respond = resolve;
    });
    const { urls } = setup(<OrgPicker pageSize={2} />, () => first);

    const trigger = screen.getByRole('button', { name: 'Select an organization' });
    expect(trigger.getAttribute('aria-haspopup')).toBe('dialog');
    await userEvent.click(trigger);

    const dialog = screen.getByRole('dialog', { name: 'Select an organization' });
    expect(within(dialog).getByRole('status').textContent).toBe('Loading organizations…');
    respond(page([acme, globex], globex.id));
    const listbox = await within(dialog).findByRole('listbox', { name: 'Organizations' });
    expect(
      within(listbox)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Acme acme', 'Globex globex']);
    expect(urls()).toEqual(['/api/public/organizations?limit=2']);
  });

  it('selects by keyboard: arrows, Home, End and Enter', async () => {
    const onValueChange = vi.fn();
    setup(<OrgPicker onValueChange={onValueChange} />, page([acme, globex, initech], null));
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    const listbox = await screen.findByRole('listbox');
    expect(document.activeElement).toBe(
      screen.getByRole('searchbox', { name: 'Search organizations' }),
    );

    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(listbox);
    expect(activeOption(listbox)).toBe('Acme');
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    expect(activeOption(listbox)).toBe('Initech');
    await user.keyboard('{Home}');
    expect(activeOption(listbox)).toBe('Acme');
    await user.keyboard('{End}{ArrowUp}');
    expect(activeOption(listbox)).toBe('Globex');
    await user.keyboard('{Enter}');

    expect(onValueChange).toHaveBeenCalledWith(globex.id, globex);
    expect(screen.queryByRole('dialog')).toBeNull();
    const trigger = screen.getByRole('button', { name: 'Globex' });
    await waitFor(() => expect(document.activeElement).toBe(trigger));
  });

  it('marks the selected option and starts there', async () => {
    setup(
      <OrgPicker defaultValue={initech.id} />,
      json(200, { data: initech }),
      page([acme, globex, initech], null),
    );
    const user = userEvent.setup();

    await user.click(await screen.findByRole('button', { name: 'Initech' }));
    const listbox = await screen.findByRole('listbox');
    expect(
      screen.getByRole('option', { name: 'Initech initech' }).getAttribute('aria-selected'),
    ).toBe('true');
    await user.keyboard('{ArrowDown}');

    expect(activeOption(listbox)).toBe('Initech');
  });

  it('moves by type-ahead', async () => {
    setup(<OrgPicker />, page([acme, globex, initech, umbrella], null));
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    const listbox = await screen.findByRole('listbox');
    listbox.focus();
    const now = vi.spyOn(Date, 'now').mockReturnValue(10_000);
    await user.keyboard('u');
    expect(activeOption(listbox)).toBe('Umbrella');
    await user.keyboard('g');
    expect(activeOption(listbox)).toBe('Umbrella');

    now.mockReturnValue(11_000);
    await user.keyboard('g');
    expect(activeOption(listbox)).toBe('Globex');
    now.mockReturnValue(12_000);
    await user.keyboard('in');
    expect(activeOption(listbox)).toBe('Initech');
    now.mockRestore();
  });

  it('closes on Escape without changing the value', async () => {
    const onValueChange = vi.fn();
    setup(<OrgPicker onValueChange={onValueChange} />, page([acme], null));
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    await screen.findByRole('listbox');
    await user.keyboard('{Escape}');

    expect(screen.queryByRole('dialog')).toBeNull();
    expect(onValueChange).not.toHaveBeenCalled();
  });

  it('filters the loaded organizations as you type, without a request', async () => {
    const { fetch } = setup(<OrgPicker />, page([acme, globex, initech], null));
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    await screen.findByRole('listbox');
    await user.type(screen.getByRole('searchbox'), 'glo');

    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['Globex globex']);
    await user.type(screen.getByRole('searchbox'), 'zzz');
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(screen.getByText('No organizations match “glozzz”.')).toBeTruthy();
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('selects the first match with Enter in the search box', async () => {
    const onValueChange = vi.fn();
    setup(<OrgPicker onValueChange={onValueChange} />, page([acme, globex, initech], null));
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    await screen.findByRole('listbox');
    await user.type(screen.getByRole('searchbox'), 'init{Enter}');

    expect(onValueChange).toHaveBeenCalledWith(initech.id, initech);
  });

  it('loads the next page with the cursor from the Load more button', async () => {
    const { urls } = setup(
      <OrgPicker pageSize={2} />,
      page([acme, globex], globex.id),
      page([initech], null),
    );
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    await user.click(await screen.findByRole('button', { name: 'Load more' }));

    await screen.findByRole('option', { name: 'Initech initech' });
    expect(urls()).toEqual([
      '/api/public/organizations?limit=2',
      `/api/public/organizations?limit=2&cursor=${globex.id}`,
    ]);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('loads the next page when the list is scrolled to its end', async () => {
    const { fetch } = setup(
      <OrgPicker pageSize={2} />,
      page([acme, globex], globex.id),
      page([initech], null),
    );
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    const listbox = await screen.findByRole('listbox');
    fireEvent.scroll(listbox);

    await screen.findByRole('option', { name: 'Initech initech' });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('loads the next page when ArrowDown passes the last option, and moves onto it', async () => {
    setup(<OrgPicker pageSize={2} />, page([acme, globex], globex.id), page([initech], null));
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    const listbox = await screen.findByRole('listbox');
    listbox.focus();
    await user.keyboard('{End}{ArrowDown}');

    await waitFor(() => expect(activeOption(listbox)).toBe('Initech'));
  });

  it('shows the empty state', async () => {
    setup(<OrgPicker />, page([], null));

    await userEvent.click(screen.getByRole('button', { name: 'Select an organization' }));

    expect(await screen.findByText('No organizations yet.')).toBeTruthy();
    expect(screen.getByRole('dialog').querySelector('[data-state="empty"]')).not.toBeNull();
  });

  it('shows an error with a retry', async () => {
    setup(
      <OrgPicker />,
      json(500, { error: { title: 'InternalError', detail: 'Internal error' } }),
      page([acme], null),
    );
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Internal error');
    expect(screen.getByRole('dialog').querySelector('[data-state="error"]')).not.toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));

    expect(await screen.findByRole('option', { name: 'Acme acme' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows the name of a controlled value it has not loaded yet', async () => {
    const { urls } = setup(<OrgPicker value={umbrella.id} />, json(200, { data: umbrella }));

    expect(await screen.findByRole('button', { name: 'Umbrella' })).toBeTruthy();
    expect(urls()).toEqual([`/api/public/organizations/${umbrella.id}`]);
  });

  it('stays on the controlled value until the parent changes it', async () => {
    const onValueChange = vi.fn();
    setup(<OrgPicker value={null} onValueChange={onValueChange} />, page([acme], null));
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Select an organization' }));
    await user.click(await screen.findByRole('option', { name: 'Acme acme' }));

    expect(onValueChange).toHaveBeenCalledWith(acme.id, acme);
    expect(screen.getByRole('button', { name: 'Select an organization' })).toBeTruthy();
  });

  it('forwards ref, className and props to the trigger', () => {
    const ref = createRef<HTMLButtonElement>();
    setup(<OrgPicker ref={ref} className="host" aria-label="Organization" />);

    const trigger = screen.getByRole('button', { name: 'Organization' });
    expect(ref.current).toBe(trigger);
    expect(trigger.className).toBe('bk bk-org-picker host');
  });

  it('has no axe violations when open', async () => {
    setup(<OrgPicker />, page([acme, globex], globex.id));

    await userEvent.click(screen.getByRole('button', { name: 'Select an organization' }));
    await screen.findByRole('listbox');

    const { violations } = await axe.run(document.body);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
