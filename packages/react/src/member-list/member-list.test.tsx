import { cleanup, screen, within } from '@testing-library/react';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ada, grace, member } from '../../../../test/support/fixtures';
import { type Call, json, renderKit, settled } from '../../test/render-kit';
import { MemberList } from './member-list';

afterEach(cleanup);
vi.setConfig({ testTimeout: 20_000 });

const ORG = 'org_0000000001';
const MEMBERS = `/api/public/organizations/${ORG}/members`;
const page = (data: unknown[], nextCursor: string | null = null) =>
  json(200, { data, pagination: { hasMore: nextCursor !== null, nextCursor } });
const refusal = (status: number, title: string, code: string, detail: string, extra = {}) =>
  json(status, { error: { title, code, detail, ...extra } });

/** Answers the list with `members` and each write as the bridge would. */
function bridge(members: Array<typeof ada>) {
  return (call: Call) => {
    if (call.method === 'GET') return page(members);
    const id = call.path.split('/').at(-1);
    const target = members.find((m) => m.id === id);
    if (call.method === 'PATCH')
      return json(200, { data: { ...target, ...(call.body as object) } });
    if (call.method === 'DELETE') return json(200, { data: target });
    return json(500, {});
  };
}

const rowOf = (name: string) => screen.getByText(name).closest('li') as HTMLLIElement;

