import { BridgeError, type FetchLike } from '@bridgekit/client';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeFetch, type Handlers, ok, paginate } from '../../../../stories/fake-bridge';
import { ada, grace, ORG_ID, tunnelled, warehouse } from '../../../../test/support/fixtures';
import { EmbedApp, type EmbedConfig, readEmbedConfig, takeHandoff } from './embed-app';
import { createEmbedSession, renewalDelay } from './embed-session';
import { hostTargets, postToHost, reportedFramingOrigin } from './host-messages';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const HOST = 'https://host.example';
const CODE = 'c'.repeat(43);
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** A tab storage in memory. */
function memoryStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

const embedSession = (token: string, memberId: string, expiresAt: number, absolute: number) =>
  json(200, {
    data: {
      sessionToken: token,
      expiresAt: new Date(expiresAt).toISOString(),
      absoluteExpiresAt: new Date(absolute).toISOString(),
      organizationId: ORG_ID,
      organizationName: 'Acme',
      memberId,
      framingOrigin: HOST,
    },
  });

interface Sent {
  url: string;
  init: RequestInit;
}

/** The bridge as the page sees it: the code exchange, renewal, and the public API. */
function bridgeFetch(member = ada, handlers: Handlers = {}) {
  const calls: Sent[] = [];
  const api = fakeFetch({
    getMember: ok(member),
    listDataSources: paginate([warehouse, tunnelled]),
    ...handlers,
  });
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, init });
    if (url === '/embed/session')
      return embedSession('sess_1', member.id, Date.now() + 900_000, Date.now() + 43_200_000);
    if (url === '/api/sso/session/refresh') {
      return json(200, {
        data: {
          sessionToken: 'sess_2',
          expiresAt: new Date(Date.now() + 900_000).toISOString(),
          absoluteExpiresAt: new Date(Date.now() + 43_200_000).toISOString(),
        },
      });
    }
    return api(url, init);
  };
  return { fetch, calls };
}

const CONFIG: EmbedConfig = {
  slug: 'acme',
  frameOrigins: [HOST],
  theme: 'light',
  hideOrgName: false,
};

function setup(member = ada, config: Partial<EmbedConfig> = {}) {
  const bridge = bridgeFetch(member);
  const session = createEmbedSession({
    slug: 'acme',
    fetch: bridge.fetch,
    storage: memoryStorage(),
  });
  render(
    <EmbedApp
      config={{ ...CONFIG, ...config }}
      code={CODE}
      session={session}
      fetch={bridge.fetch}
    />,
  );
  return bridge;
}

