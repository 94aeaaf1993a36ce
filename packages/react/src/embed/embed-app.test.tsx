import { BridgeError, type FetchLike } from '@bridgekit/client';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeFetch, type Handlers, ok, paginate } from '../../../../stories/fake-bridge';
import { ada, grace, ORG_ID, tunnelled, warehouse } from '../../../../test/support/fixtures';
import { EmbedApp, readEmbedConfig } from './embed-app';
import { embedSessionToken } from './embed-session';

afterEach(cleanup);

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const handlers = (member = ada): Handlers => ({
  getMember: ok(member),
  listDataSources: paginate([warehouse, tunnelled]),
});

function setup(member = ada, getSessionToken = vi.fn(() => 'sess_embed')) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fake = fakeFetch(handlers(member));
  const fetch: FetchLike = (url, init) => {
    calls.push({ url, init });
    return fake(url, init);
  };
  render(
    <EmbedApp
      orgId={ORG_ID}
      memberId={member.id}
      orgName="Acme"
      getSessionToken={getSessionToken}
      fetch={fetch}
    />,
  );
  return { calls, getSessionToken };
}

describe('embedSessionToken', () => {
  const session = (token: string, expiresAt: string) =>
    json(200, {
      data: { sessionToken: token, expiresAt, organizationId: ORG_ID, memberId: ada.id },
    });

  it('trades the cookie at POST /embed/session and caches the token until it nearly expires', async () => {
    let now = Date.parse('2025-06-01T10:00:00.000Z');
    const fetch = vi.fn(async () => session('sess_1', '2025-06-01T10:15:00.000Z'));
    const getToken = embedSessionToken({ fetch, now: () => now });

    expect(await getToken({ forceRefresh: false })).toBe('sess_1');
    expect(await getToken({ forceRefresh: false })).toBe('sess_1');
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fetch).toHaveBeenCalledWith('/embed/session', {
      method: 'POST',
      headers: { accept: 'application/json', 'x-bridgekit-embed': '1' },
      credentials: 'same-origin',
    });

    now = Date.parse('2025-06-01T10:14:45.000Z');
    await getToken({ forceRefresh: false });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('asks again on forceRefresh, one request for concurrent callers', async () => {
    const fetch = vi.fn(async () => session('sess_2', '2999-01-01T00:00:00.000Z'));
    const getToken = embedSessionToken({ fetch });
    await getToken({ forceRefresh: false });

    const both = await Promise.all([
      getToken({ forceRefresh: true }),
      getToken({ forceRefresh: false }),
    ]);
    expect(both).toEqual(['sess_2', 'sess_2']);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('throws an Unauthorized BridgeError when the session has ended', async () => {
    const getToken = embedSessionToken({
      fetch: async () => json(401, { error: { title: 'Unauthorized', detail: 'No session' } }),
    });
    const error = await Promise.resolve(getToken({ forceRefresh: false })).catch((e) => e);
    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({ status: 401, title: 'Unauthorized' });
  });
});

describe('readEmbedConfig', () => {
  it('reads the page shell’s data-embed and refuses anything else', () => {
    expect(readEmbedConfig('{"orgId":"org_1","memberId":"mem_1","orgName":"Acme"}')).toEqual({
      orgId: 'org_1',
      memberId: 'mem_1',
      orgName: 'Acme',
    });
    expect(readEmbedConfig('{"orgId":"org_1"}')).toBeNull();
    expect(readEmbedConfig('not json')).toBeNull();
    expect(readEmbedConfig(undefined)).toBeNull();
  });
});

describe('EmbedApp', () => {
  it('lists the data sources and shows the signed-in member', async () => {
    setup();

    expect(screen.getByRole('heading', { level: 1, name: 'Acme' })).toBeTruthy();
    expect(await screen.findByText('Production warehouse')).toBeTruthy();
    expect(screen.getByText('db.acme.example:5432 / analytics')).toBeTruthy();
    expect(screen.getByText('Replica behind a bastion')).toBeTruthy();
    const aside = screen.getByRole('complementary', { name: 'Signed in as' });
    await waitFor(() =>
      expect(aside.querySelector('[data-state="ready"]')?.textContent).toContain('Ada Lovelace'),
    );
  });

  it('sends API calls with the bearer token and without cookies', async () => {
    const { calls } = setup();
    await screen.findByText('Production warehouse');

    expect(calls.length).toBeGreaterThan(0);
    for (const { url, init } of calls) {
      expect(url).toMatch(/^\/api\/public\/organizations\//);
      expect(init.credentials).toBe('omit');
      expect((init.headers as Record<string, string>).authorization).toBe('Bearer sess_embed');
    }
  });

  it('opens DataSourceForm to add and to edit, and moves focus to it', async () => {
    const user = userEvent.setup();
    setup();

    await user.click(await screen.findByRole('button', { name: 'Add data source' }));
    const addTitle = screen.getByRole('heading', { level: 2, name: 'Add data source' });
    expect(document.activeElement).toBe(addTitle);
    expect((screen.getByLabelText('Display name') as HTMLInputElement).value).toBe('');

    await user.click(screen.getByRole('button', { name: 'Edit Production warehouse' }));
    expect(
      document.activeElement ===
        screen.getByRole('heading', { name: 'Edit “Production warehouse”' }),
    ).toBe(true);
    expect((screen.getByLabelText('Display name') as HTMLInputElement).value).toBe(
      'Production warehouse',
    );

    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByLabelText('Display name')).toBeNull();
    expect(document.activeElement).toBe(
      screen.getByRole('button', { name: 'Edit Production warehouse' }),
    );
  });

  it('shows a MEMBER the list without add or edit', async () => {
    setup(grace);

    await screen.findByText('Production warehouse');
    await screen.findByText('Grace Brewster Murray Hopper-Featherstonehaugh');
    expect(screen.queryByRole('button', { name: 'Add data source' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Edit / })).toBeNull();
  });

  it('says the session has ended when the cookie no longer trades for a token', async () => {
    const ended = vi.fn(() => {
      throw new BridgeError({ status: 401, title: 'Unauthorized', detail: 'ended' });
    });
    setup(ada, ended);

    const alert = await screen.findByText(
      'Your session has ended. Reload the page to sign in again.',
    );
    expect(alert.getAttribute('role')).toBe('alert');
  });

  it('has no axe violations', async () => {
    setup();
    await screen.findByText('Production warehouse');
    await screen.findByText('Ada Lovelace');

    const { violations } = await axe.run(document.body, { rules: { region: { enabled: false } } });
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
