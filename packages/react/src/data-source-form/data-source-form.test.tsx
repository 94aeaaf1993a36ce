import type { DataSource } from '@bridgekit/contract';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import type userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { createRef } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dataSource } from '../../../../test/support/fixtures';
import { type Call, json, type KitOptions, renderKit, settled } from '../../test/render-kit';
import { DataSourceForm } from './data-source-form';

afterEach(cleanup);
// Typing through user-event in jsdom is slow on a busy CI machine.
vi.setConfig({ testTimeout: 20_000 });

const ORG = 'org_0000000001';
const BASE = `/api/public/organizations/${ORG}/data-sources`;
const warehouse = dataSource({
  displayName: 'Warehouse',
  databaseName: 'analytics',
  username: 'reader',
  host: 'db.example.com',
  port: 5432,
  storedSecrets: ['password'],
});

/** Renders and waits for the session (ADMIN unless `options.role` says otherwise). */
async function setup(
  ui: React.ReactNode,
  respond?: (call: Call) => Response,
  options: KitOptions & { settle?: boolean } = {},
) {
  const kit = renderKit(ui, respond, options);
  if (options.settle !== false) await settled();
  return kit;
}

const errorOf = (input: HTMLElement) =>
  (input.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent)
    .join(' | ');

type User = ReturnType<typeof userEvent.setup>;

/**
 * Puts `value` into the field labelled `label` with one paste, where what is entered matters and
 * not how: typing it would render the whole form once per character.
 */
async function fill(user: User, label: string, value: string) {
  await user.click(screen.getByLabelText(label));
  await user.paste(value);
}

async function fillConnection(user: User) {
  await fill(user, 'Display name', 'Main');
  await fill(user, 'Host', 'db.example.com');
  await fill(user, 'Username', 'reader');
  await fill(user, 'Password', 'wrong');
}

