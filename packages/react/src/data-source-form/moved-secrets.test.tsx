import type { DataSource } from '@bridgekit/contract';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dataSource } from '../../../../test/support/fixtures';
import { type Call, json, type KitOptions, renderKit, settled } from '../../test/render-kit';
import { DataSourceForm } from './data-source-form';

afterEach(cleanup);
vi.setConfig({ testTimeout: 20_000 });

// The bridge drops stored secrets that would follow a changed target (a new host, port, SSH
// server…): the form says so before the user saves, so a stored password isn't lost unawares.

const ORG = 'org_0000000001';
const warehouse = dataSource({
  displayName: 'Warehouse',
  username: 'reader',
  host: 'db.example.com',
  port: 5432,
  storedSecrets: ['password'],
});
const tunnelled = dataSource({
  displayName: 'Behind a bastion',
  username: 'reader',
  host: '10.0.4.12',
  port: 5432,
  sshEnabled: true,
  sshHost: 'bastion.example.com',
  sshPort: 22,
  sshUsername: 'tunnel',
  storedSecrets: ['password', 'sshPassword'],
});

const answer = (record: DataSource) => (call: Call) =>
  json(200, { data: call.method === 'GET' ? record : { ...record, storedSecrets: [] } });

async function setup(record: DataSource, options: KitOptions = {}) {
  const kit = renderKit(
    <DataSourceForm orgId={ORG} dataSource={record} requireVerify={false} />,
    answer(record),
    options,
  );
  await settled();
  return kit;
}

const warning = () => screen.queryByRole('alert');
const save = () => screen.getByRole('button', { name: 'Save' });

/** Replaces a field's value with one paste: what changes matters here, not the keystrokes. */
async function retype(user: Awaited<ReturnType<typeof setup>>['user'], label: string, to: string) {
  await user.clear(screen.getByLabelText(label));
  await user.paste(to);
}

describe('DataSourceForm, a changed target with stored secrets', () => {
  it('warns before saving a new host that the stored password will be removed', async () => {
    const { calls, user } = await setup(warehouse);
    expect(warning()).toBeNull();

    await retype(user, 'Host', 'db2.example.com');

    const alert = warning();
    expect(alert?.textContent).toBe(
      'The connection now goes somewhere else, so saving removes the stored “Password”. Enter it again to keep using it.',
    );
    expect(save().getAttribute('aria-describedby')?.split(' ')).toContain(alert?.id);

    await user.click(save());
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.body).toEqual({ host: 'db2.example.com' });
  });

  it('warns for a new port, and stops warning when the port is put back', async () => {
    const { user } = await setup(warehouse);
    await retype(user, 'Port', '6543');
    expect(warning()).not.toBeNull();
    await retype(user, 'Port', '5432');
    expect(warning()).toBeNull();
  });

  it('warns when TLS is turned off, not when only the database or username change', async () => {
    const { user } = await setup(warehouse);
    await retype(user, 'Username', 'someone-else');
    await retype(user, 'Database', 'other');
    expect(warning()).toBeNull();
    await user.click(screen.getByLabelText('Require SSL (TLS)'));
    expect(warning()?.textContent).toContain('“Password”');
  });

  it('does not warn once the password is entered again with the move', async () => {
    const { calls, user } = await setup(warehouse);
    await retype(user, 'Host', 'db2.example.com');
    expect(warning()).not.toBeNull();

    await user.click(screen.getByRole('button', { name: 'Replace Password' }));
    await user.type(screen.getByLabelText('Password'), 'again');
    expect(warning()).toBeNull();

    await user.click(save());
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.body).toEqual({ host: 'db2.example.com', password: 'again' });
  });

  it('names the SSH password too for a new SSH host, and only it for a new SSH username', async () => {
    const { user } = await setup(tunnelled);
    await retype(user, 'SSH host', 'bastion2.example.com');
    expect(warning()?.textContent).toBe(
      'The connection now goes somewhere else, so saving removes the stored “Password”, “SSH password”. Enter them again to keep using them.',
    );
    await retype(user, 'SSH host', 'bastion.example.com');
    await retype(user, 'SSH username', 'other');
    expect(warning()?.textContent).toContain('“SSH password”');
    expect(warning()?.textContent).not.toContain('“Password”');
  });

  it('says it in the provider’s language', async () => {
    const { user } = await setup(warehouse, {
      provider: {
        messages: {
          password: 'Mot de passe',
          storedSecretsDropped: (labels: string[]) =>
            `La connexion change de cible : l’enregistrement supprime ${labels.join(', ')}. Saisissez-le à nouveau.`,
        },
      },
    });
    await retype(user, 'Host', 'db2.example.com');
    expect(warning()?.textContent).toBe(
      'La connexion change de cible : l’enregistrement supprime Mot de passe. Saisissez-le à nouveau.',
    );
  });
});
