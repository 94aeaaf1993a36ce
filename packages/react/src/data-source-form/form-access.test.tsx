import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dataSource, member } from '../../../../test/support/fixtures';
import { json, renderKit, settled } from '../../test/render-kit';
import { MemberCard } from '../member-card/member-card';
import { useBridgeSession } from '../provider/use-access';
import { DataSourceForm } from './data-source-form';

afterEach(cleanup);
vi.setConfig({ testTimeout: 20_000 });

const ORG = 'org_0000000001';
const warehouse = dataSource({ displayName: 'Warehouse', storedSecrets: ['password'] });
const READ_ONLY = 'You can view this data source. Only admins of this organization can change it.';
const adminRequired = () =>
  json(403, {
    error: {
      title: 'Forbidden',
      code: 'admin_required',
      detail: 'Only an ADMIN of the organization can do this',
    },
  });

const button = (name: string) => screen.queryByRole('button', { name });
const ROLE_CHANGED =
  'Your role in this organization no longer lets you save data sources (only admins can). What you entered is kept below, read-only.';

/** The role `useBridgeSession` reports, as a host's own layout would show it. */
function SessionRole() {
  const session = useBridgeSession();
  return <output aria-label="Session role">{session.session?.member.role ?? '…'}</output>;
}

describe('DataSourceForm and the role of the session', () => {
  it('shows a MEMBER the record read-only, says why, and offers no Test, Save or Delete', async () => {
    renderKit(<DataSourceForm orgId={ORG} dataSource={warehouse} />, undefined, { role: 'MEMBER' });
    await settled();

    const form = document.querySelector('form');
    expect(form?.getAttribute('data-state')).toBe('read-only');
    expect(screen.getByRole('status').textContent).toBe(READ_ONLY);
    expect(button('Test connection')).toBeNull();
    expect(button('Save')).toBeNull();
    expect(button('Delete')).toBeNull();
    expect((screen.getByLabelText('Host') as HTMLInputElement).readOnly).toBe(true);
    expect((screen.getByLabelText('Require SSL (TLS)') as HTMLInputElement).disabled).toBe(true);
    const password = screen.getByRole('group', { name: 'Password' });
    expect(password.textContent).toBe('PasswordStored');
    expect(within(password).queryByRole('button')).toBeNull();
  });

  it('tells a MEMBER who opens a new form that only admins add data sources', async () => {
    renderKit(<DataSourceForm orgId={ORG} />, undefined, { role: 'MEMBER' });
    await settled();

    expect(screen.getByRole('status').textContent).toBe(
      'Only admins of this organization can add data sources.',
    );
    expect(screen.queryByLabelText('Host')).toBeNull();
    expect(button('Save')).toBeNull();
  });

  it('gives an ADMIN Test connection, Save and Delete', async () => {
    renderKit(<DataSourceForm orgId={ORG} dataSource={warehouse} />, undefined, { role: 'ADMIN' });
    await settled();

    expect(button('Test connection')).not.toBeNull();
    expect(button('Save')).not.toBeNull();
    expect(button('Delete')).not.toBeNull();
    expect(screen.queryByText(READ_ONLY)).toBeNull();
  });

  it('reads the session once for every component of the provider', async () => {
    const { sessionReads } = renderKit(
      <>
        <DataSourceForm orgId={ORG} dataSource={warehouse} />
        <DataSourceForm orgId={ORG} />
      </>,
    );
    await settled();

    expect(sessionReads()).toBe(1);
    expect(screen.getAllByRole('button', { name: 'Save' })).toHaveLength(2);
  });

  it('waits for the role before showing the form', () => {
    renderKit(<DataSourceForm orgId={ORG} dataSource={warehouse} />, undefined, { role: 'MEMBER' });

    expect(document.querySelector('form')?.getAttribute('data-state')).toBe('loading');
    expect(button('Save')).toBeNull();
  });

  it('lets the caller act without a session (API-key proxy), then turns read-only on admin_required', async () => {
    const { calls, user } = renderKit(
      <>
        <DataSourceForm orgId={ORG} dataSource={warehouse} requireVerify={false} />
        <DataSourceForm orgId={ORG} />
      </>,
      adminRequired,
      { role: null },
    );
    await settled();
    const [save] = screen.getAllByRole('button', { name: 'Save' });
    await user.type(screen.getAllByLabelText('Display name')[0]!, ' 2');

    await user.click(save!);

    // What was typed stays, read-only, with why it can no longer be saved.
    await waitFor(() => expect(screen.getByText(ROLE_CHANGED)).toBeTruthy());
    expect((screen.getAllByLabelText('Display name')[0] as HTMLInputElement).value).toBe(
      'Warehouse 2',
    );
    expect(calls.map((c) => c.method)).toEqual(['PATCH']);
    expect(button('Save')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    // The other form of the same organization learned it too.
    expect(screen.getByText('Only admins of this organization can add data sources.')).toBeTruthy();
  });

  it('closes the delete dialog and turns read-only when the bridge refuses the delete', async () => {
    const { user } = renderKit(
      <DataSourceForm orgId={ORG} dataSource={warehouse} />,
      adminRequired,
      { role: null },
    );
    await settled();

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(screen.getByRole('button', { name: 'Delete data source' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByText(ROLE_CHANGED)).toBeTruthy();
  });

  it('takes the role only for the organization of the session', async () => {
    renderKit(<DataSourceForm orgId={ORG} dataSource={warehouse} />, undefined, {
      role: 'MEMBER',
      orgId: 'org_0000000002',
    });
    await settled();

    expect(button('Save')).not.toBeNull();
  });

  it('keeps what a demoted ADMIN typed, read-only, says why, and shows MEMBER everywhere', async () => {
    const { calls, user } = renderKit(
      <>
        <MemberCard member={member()} />
        <SessionRole />
        <DataSourceForm orgId={ORG} />
      </>,
      adminRequired,
      { role: 'ADMIN' },
    );
    await settled();
    expect(screen.getByLabelText('Session role').textContent).toBe('ADMIN');
    expect(within(screen.getByRole('article')).getByText('Admin')).toBeTruthy();

    // Pasted, one change per field: what was entered matters here, not the keystrokes.
    for (const [label, value] of [
      ['Display name', 'Warehouse'],
      ['Host', 'db.internal'],
      ['Database', 'analytics'],
      ['Username', 'reader'],
      ['Password', 's3cret'],
    ] as const) {
      await user.click(screen.getByLabelText(label));
      await user.paste(value);
    }
    await user.click(screen.getByRole('button', { name: 'Test connection' }));

    await waitFor(() => expect(screen.getByText(ROLE_CHANGED)).toBeTruthy());
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `POST /api/public/organizations/${ORG}/data-sources/verify`,
    ]);
    const form = document.querySelector('form');
    expect(form?.getAttribute('data-state')).toBe('read-only');
    const host = screen.getByLabelText('Host') as HTMLInputElement;
    expect((screen.getByLabelText('Display name') as HTMLInputElement).value).toBe('Warehouse');
    expect(host.value).toBe('db.internal');
    expect(host.readOnly).toBe(true);
    expect(button('Test connection')).toBeNull();
    expect(button('Save')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByLabelText('Session role').textContent).toBe('MEMBER');
    const card = screen.getByRole('article');
    expect(within(card).getByText('Member')).toBeTruthy();
    expect(within(card).queryByText('Admin')).toBeNull();
  });
});