describe('MemberList', () => {
  it('lists the members with a role menu each for an ADMIN, and marks the caller', async () => {
    // The session's member (renderKit: mem_0000000001).
    const me = member({
      role: 'MEMBER',
      user: { fullName: 'Mae Jemison', email: 'mae@acme.example' },
    });
    const { calls } = renderKit(<MemberList orgId={ORG} />, bridge([ada, grace, me]));
    expect(screen.getByText('Loading members…').getAttribute('role')).toBe('status');
    expect(document.querySelector('.bk-member-list')?.getAttribute('data-state')).toBe('loading');
    await screen.findByText('Ada Lovelace');
    expect(calls[0]).toEqual({ method: 'GET', path: `${MEMBERS}?limit=50`, body: undefined });
    expect(rowOf('Mae Jemison').textContent).toContain('Mae Jemison (you)');
    expect(rowOf('Ada Lovelace').textContent).not.toContain('(you)');
    const role = screen.getByRole('combobox', { name: `Role of ${grace.user.fullName}` });
    expect((role as HTMLSelectElement).value).toBe('MEMBER');
    expect(screen.getByRole('list').children).toHaveLength(3);
  });

  it('shows a member without a name by email, once', async () => {
    const nameless = member({
      id: 'mem_0000000007',
      user: { id: 'usr_0000000007', fullName: null, firstName: null, email: 'ops@acme.example' },
    });
    renderKit(<MemberList orgId={ORG} />, bridge([ada, nameless]));
    expect(await screen.findAllByText('ops@acme.example')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Remove ops@acme.example' })).toBeTruthy();
  });

  it('explains the last-ADMIN rule before any click: no role change, Remove leads nowhere', async () => {
    const { user, calls } = renderKit(<MemberList orgId={ORG} />, bridge([ada, grace]));
    await screen.findByText('Ada Lovelace');
    const role = screen.getByRole('combobox', { name: 'Role of Ada Lovelace' });
    expect(role.hasAttribute('disabled')).toBe(true);
    const remove = screen.getByRole('button', { name: 'Remove Ada Lovelace' });
    expect(remove.getAttribute('aria-disabled')).toBe('true');
    const note = document.getElementById(remove.getAttribute('aria-describedby') ?? '');
    expect(note?.textContent).toBe(
      'The only admin: make another member an admin before changing this role or removing them.',
    );
    expect(role.getAttribute('aria-describedby')).toBe(note?.id);
    await user.click(remove);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('changes a role with PATCH, announces it, and lifts the last-ADMIN rule', async () => {
    const { user, calls } = renderKit(<MemberList orgId={ORG} />, bridge([ada, grace]));
    await screen.findByText('Ada Lovelace');
    const role = screen.getByRole('combobox', { name: `Role of ${grace.user.fullName}` });
    await user.selectOptions(role, 'ADMIN');
    await screen.findByText(`${grace.user.fullName} is now Admin.`);
    expect(calls.at(-1)).toEqual({
      method: 'PATCH',
      path: `${MEMBERS}/${grace.id}`,
      body: { role: 'ADMIN' },
    });
    expect(
      screen.getByRole('combobox', { name: 'Role of Ada Lovelace' }).hasAttribute('disabled'),
    ).toBe(false);
  });

  it('shows the bridge’s last_admin refusal in the row when later pages hide the rule', async () => {
    const { user } = renderKit(<MemberList orgId={ORG} />, (call) =>
      call.method === 'GET'
        ? page([ada], ada.id)
        : refusal(409, 'Conflict', 'last_admin', 'An organization needs at least one ADMIN'),
    );
    await screen.findByText('Ada Lovelace');
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'Role of Ada Lovelace' }),
      'MEMBER',
    );
    const alert = await within(rowOf('Ada Lovelace')).findByRole('alert');
    expect(alert.textContent).toBe('An organization needs at least one ADMIN');
    expect(
      (screen.getByRole('combobox', { name: 'Role of Ada Lovelace' }) as HTMLSelectElement).value,
    ).toBe('ADMIN');
  });

  it('removes a member only after the confirmation (Escape cancels)', async () => {
    const { user, calls } = renderKit(<MemberList orgId={ORG} />, bridge([ada, grace]));
    await screen.findByText('Ada Lovelace');
    await user.click(screen.getByRole('button', { name: `Remove ${grace.user.fullName}` }));
    const dialog = screen.getByRole('dialog', { name: 'Remove member?' });
    expect(dialog.textContent).toContain(
      `${grace.user.fullName} will lose access to this organization and its data sources.`,
    );
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

    await user.click(screen.getByRole('button', { name: `Remove ${grace.user.fullName}` }));
    await user.click(screen.getByRole('button', { name: 'Remove member' }));
    await screen.findByText(`${grace.user.fullName} was removed.`);
    expect(calls.at(-1)).toEqual({
      method: 'DELETE',
      path: `${MEMBERS}/${grace.id}`,
      body: undefined,
    });
    expect(screen.queryByText(grace.user.email)).toBeNull();
    expect(screen.getByRole('list').children).toHaveLength(1);
  });

  it('keeps the dialog open with the reason when a removal is refused', async () => {
    const { user } = renderKit(<MemberList orgId={ORG} />, (call) =>
      call.method === 'GET'
        ? page([ada, grace])
        : refusal(503, 'ServiceUnavailable', 'store_unavailable', 'The store is not answering'),
    );
    await screen.findByText('Ada Lovelace');
    await user.click(screen.getByRole('button', { name: `Remove ${grace.user.fullName}` }));
    await user.click(screen.getByRole('button', { name: 'Remove member' }));
    const dialog = screen.getByRole('dialog');
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'The store is not answering',
    );
    expect(screen.getByText(grace.user.email)).toBeTruthy();
  });

  it('adds a member by email: a missing email, the bridge’s field error, then success', async () => {
    const added = member({
      id: 'mem_0000000009',
      role: 'ADMIN',
      user: { id: 'usr_0000000009', fullName: 'Katherine Johnson', email: 'kj@acme.example' },
    });
    const { user, calls } = renderKit(<MemberList orgId={ORG} />, (call) => {
      if (call.method === 'GET') return page([ada]);
      const { email } = call.body as { email: string };
      if (email === 'nope') {
        return refusal(
          400,
          'ValidationError',
          'validation_failed',
          'The request body is invalid.',
          {
            fieldErrors: { email: 'Must be an email address' },
            fieldCodes: { email: 'invalid_format' },
          },
        );
      }
      return json(201, { data: added });
    });
    await screen.findByText('Ada Lovelace');
    const email = screen.getByLabelText('Email');
    await user.click(screen.getByRole('button', { name: 'Add member' }));
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(email.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'Enter an email address',
    );
    expect(document.activeElement).toBe(email);
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

    await user.type(email, 'nope');
    await user.click(screen.getByRole('button', { name: 'Add member' }));
    await screen.findByText('Must be an email address');

    await user.clear(email);
    await user.selectOptions(screen.getByLabelText('Role'), 'ADMIN');
    await user.type(email, 'kj@acme.example{Enter}');
    await screen.findByText('kj@acme.example was added.');
    expect(calls.at(-1)).toEqual({
      method: 'POST',
      path: MEMBERS,
      body: { email: 'kj@acme.example', role: 'ADMIN' },
    });
    expect(screen.getByText('Katherine Johnson')).toBeTruthy();
    expect((email as HTMLInputElement).value).toBe('');
    expect(email.getAttribute('aria-invalid')).toBeNull();
  });

  it('gives a MEMBER the list read-only, with the reason', async () => {
    renderKit(<MemberList orgId={ORG} />, bridge([ada, grace]), { role: 'MEMBER' });
    await screen.findByText('Ada Lovelace');
    await screen.findByText('Only admins of this organization can change its members.');
    expect(screen.queryByRole('combobox')).toBeNull();
    expect(screen.queryByRole('button', { name: /^Remove/ })).toBeNull();
    expect(screen.queryByRole('form')).toBeNull();
    expect(within(rowOf('Ada Lovelace')).getByText('Admin')).toBeTruthy();
  });

  it('turns read-only once the bridge refuses a write with admin_required', async () => {
    const { user } = renderKit(<MemberList orgId={ORG} />, (call) =>
      call.method === 'GET'
        ? page([ada, grace])
        : refusal(403, 'Forbidden', 'admin_required', 'Only admins'),
    );
    await screen.findByText('Ada Lovelace');
    await user.selectOptions(
      screen.getByRole('combobox', { name: `Role of ${grace.user.fullName}` }),
      'ADMIN',
    );
    await screen.findByText('Only admins of this organization can change its members.');
    expect(screen.queryByRole('combobox')).toBeNull();
  });

  it('pages with Load more, says when empty, and retries a failed load', async () => {
    const { user, calls } = renderKit(<MemberList orgId={ORG} pageSize={1} />, (call) =>
      call.path.includes('cursor=') ? page([grace]) : page([ada], ada.id),
    );
    await screen.findByText('Ada Lovelace');
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByText(grace.user.email);
    expect(calls.map((c) => c.path)).toEqual([
      `${MEMBERS}?limit=1`,
      `${MEMBERS}?limit=1&cursor=${ada.id}`,
    ]);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    cleanup();

    renderKit(<MemberList orgId={ORG} />, () => page([]));
    await screen.findByText('No members yet.');
    cleanup();

    let failing = true;
    const view = renderKit(<MemberList orgId={ORG} />, () =>
      failing ? refusal(500, 'InternalError', 'internal_error', 'Boom') : page([ada]),
    );
    expect((await screen.findByRole('alert')).textContent).toContain('Boom');
    failing = false;
    await view.user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByText('Ada Lovelace');
  });

  it('is keyboard-complete: Tab reaches each control, and has no axe violations', async () => {
    const { user } = renderKit(<MemberList orgId={ORG} />, bridge([ada, grace]));
    await screen.findByText('Ada Lovelace');
    await settled();
    const reached: string[] = [];
    for (let i = 0; i < 6; i++) {
      await user.tab();
      const el = document.activeElement as HTMLElement;
      reached.push(el.getAttribute('aria-label') ?? el.textContent ?? el.id);
    }
    expect(reached).toContain(`Role of ${grace.user.fullName}`);
    expect(reached).toContain(`Remove ${grace.user.fullName}`);
    expect(reached).toContain('Remove Ada Lovelace');
    const { violations } = await axe.run(document.body);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