describe('createEmbedSession', () => {
  it('redeems the code with the header and the parent origin, and keeps the session in the tab', async () => {
    const fetch = vi.fn<FetchLike>(async () =>
      embedSession('sess_1', ada.id, Date.now() + 900_000, Date.now() + 3_600_000),
    );
    const storage = memoryStorage();
    const session = createEmbedSession({ slug: 'acme', fetch, storage, ancestorOrigin: HOST });
    await session.start(CODE);

    expect(fetch).toHaveBeenCalledWith('/embed/session', {
      method: 'POST',
      credentials: 'omit',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        'x-bridgekit-embed': '1',
      },
      body: JSON.stringify({ code: CODE, framingOrigin: HOST }),
    });
    expect(session.getState()).toMatchObject({
      status: 'ready',
      session: { memberId: ada.id, framingOrigin: HOST },
    });
    expect(JSON.parse(storage.items.get('bridgekit.embed.acme') ?? '{}').sessionToken).toBe(
      'sess_1',
    );
    expect(await session.getSessionToken({ forceRefresh: false })).toBe('sess_1');
    session.dispose();
  });

  it('never falls back to a stored session when a new code is refused', async () => {
    const stored = {
      slug: 'acme',
      sessionToken: 'sess_old',
      expiresAt: Date.now() + 600_000,
      absoluteExpiresAt: Date.now() + 3_600_000,
      organizationId: ORG_ID,
      organizationName: 'Acme',
      memberId: grace.id,
      framingOrigin: HOST,
    };
    const storage = memoryStorage({ 'bridgekit.embed.acme': JSON.stringify(stored) });
    const fetch = vi.fn<FetchLike>(async () =>
      json(401, { error: { title: 'Unauthorized', code: 'embed_code_used' } }),
    );
    const session = createEmbedSession({ slug: 'acme', fetch, storage });
    await session.start(CODE);

    expect(session.getState()).toEqual({
      status: 'ended',
      reason: 'sign-in-failed',
      framingOrigin: null,
    });
    expect(storage.items.size).toBe(0);
    const error = await Promise.resolve(session.getSessionToken({ forceRefresh: false })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({ status: 401, code: 'session_ended' });
  });

  it('resumes the tab’s session on a reload after checking it with a renewal', async () => {
    const stored = {
      slug: 'acme',
      sessionToken: 'sess_1',
      expiresAt: Date.now() + 600_000,
      absoluteExpiresAt: Date.now() + 3_600_000,
      organizationId: ORG_ID,
      organizationName: 'Acme',
      memberId: ada.id,
      framingOrigin: HOST,
    };
    const storage = memoryStorage({ 'bridgekit.embed.acme': JSON.stringify(stored) });
    const { fetch, calls } = bridgeFetch();
    const session = createEmbedSession({ slug: 'acme', fetch, storage });
    await session.start(null);

    expect(calls.map((c) => c.url)).toEqual(['/api/sso/session/refresh']);
    expect((calls[0]!.init.headers as Record<string, string>).authorization).toBe('Bearer sess_1');
    expect(session.getState()).toMatchObject({
      status: 'ready',
      session: { sessionToken: 'sess_2', memberId: ada.id },
    });
    session.dispose();
  });

  it.each([
    ['nothing stored', {}],
    [
      'another organization’s session',
      {
        'bridgekit.embed.acme': JSON.stringify({
          slug: 'other',
          sessionToken: 's',
          expiresAt: Date.now() + 600_000,
        }),
      },
    ],
    [
      'an expired token',
      {
        'bridgekit.embed.acme': JSON.stringify({
          slug: 'acme',
          sessionToken: 's',
          expiresAt: Date.now() - 1,
        }),
      },
    ],
  ])('ends a reload with %s as "could not sign in", asking nothing', async (_, items) => {
    const fetch = vi.fn<FetchLike>();
    const session = createEmbedSession({ slug: 'acme', fetch, storage: memoryStorage(items) });
    await session.start(null);
    expect(session.getState()).toMatchObject({ status: 'ended', reason: 'sign-in-failed' });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('renews before each expiry and ends at the absolute limit', async () => {
    vi.useFakeTimers({ now: Date.parse('2025-06-01T10:00:00Z') });
    const start = Date.now();
    const absolute = start + 40_000;
    let renewed = 0;
    const fetch = vi.fn<FetchLike>(async (url): Promise<Response> => {
      if (url === '/embed/session') return embedSession('t0', ada.id, start + 10_000, absolute);
      renewed += 1;
      const expiresAt = Math.min(Date.now() + 10_000, absolute);
      return json(200, {
        data: {
          sessionToken: `t${renewed}`,
          expiresAt: new Date(expiresAt).toISOString(),
          absoluteExpiresAt: new Date(absolute).toISOString(),
        },
      });
    });
    const session = createEmbedSession({ slug: 'acme', fetch, storage: memoryStorage() });
    await session.start(CODE);
    await vi.advanceTimersByTimeAsync(39_000);
    const renewals = fetch.mock.calls.filter(([url]) => url === '/api/sso/session/refresh');
    expect(renewals.length).toBeGreaterThanOrEqual(3);
    expect(session.getState().status).toBe('ready');
    await vi.advanceTimersByTimeAsync(1_500);
    expect(session.getState()).toEqual({ status: 'ended', reason: 'expired', framingOrigin: HOST });
  });

  it('keeps one renewal timer when a forced renewal fails, so dispose stops them all', async () => {
    vi.useFakeTimers();
    const fetch = vi.fn<FetchLike>(async (url) => {
      if (url === '/embed/session')
        return embedSession('t0', ada.id, Date.now() + 60_000, Date.now() + 3_600_000);
      throw new TypeError('Failed to fetch');
    });
    const renewals = () =>
      fetch.mock.calls.filter(([url]) => url === '/api/sso/session/refresh').length;
    const session = createEmbedSession({ slug: 'acme', fetch, storage: memoryStorage() });
    await session.start(CODE);
    // A renewal is armed for later; a forced one fails on the network and arms a retry.
    expect(await session.getSessionToken({ forceRefresh: true })).toBe('t0');
    expect(renewals()).toBe(1);
    await vi.advanceTimersByTimeAsync(5_010);
    expect(renewals()).toBe(2);
    session.dispose();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(renewals()).toBe(2);
  });

  it('ends at once when a renewal is refused (member removed, full embed off)', async () => {
    vi.useFakeTimers();
    const fetch = vi.fn<FetchLike>(async (url) =>
      url === '/embed/session'
        ? embedSession('t0', ada.id, Date.now() + 10_000, Date.now() + 3_600_000)
        : json(401, { error: { title: 'Unauthorized', code: 'invalid_credentials' } }),
    );
    const session = createEmbedSession({ slug: 'acme', fetch, storage: memoryStorage() });
    await session.start(CODE);
    await vi.advanceTimersByTimeAsync(renewalDelay(10_000) + 10);
    expect(session.getState()).toMatchObject({ status: 'ended', reason: 'revoked' });
  });
});

describe('the framing origin the page reports at sign-in', () => {
  const windowLike = (framed: boolean, ancestors: string[] | undefined) => {
    const win = {
      location: ancestors
        ? { ancestorOrigins: Object.assign([...ancestors], { item: (i: number) => ancestors[i] }) }
        : {},
    } as unknown as Window & { parent: Window };
    win.parent = framed ? ({} as Window) : win;
    return win;
  };

  it('is the parent’s origin as the browser reports it', () => {
    expect(reportedFramingOrigin(HOST, windowLike(true, ['https://other.example']))).toBe(
      'https://other.example',
    );
  });

  it('is the sign-in’s origin inside a frame where the browser reports none (Firefox)', () => {
    expect(reportedFramingOrigin(HOST, windowLike(true, undefined))).toBe(HOST);
  });

  it('is nothing at top level, whatever the sign-in named, so the bridge refuses the code', () => {
    expect(reportedFramingOrigin(HOST, windowLike(false, undefined))).toBeUndefined();
    expect(reportedFramingOrigin(HOST, windowLike(false, []))).toBeUndefined();
  });
});

describe('messages to the host', () => {
  it('go to the framing origin once known, else to the parent’s origin when allowed, else to each allowed origin', () => {
    const allowed = [HOST, 'https://other.example'];
    expect(hostTargets(HOST, allowed, 'https://evil.example')).toEqual([HOST]);
    expect(hostTargets(null, allowed, 'https://other.example')).toEqual(['https://other.example']);
    expect(hostTargets(null, allowed, 'https://evil.example')).toEqual(allowed);
    expect(hostTargets(null, allowed, undefined)).toEqual(allowed);
  });

  it('match the parent against wildcard origins, and never address a wildcard blind', () => {
    const allowed = [
      'https://*.host.example',
      'https://exact.example',
      'https://*.ported.example:8443',
    ];
    expect(hostTargets(null, allowed, 'https://app.host.example')).toEqual([
      'https://app.host.example',
    ]);
    expect(hostTargets(null, allowed, 'https://a.b.ported.example:8443')).toEqual([
      'https://a.b.ported.example:8443',
    ]);
    for (const parent of [
      'https://host.example',
      'https://evilhost.example',
      'http://app.host.example',
      'https://x.ported.example',
      undefined,
    ]) {
      expect(hostTargets(null, allowed, parent)).toEqual(['https://exact.example']);
    }
  });

  it('are never addressed to *', () => {
    const postMessage = vi.fn();
    const win = { parent: { postMessage } } as unknown as Window;
    postToHost({ type: 'bridgekit:session-ended' }, [HOST], win);
    expect(postMessage).toHaveBeenCalledWith({ type: 'bridgekit:session-ended' }, HOST);
    const self = { postMessage } as unknown as Window & { parent: Window };
    self.parent = self;
    postToHost({ type: 'bridgekit:resize', height: 10 }, [HOST], self);
    expect(postMessage).toHaveBeenCalledTimes(1);
  });
});

describe('readEmbedConfig and takeHandoff', () => {
  it('reads the page shell’s data-embed, light by default, and refuses anything else', () => {
    expect(
      readEmbedConfig(
        JSON.stringify({ slug: 'acme', frameOrigins: [HOST], theme: 'dark', hideOrgName: true }),
      ),
    ).toEqual({ slug: 'acme', frameOrigins: [HOST], theme: 'dark', hideOrgName: true });
    expect(
      readEmbedConfig(JSON.stringify({ slug: 'acme', frameOrigins: [], theme: 'blue' })),
    ).toEqual({ slug: 'acme', frameOrigins: [], theme: 'light', hideOrgName: false });
    expect(readEmbedConfig('{"slug":"acme"}')).toBeNull();
    expect(readEmbedConfig('not json')).toBeNull();
    expect(readEmbedConfig(undefined)).toBeNull();
  });

  it('takes the code and the sign-in origin out of the address, keeping the query', () => {
    const origin = encodeURIComponent('https://app.host.example');
    window.history.replaceState(
      null,
      '',
      `/embed/orgs/acme?theme=dark#code=${CODE}&origin=${origin}`,
    );
    expect(takeHandoff()).toEqual({ code: CODE, signInOrigin: 'https://app.host.example' });
    expect(window.location.hash).toBe('');
    expect(window.location.pathname + window.location.search).toBe('/embed/orgs/acme?theme=dark');
    expect(takeHandoff()).toEqual({ code: null, signInOrigin: undefined });
    // Only an origin: a URL with a path, a wildcard or anything unparsable is no target.
    for (const bad of ['https://app.host.example/x', 'https://*.host.example', 'nope', '']) {
      window.history.replaceState(null, '', `/embed/orgs/acme#code=${CODE}&origin=${bad}`);
      expect(takeHandoff(), bad).toEqual({ code: CODE, signInOrigin: undefined });
    }
  });
});

describe('EmbedApp', () => {
  it('signs in, lists the data sources and shows the signed-in member', async () => {
    setup();

    expect(await screen.findByText('Production warehouse')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Acme' })).toBeTruthy();
    expect(screen.getByText('db.acme.example:5432 / analytics')).toBeTruthy();
    const aside = screen.getByRole('complementary', { name: 'Signed in as' });
    await waitFor(() =>
      expect(aside.querySelector('[data-state="ready"]')?.textContent).toContain('Ada Lovelace'),
    );
  });

  it('sends API calls with the bearer token and without cookies', async () => {
    const { calls } = setup();
    await screen.findByText('Production warehouse');

    const api = calls.filter((c) => c.url.startsWith('/api/public/'));
    expect(api.length).toBeGreaterThan(0);
    for (const { init } of calls) expect(init.credentials).toBe('omit');
    for (const { init } of api) {
      expect((init.headers as Record<string, string>).authorization).toBe('Bearer sess_1');
    }
  });

  it('hides the organization heading (screen readers keep it) with hideOrgName', async () => {
    setup(ada, { hideOrgName: true, theme: 'dark' });
    await screen.findByText('Production warehouse');
    const heading = screen.getByRole('heading', { level: 1, name: 'Acme' });
    expect(heading.closest('header')?.className).toBe('bk-visually-hidden');
    expect(document.querySelector('.bk-embed')?.getAttribute('data-bk-theme')).toBe('dark');
  });

  it('opens the editor inside the row being edited, and a new one above the list', async () => {
    const user = userEvent.setup();
    setup();

    await user.click(await screen.findByRole('button', { name: 'Add data source' }));
    const addTitle = screen.getByRole('heading', { level: 2, name: 'Add data source' });
    expect(document.activeElement).toBe(addTitle);
    expect(addTitle.closest('li')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Edit Production warehouse' }));
    const title = screen.getByRole('heading', { name: 'Edit “Production warehouse”' });
    expect(document.activeElement).toBe(title);
    const row = title.closest('li');
    expect(row).not.toBeNull();
    expect(within(row!).getByText('db.acme.example:5432 / analytics')).toBeTruthy();
    expect((within(row!).getByLabelText('Display name') as HTMLInputElement).value).toBe(
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

  it('says plainly that it could not sign in when the code is refused', async () => {
    const fetch: FetchLike = async () => json(401, { error: { title: 'Unauthorized' } });
    const session = createEmbedSession({ slug: 'acme', fetch, storage: memoryStorage() });
    await act(async () => {
      render(<EmbedApp config={CONFIG} code={CODE} session={session} fetch={fetch} />);
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByRole('heading').textContent).toBe('Could not sign in');
    expect(screen.queryByText('Data sources')).toBeNull();
  });

  it('tells a host allowed by a wildcard that sign-in failed where the browser has no ancestorOrigins', async () => {
    // Firefox: no parent origin from the browser, so the sign-in origin from the fragment is
    // the only target, and only because it matches the organization's wildcard.
    const postMessage = vi.fn();
    const parent = Object.getOwnPropertyDescriptor(window, 'parent');
    Object.defineProperty(window, 'parent', { configurable: true, value: { postMessage } });
    try {
      const fetch: FetchLike = async () =>
        json(401, { error: { title: 'Unauthorized', code: 'embed_code_used' } });
      const config = { ...CONFIG, frameOrigins: ['https://*.host.example'] };
      const signIn = (signInOrigin: string | undefined) =>
        act(async () => {
          const session = createEmbedSession({ slug: 'acme', fetch, storage: memoryStorage() });
          render(
            <EmbedApp
              config={config}
              code={CODE}
              session={session}
              signInOrigin={signInOrigin}
              fetch={fetch}
            />,
          );
        });
      await signIn('https://app.host.example');
      await screen.findByRole('alert');
      await vi.waitFor(() =>
        expect(postMessage).toHaveBeenCalledWith(
          { type: 'bridgekit:session-ended' },
          'https://app.host.example',
        ),
      );
      expect(postMessage).toHaveBeenCalledTimes(1);
      cleanup();
      // A sign-in origin the organization does not allow is no target; nothing else is either.
      postMessage.mockClear();
      await signIn('https://evil.example');
      await screen.findByRole('alert');
      expect(postMessage).not.toHaveBeenCalled();
    } finally {
      if (parent) Object.defineProperty(window, 'parent', parent);
    }
  });

  it.each([
    ['refused by the bridge', Date.now() + 600_000, ['/api/sso/session/refresh']],
    ['expired in the tab', Date.now() - 1, []],
  ])(
    'tells a host allowed by a wildcard that a reload’s stored session was %s, where the browser has no ancestorOrigins',
    async (_, expiresAt, asked) => {
      // Firefox, a reload (no code, no sign-in origin): the stored session's framing origin, as
      // the bridge recorded it, is the target.
      const postMessage = vi.fn();
      const parent = Object.getOwnPropertyDescriptor(window, 'parent');
      Object.defineProperty(window, 'parent', { configurable: true, value: { postMessage } });
      try {
        const stored = {
          slug: 'acme',
          sessionToken: 'sess_old',
          expiresAt,
          absoluteExpiresAt: Date.now() + 3_600_000,
          organizationId: ORG_ID,
          organizationName: 'Acme',
          memberId: ada.id,
          framingOrigin: 'https://app.host.example',
        };
        const storage = memoryStorage({ 'bridgekit.embed.acme': JSON.stringify(stored) });
        const fetch = vi.fn<FetchLike>(async () =>
          json(401, { error: { title: 'Unauthorized', code: 'invalid_credentials' } }),
        );
        const config = { ...CONFIG, frameOrigins: ['https://*.host.example'] };
        await act(async () => {
          const session = createEmbedSession({ slug: 'acme', fetch, storage });
          render(<EmbedApp config={config} code={null} session={session} fetch={fetch} />);
        });
        const alert = await screen.findByRole('alert');
        expect(within(alert).getByRole('heading').textContent).toBe('Could not sign in');
        await vi.waitFor(() =>
          expect(postMessage).toHaveBeenCalledWith(
            { type: 'bridgekit:session-ended' },
            'https://app.host.example',
          ),
        );
        expect(postMessage).toHaveBeenCalledTimes(1);
        // The stored session is shown at once, its renewal first of what the page asks.
        expect(fetch.mock.calls.slice(0, 1).map(([url]) => url)).toEqual(asked);
        expect(storage.items.size).toBe(0);
      } finally {
        if (parent) Object.defineProperty(window, 'parent', parent);
      }
    },
  );

  it('has no axe violations', async () => {
    setup();
    await screen.findByText('Production warehouse');
    await screen.findByText('Ada Lovelace');

    const { violations } = await axe.run(document.body, { rules: { region: { enabled: false } } });
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