describe('DataSourceForm, create', () => {
  it('shows the Connection, SSL and SSH sections with defaults and Save disabled', async () => {
    await setup(<DataSourceForm orgId={ORG} />);

    expect(screen.getByRole('group', { name: 'Connection' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'SSL' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'SSH tunnel' })).toBeTruthy();
    expect((screen.getByLabelText('Port') as HTMLInputElement).value).toBe('5432');
    expect((screen.getByLabelText('Require SSL (TLS)') as HTMLInputElement).checked).toBe(true);
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    expect(save.getAttribute('aria-describedby')).toBeTruthy();
    expect(errorOf(save)).toBe('Test the connection before saving.');
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('checks required fields before any request', async () => {
    const { calls, user } = await setup(<DataSourceForm orgId={ORG} />);

    await user.clear(screen.getByLabelText('Port'));
    await user.type(screen.getByLabelText('Port'), '70000');
    await user.click(screen.getByRole('button', { name: 'Test connection' }));

    expect(calls).toEqual([]);
    const host = screen.getByLabelText('Host');
    expect(host.getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(host)).toBe('Required');
    expect(errorOf(screen.getByLabelText('Username'))).toBe('Required');
    expect(errorOf(screen.getByLabelText('Port'))).toBe('Must be an integer from 0 to 65535');
    expect(screen.getByLabelText('Display name').getAttribute('aria-invalid')).toBeNull();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Please check the highlighted fields.');
    // The summary names each field once and links to it; the field says what is wrong.
    expect(within(alert).getByRole('link', { name: 'Host' }).getAttribute('href')).toBe(
      `#${host.id}`,
    );
    expect(alert.textContent).not.toContain('Required');
    await waitFor(() => expect(document.activeElement).toBe(alert));
  });

  it('puts each verify fieldErrors message on its field', async () => {
    const { calls, user } = await setup(<DataSourceForm orgId={ORG} />, () =>
      json(422, {
        error: {
          title: 'VerificationFailed',
          detail: 'Could not connect to the database.',
          fieldErrors: { username: 'Authentication failed', password: 'Authentication failed' },
        },
      }),
    );
    await fillConnection(user);

    await user.click(screen.getByRole('button', { name: 'Test connection' }));

    const password = screen.getByLabelText('Password');
    await waitFor(() => expect(password.getAttribute('aria-invalid')).toBe('true'));
    expect(errorOf(password)).toBe('Authentication failed');
    expect(errorOf(screen.getByLabelText('Username'))).toBe('Authentication failed');
    expect(screen.getByLabelText('Host').getAttribute('aria-invalid')).toBeNull();
    // Said once in the summary and once at each field it names, never a third time.
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Could not connect to the database.');
    expect(alert.textContent).not.toContain('Authentication failed');
    expect(screen.getAllByText('Could not connect to the database.')).toHaveLength(1);
    expect(screen.getAllByText('Authentication failed')).toHaveLength(2);
    expect(calls).toEqual([
      {
        method: 'POST',
        path: `${BASE}/verify`,
        body: {
          dialect: 'POSTGRES',
          host: 'db.example.com',
          port: 5432,
          username: 'reader',
          password: 'wrong',
          sslEnabled: true,
          sshEnabled: false,
        },
      },
    ]);
    expect((screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('clears a field error when the field changes', async () => {
    const { user } = await setup(<DataSourceForm orgId={ORG} />, () =>
      json(422, {
        error: { title: 'VerificationFailed', detail: 'No', fieldErrors: { password: 'Wrong' } },
      }),
    );
    await fillConnection(user);
    await user.click(screen.getByRole('button', { name: 'Test connection' }));
    const password = screen.getByLabelText('Password');
    await waitFor(() => expect(password.getAttribute('aria-invalid')).toBe('true'));

    await user.type(password, 'x');

    expect(password.getAttribute('aria-invalid')).toBeNull();
  });

  it('enables Save once the current values verified, and again requires it after a change', async () => {
    const { user } = await setup(<DataSourceForm orgId={ORG} />, () =>
      json(200, { data: { success: true } }),
    );
    await fillConnection(user);
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;

    await user.click(screen.getByRole('button', { name: 'Test connection' }));

    expect((await screen.findByRole('status')).textContent).toBe('Connection verified.');
    expect(save.disabled).toBe(false);
    await user.type(screen.getByLabelText('Host'), 'x');
    expect(save.disabled).toBe(true);
  });

  it('creates the data source and calls onSaved with the record', async () => {
    const onSaved = vi.fn();
    const created = { ...warehouse, displayName: 'Main' };
    const { calls, user } = await setup(<DataSourceForm orgId={ORG} onSaved={onSaved} />, (call) =>
      call.path.endsWith('/verify')
        ? json(200, { data: { success: true } })
        : json(201, { data: created }),
    );
    await fillConnection(user);
    await user.clear(screen.getByLabelText('Password'));
    await fill(user, 'Password', 'secret');
    await fill(user, 'Database', 'analytics');
    await user.click(screen.getByRole('button', { name: 'Test connection' }));
    await screen.findByText('Connection verified.');

    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(created));
    expect(calls[1]).toEqual({
      method: 'POST',
      path: BASE,
      body: {
        dialect: 'POSTGRES',
        displayName: 'Main',
        host: 'db.example.com',
        port: 5432,
        databaseName: 'analytics',
        username: 'reader',
        password: 'secret',
        sslEnabled: true,
        sshEnabled: false,
      },
    });
    expect(screen.getByText('Saved.')).toBeTruthy();
    // Now editing what it created: the password is stored.
    expect(screen.getByRole('group', { name: 'Password' }).textContent).toContain('Stored');
    expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy();
  });

  it('saves without verifying when requireVerify is false, after its own checks', async () => {
    const { calls, user } = await setup(<DataSourceForm orgId={ORG} requireVerify={false} />, () =>
      json(201, { data: warehouse }),
    );
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(false);

    await user.click(save);
    expect(calls).toEqual([]);
    expect(errorOf(screen.getByLabelText('Display name'))).toBe('Required');

    await fillConnection(user);
    await user.click(save);
    await waitFor(() => expect(calls.map((c) => c.method)).toEqual(['POST']));
  });

  it('shows server validation errors from save on their fields', async () => {
    const { user } = await setup(<DataSourceForm orgId={ORG} requireVerify={false} />, () =>
      json(400, {
        error: {
          title: 'ValidationError',
          detail: 'The request is invalid.',
          fieldErrors: { displayName: 'Must be at most 200 characters' },
        },
      }),
    );
    await fillConnection(user);

    await user.click(screen.getByRole('button', { name: 'Save' }));

    const name = screen.getByLabelText('Display name');
    await waitFor(() => expect(errorOf(name)).toBe('Must be at most 200 characters'));
    expect(screen.getByRole('alert').textContent).toContain('The request is invalid.');
  });

  it('sends SSH settings, with a private key loaded from a file', async () => {
    const { calls, user } = await setup(<DataSourceForm orgId={ORG} />, () =>
      json(200, { data: { success: true } }),
    );
    await fillConnection(user);
    await user.click(screen.getByLabelText('Connect through an SSH tunnel'));
    expect((screen.getByLabelText('SSH port') as HTMLInputElement).value).toBe('22');

    await user.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(calls).toEqual([]);
    expect(errorOf(screen.getByLabelText('SSH host'))).toBe('Required');
    expect(errorOf(screen.getByLabelText('SSH password'))).toBe(
      'Enter an SSH password or private key',
    );

    await fill(user, 'SSH host', 'bastion.example.com');
    await fill(user, 'SSH username', 'tunnel');
    await user.click(screen.getByRole('radio', { name: 'Private key' }));
    await user.upload(
      screen.getByLabelText('Load key from a file'),
      new File(['-----BEGIN OPENSSH PRIVATE KEY-----'], 'id_ed25519'),
    );
    await waitFor(() =>
      expect((screen.getByLabelText('SSH private key') as HTMLTextAreaElement).value).toBe(
        '-----BEGIN OPENSSH PRIVATE KEY-----',
      ),
    );
    await fill(user, 'Key passphrase', 'pass');
    await user.click(screen.getByRole('button', { name: 'Test connection' }));

    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.body).toMatchObject({
      sshEnabled: true,
      sshHost: 'bastion.example.com',
      sshPort: 22,
      sshUsername: 'tunnel',
      sshPrivateKey: '-----BEGIN OPENSSH PRIVATE KEY-----',
      sshPrivateKeyPassphrase: 'pass',
    });
    expect(calls[0]?.body).not.toHaveProperty('sshPassword');
  });

  it('forwards ref, className and props to the form element', async () => {
    const ref = createRef<HTMLFormElement>();
    await setup(
      <DataSourceForm orgId={ORG} ref={ref} className="host" aria-label="New data source" />,
    );

    const form = screen.getByRole('form', { name: 'New data source' });
    expect(ref.current).toBe(form);
    expect(form.className).toBe('bk bk-data-source-form host');
    expect(form.getAttribute('data-state')).toBe('idle');
  });

  it('throws outside BridgeProvider', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => render(<DataSourceForm orgId={ORG} />)).toThrow(
      '`DataSourceForm` must be used within `BridgeProvider`',
    );
    vi.restoreAllMocks();
  });

  it('has no axe violations, including with field errors', async () => {
    const { container, user } = await setup(<DataSourceForm orgId={ORG} />);
    await user.click(screen.getByLabelText('Connect through an SSH tunnel'));
    await user.click(screen.getByRole('button', { name: 'Test connection' }));

    const { violations } = await axe.run(container);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});

describe('DataSourceForm, edit', () => {
  const editing = (call: Call) =>
    call.method === 'GET'
      ? json(200, { data: warehouse })
      : call.path.endsWith('/verify')
        ? json(200, { data: { success: true } })
        : json(200, { data: { ...warehouse, storedSecrets: [] } });

  it('loads the record and shows the stored password with Replace and Remove', async () => {
    const { calls } = await setup(
      <DataSourceForm orgId={ORG} dataSourceId={warehouse.id} />,
      editing,
      { settle: false },
    );

    expect(screen.getByRole('status').textContent).toBe('Loading data source…');
    expect(((await screen.findByLabelText('Host')) as HTMLInputElement).value).toBe(
      'db.example.com',
    );
    expect((screen.getByLabelText('Display name') as HTMLInputElement).value).toBe('Warehouse');
    expect((screen.getByLabelText('Database') as HTMLInputElement).value).toBe('analytics');
    const password = screen.getByRole('group', { name: 'Password' });
    expect(password.textContent).toContain('Stored');
    expect(within(password).getByRole('button', { name: 'Replace Password' })).toBeTruthy();
    expect(within(password).getByRole('button', { name: 'Remove Password' })).toBeTruthy();
    expect(calls).toEqual([{ method: 'GET', path: `${BASE}/${warehouse.id}`, body: undefined }]);
  });

  it('saves a rename without verifying, sending only what changed', async () => {
    const onSaved = vi.fn();
    const { calls, user } = await setup(
      <DataSourceForm orgId={ORG} dataSource={warehouse} onSaved={onSaved} />,
      editing,
    );
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(false);

    await user.type(screen.getByLabelText('Display name'), ' 2');
    await user.click(save);

    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(calls).toEqual([
      { method: 'PATCH', path: `${BASE}/${warehouse.id}`, body: { displayName: 'Warehouse 2' } },
    ]);
  });

  it('Remove sends the unset flag', async () => {
    const { calls, user } = await setup(
      <DataSourceForm orgId={ORG} dataSource={warehouse} />,
      editing,
    );

    await user.click(screen.getByRole('button', { name: 'Remove Password' }));
    expect(screen.getByRole('group', { name: 'Password' }).textContent).toContain(
      'Will be removed when you save',
    );
    expect((screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Test connection' }));
    await screen.findByText('Connection verified.');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[0]?.body).not.toHaveProperty('password');
    expect(calls[1]).toEqual({
      method: 'PATCH',
      path: `${BASE}/${warehouse.id}`,
      body: { unsetPassword: true },
    });
  });

  it('Undo keeps the stored secret', async () => {
    const { user } = await setup(<DataSourceForm orgId={ORG} dataSource={warehouse} />, editing);

    await user.click(screen.getByRole('button', { name: 'Remove Password' }));
    await user.click(screen.getByRole('button', { name: 'Undo Password' }));

    expect(screen.getByRole('group', { name: 'Password' }).textContent).toContain('Stored');
    expect((screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
  });

  it('Replace sends the new secret and nothing else', async () => {
    const { calls, user } = await setup(
      <DataSourceForm orgId={ORG} dataSource={warehouse} />,
      editing,
    );

    await user.click(screen.getByRole('button', { name: 'Replace Password' }));
    const input = screen.getByLabelText('Password');
    expect(document.activeElement).toBe(input);
    await user.type(input, 'n3w');
    await user.click(screen.getByRole('button', { name: 'Test connection' }));
    await screen.findByText('Connection verified.');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[0]?.body).toMatchObject({ password: 'n3w', host: 'db.example.com' });
    expect(calls[1]?.body).toEqual({ password: 'n3w' });
  });

  it('switching SSH to a private key clears the stored SSH password', async () => {
    const tunnelled = {
      ...warehouse,
      sshEnabled: true,
      sshHost: 'bastion',
      sshPort: 22,
      sshUsername: 'tunnel',
      storedSecrets: ['password', 'sshPassword'] as DataSource['storedSecrets'],
    };
    const { calls, user } = await setup(
      <DataSourceForm orgId={ORG} dataSource={tunnelled} requireVerify={false} />,
      editing,
    );
    expect(screen.getByRole('group', { name: 'SSH password' }).textContent).toContain('Stored');

    await user.click(screen.getByRole('radio', { name: 'Private key' }));
    await user.type(screen.getByLabelText('SSH private key'), 'KEY');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.body).toEqual({ sshPrivateKey: 'KEY', unsetSshPassword: true });
  });

  it('deletes after confirmation in a dialog', async () => {
    const onDeleted = vi.fn();
    const { calls, user } = await setup(
      <DataSourceForm orgId={ORG} dataSource={warehouse} onDeleted={onDeleted} />,
      () => json(200, { data: warehouse }),
    );

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete data source?' });
    expect(dialog.textContent).toContain('“Warehouse” will be deleted. This cannot be undone.');
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(screen.getByRole('button', { name: 'Delete data source' }));

    await waitFor(() => expect(onDeleted).toHaveBeenCalledWith(warehouse));
    expect(calls).toEqual([{ method: 'DELETE', path: `${BASE}/${warehouse.id}`, body: undefined }]);
    expect(screen.getByRole('status').textContent).toBe('The data source was deleted.');
  });

  it('shows a failed delete inside the dialog', async () => {
    const { user } = await setup(<DataSourceForm orgId={ORG} dataSource={warehouse} />, () =>
      json(403, { error: { title: 'Forbidden', detail: 'Only admins can delete data sources.' } }),
    );

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(screen.getByRole('button', { name: 'Delete data source' }));

    const dialog = screen.getByRole('dialog');
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'Only admins can delete data sources.',
    );
  });

  it('shows a not-found state', async () => {
    await setup(<DataSourceForm orgId={ORG} dataSourceId="ds_missing00001" />, () =>
      json(404, { error: { title: 'NotFound', detail: 'Data source not found' } }),
    );

    expect((await screen.findByRole('alert')).textContent).toBe(
      'This data source could not be found.',
    );
  });

  it('has no axe violations with stored secrets and the delete dialog open', async () => {
    const { user } = await setup(<DataSourceForm orgId={ORG} dataSource={warehouse} />, editing);
    await user.click(screen.getByRole('button', { name: 'Delete' }));

    const { violations } = await axe.run(document.body);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
