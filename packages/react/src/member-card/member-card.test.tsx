import { createClient } from '@bridgekit/client';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { createRef } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { member } from '../../../../test/support/fixtures';
import { BridgeProvider } from '../provider/bridge-provider';
import { MemberCard } from './member-card';

afterEach(cleanup);

const ORG = 'org_0000000001';
const ada = member({
  createdAt: '2025-03-03T10:00:00.000Z',
  role: 'ADMIN',
  user: {
    fullName: 'Ada Lovelace',
    title: 'Analyst',
    avatarUrl: 'https://img.test/ada.png',
    email: 'ada@example.com',
    isEmailVerified: true,
    createdAt: '2025-03-01T10:00:00.000Z',
  },
});

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function setup(ui: React.ReactNode, respond: () => Response | Promise<Response>) {
  const fetch = vi.fn(async (_url: string, _init: RequestInit) => respond());
  const client = createClient({ baseUrl: 'https://bridge.test', apiKey: 'k' }, fetch);
  const view = render(<BridgeProvider client={client}>{ui}</BridgeProvider>);
  return { fetch, ...view };
}

describe('MemberCard', () => {
  it('shows a skeleton, then the member loaded by orgId and memberId', async () => {
    const { fetch } = setup(<MemberCard orgId={ORG} memberId={ada.id} />, () =>
      json(200, { data: ada }),
    );

    const loading = screen.getByRole('article', { name: 'Loading member…' });
    expect(loading.getAttribute('aria-busy')).toBe('true');
    expect(loading.getAttribute('data-state')).toBe('loading');

    const card = await screen.findByRole('article', { name: 'Ada Lovelace' });
    expect(card.getAttribute('data-state')).toBe('ready');
    expect(screen.getByText('Analyst')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'ada@example.com' }).getAttribute('href')).toBe(
      'mailto:ada@example.com',
    );
    expect(screen.getByText('Admin')).toBeTruthy();
    expect(screen.getByText('Verified')).toBeTruthy();
    expect(screen.getByText('Member since Mar 3, 2025').getAttribute('datetime')).toBe(
      '2025-03-03T10:00:00.000Z',
    );
    expect(fetch.mock.calls[0]?.[0]).toBe(
      `https://bridge.test/api/public/organizations/${ORG}/members/${ada.id}`,
    );
  });

  it('renders a given member without a request', () => {
    const { fetch } = setup(<MemberCard member={{ ...ada, role: 'MEMBER' }} />, () =>
      json(500, {}),
    );

    expect(screen.getByRole('article', { name: 'Ada Lovelace' })).toBeTruthy();
    expect(screen.getByText('Member')).toBeTruthy();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('falls back to initials when the avatar fails to load', () => {
    const { container } = setup(<MemberCard member={ada} />, () => json(500, {}));

    const image = container.querySelector('img');
    expect(image?.getAttribute('src')).toBe('https://img.test/ada.png');
    fireEvent.error(image!);

    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByText('AL')).toBeTruthy();
  });

  it('shows initials when there is no avatar, and the email when there is no name', () => {
    const anonymous = {
      ...ada,
      user: {
        ...ada.user,
        fullName: null,
        firstName: null,
        avatarUrl: null,
        isEmailVerified: false,
      },
    };
    setup(<MemberCard member={anonymous} />, () => json(500, {}));

    expect(screen.getByRole('article', { name: 'ada@example.com' })).toBeTruthy();
    expect(screen.getByText('A')).toBeTruthy();
    expect(screen.queryByText('Verified')).toBeNull();
  });

  it('shows a not-found state on 404', async () => {
    setup(<MemberCard orgId={ORG} memberId="mem_missing0001" />, () =>
      json(404, { error: { title: 'NotFound', detail: 'Member not found' } }),
    );

    const card = await screen.findByRole('article', { name: 'This member could not be found.' });
    expect(card.getAttribute('data-state')).toBe('not-found');
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('shows an error with a retry that loads again', async () => {
    const responses = [
      json(500, { error: { title: 'InternalError', detail: 'Something broke' } }),
      json(200, { data: ada }),
    ];
    const { fetch } = setup(<MemberCard orgId={ORG} memberId={ada.id} />, () => responses.shift()!);

    expect((await screen.findByRole('alert')).textContent).toContain('Something broke');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));

    expect(await screen.findByRole('article', { name: 'Ada Lovelace' })).toBeTruthy();
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('forwards ref, className and other props to the root; unstyled drops the root class', () => {
    const ref = createRef<HTMLElement>();
    setup(<MemberCard member={ada} ref={ref} className="host" data-testid="card" unstyled />, () =>
      json(500, {}),
    );

    const card = screen.getByTestId('card');
    expect(ref.current).toBe(card);
    expect(card.className).toBe('bk-member-card host');
  });

  it('takes its strings from the provider', () => {
    const client = createClient({ baseUrl: '', apiKey: 'k' }, vi.fn());
    render(
      <BridgeProvider client={client} messages={{ roleAdmin: 'Administrateur' }} theme="dark">
        <MemberCard member={ada} data-testid="card" />
      </BridgeProvider>,
    );

    expect(screen.getByText('Administrateur')).toBeTruthy();
    expect(screen.getByTestId('card').getAttribute('data-bk-theme')).toBe('dark');
  });

  it('throws outside BridgeProvider', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => render(<MemberCard member={ada} />)).toThrow(
      '`MemberCard` must be used within `BridgeProvider`',
    );
    vi.restoreAllMocks();
  });

  it('has no axe violations', async () => {
    const { container } = setup(<MemberCard member={ada} />, () => json(500, {}));

    const { violations } = await axe.run(container);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
