import { cleanup, screen, waitFor } from '@testing-library/react';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dataSource } from '../../../../test/support/fixtures';
import { json, renderKit, settled } from '../../test/render-kit';
import { parseConnectionString } from './connection-string';
import { DataSourceForm } from './data-source-form';

afterEach(cleanup);
vi.setConfig({ testTimeout: 20_000 });

const ORG = 'org_0000000001';
const BASE = `/api/public/organizations/${ORG}/data-sources`;

describe('parseConnectionString', () => {
  it('reads postgres://, postgresql:// and mysql:// with every part', () => {
    expect(
      parseConnectionString(
        'postgres://reader:s3cret@db.example.com:6543/analytics?sslmode=require',
      ),
    ).toEqual({
      ok: true,
      value: {
        dialect: 'POSTGRES',
        host: 'db.example.com',
        port: '6543',
        databaseName: 'analytics',
        username: 'reader',
        password: 's3cret',
        sslEnabled: true,
      },
    });
    expect(parseConnectionString('  postgresql://u@h/db  ')).toMatchObject({
      ok: true,
      value: { dialect: 'POSTGRES', host: 'h', port: null, username: 'u', password: null },
    });
    expect(parseConnectionString('MYSQL://root:pw@10.0.0.5:3307/shop?ssl=true')).toEqual({
      ok: true,
      value: {
        dialect: 'MYSQL',
        host: '10.0.0.5',
        port: '3307',
        databaseName: 'shop',
        username: 'root',
        password: 'pw',
        sslEnabled: true,
      },
    });
  });

  it('decodes %-escapes, keeps an unencoded @ in the password, and reads IPv6 hosts', () => {
    expect(parseConnectionString('postgres://al%20ice:p@ss%2Fw%3Ard@[::1]:5432/my%20db')).toEqual({
      ok: true,
      value: {
        dialect: 'POSTGRES',
        host: '::1',
        port: '5432',
        databaseName: 'my db',
        username: 'al ice',
        password: 'p@ss/w:rd',
        sslEnabled: undefined,
      },
    });
  });

  it('reads TLS from sslmode, ssl and ssl-mode, and leaves it alone when not said', () => {
    const ssl = (query: string) => {
      const result = parseConnectionString(`postgres://u@h/db?${query}`);
      return result.ok ? result.value.sslEnabled : 'failed';
    };
    expect(ssl('sslmode=require')).toBe(true);
    expect(ssl('sslmode=verify-full')).toBe(true);
    expect(ssl('sslmode=disable')).toBe(false);
    expect(ssl('ssl=true')).toBe(true);
    expect(ssl('ssl=false')).toBe(false);
    expect(ssl('ssl-mode=REQUIRED')).toBe(true);
    expect(ssl('sslmode=prefer')).toBeUndefined();
    expect(ssl('application_name=x')).toBeUndefined();
  });

  it('refuses other schemes and strings it cannot read, without echoing them', () => {
    for (const text of ['', 'db.example.com', 'jdbc:postgresql://h/db', 'mongodb://u:p@h/db']) {
      expect(parseConnectionString(text)).toEqual({ ok: false, reason: 'scheme' });
    }
    for (const text of [
      'postgres://',
      'postgres:///db',
      'postgres://u:p@h:99999/db',
      'postgres://u:p@h:port/db',
      'postgres://u:p@h1:5432,h2:5432/db',
      'postgres://u:p@h/db/extra',
      'postgres://u:%E0%A4%A@h/db',
    ]) {
      expect(parseConnectionString(text), text).toEqual({ ok: false, reason: 'invalid' });
    }
  });
});

describe('DataSourceForm, dialect and connection string', () => {
  async function setup(respond?: Parameters<typeof renderKit>[1], provider = {}) {
    const kit = renderKit(<DataSourceForm orgId={ORG} />, respond, { provider });
    await settled();
    return kit;
  }
  const input = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

  it('offers PostgreSQL and MySQL; the default port follows until the user types one', async () => {
    const { user } = await setup();

    expect(screen.getByRole('group', { name: 'Database type' })).toBeTruthy();
    expect(input('PostgreSQL').checked).toBe(true);
    expect(input('Port').value).toBe('5432');
    expect(screen.getByText('Leave empty to use the username.')).toBeTruthy();

    await user.click(screen.getByLabelText('MySQL or MariaDB'));
    expect(input('Port').value).toBe('3306');
    expect(screen.getByText('Leave empty to connect without a default database.')).toBeTruthy();
    await user.click(screen.getByLabelText('PostgreSQL'));
    expect(input('Port').value).toBe('5432');

    await user.clear(input('Port'));
    await user.type(input('Port'), '6000');
    await user.click(screen.getByLabelText('MySQL or MariaDB'));
    expect(input('Port').value).toBe('6000');
  });

  it('sends the chosen dialect to verify', async () => {
    const { calls, user } = await setup(() => json(200, { data: { success: true } }));
    await user.click(screen.getByLabelText('MySQL or MariaDB'));
    await user.click(input('Host'));
    await user.paste('mysql.example.com');
    await user.click(input('Username'));
    await user.paste('root');
    await user.click(screen.getByRole('button', { name: 'Test connection' }));

    await screen.findByText('Connection verified.');
    expect(calls[0]).toEqual({
      method: 'POST',
      path: `${BASE}/verify`,
      body: {
        dialect: 'MYSQL',
        host: 'mysql.example.com',
        port: 3306,
        username: 'root',
        sslEnabled: true,
        sshEnabled: false,
      },
    });
  });

  it('fills the fields from a pasted string; the password only in Password, never shown', async () => {
    const { calls, user } = await setup(() => json(200, { data: { success: true } }));
    const paste = input('Connection string');
    expect(paste.type).toBe('password');

    await user.click(paste);
    await user.paste('mysql://shop%40admin:Hunter2%21@db.shop.example:3307/orders?ssl=false');

    expect(input('MySQL or MariaDB').checked).toBe(true);
    expect(input('Host').value).toBe('db.shop.example');
    expect(input('Port').value).toBe('3307');
    expect(input('Database').value).toBe('orders');
    expect(input('Username').value).toBe('shop@admin');
    expect(input('Password').value).toBe('Hunter2!');
    expect(input('Require SSL (TLS)').checked).toBe(false);
    expect(paste.value).toBe('');
    expect(
      screen.getByText('Filled in from the connection string.').getAttribute('aria-live'),
    ).toBe('polite');
    // Nowhere else: not as text, not in an attribute, not in any other input (React mirrors a
    // controlled input's value into its attribute, so the Password input itself is left out).
    const page = document.body.cloneNode(true) as HTMLElement;
    page.querySelector(`[id="${input('Password').id}"]`)?.remove();
    const html = page.innerHTML;
    expect(html).not.toContain('Hunter2');
    expect(html).not.toContain('mysql://shop');
    const holding = [...document.querySelectorAll('input')].filter((i) =>
      i.value.includes('Hunter2'),
    );
    expect(holding).toEqual([input('Password')]);

    await user.click(screen.getByRole('button', { name: 'Test connection' }));
    await screen.findByText('Connection verified.');
    expect(calls[0]?.body).toEqual({
      dialect: 'MYSQL',
      host: 'db.shop.example',
      port: 3307,
      databaseName: 'orders',
      username: 'shop@admin',
      password: 'Hunter2!',
      sslEnabled: false,
      sshEnabled: false,
    });
  });

  it('a string without a port takes the dialect default, and the default follows again', async () => {
    const { user } = await setup();
    await user.clear(input('Port'));
    await user.type(input('Port'), '7000');

    await user.click(input('Connection string'));
    await user.paste('postgresql://reader@pg.example.com/analytics?sslmode=require');
    expect(input('Port').value).toBe('5432');
    expect(input('Password').value).toBe('');
    await user.click(screen.getByLabelText('MySQL or MariaDB'));
    expect(input('Port').value).toBe('3306');
  });

  it('reads a typed string on Enter or Fill in', async () => {
    const { calls, user } = await setup();
    await user.type(input('Connection string'), 'postgres://a:b@typed.example/x{Enter}');
    expect(input('Host').value).toBe('typed.example');
    expect(input('Connection string').value).toBe('');

    await user.type(input('Connection string'), 'postgres://c@other.example:15432/y');
    await user.click(screen.getByRole('button', { name: 'Fill in' }));
    expect(input('Host').value).toBe('other.example');
    expect(input('Port').value).toBe('15432');
    // Enter filled the fields and did not submit the form.
    expect(calls).toEqual([]);
  });

  it('shows a field error for a string it cannot read, and leaves the fields alone', async () => {
    const { user } = await setup();
    await user.type(input('Host'), 'kept.example');
    const paste = input('Connection string');

    await user.click(paste);
    await user.paste('postgres://u:topsecret@h:99999/db');
    expect(paste.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (paste.getAttribute('aria-describedby') ?? '').split(' ');
    const texts = describedBy.map((id) => document.getElementById(id)?.textContent);
    expect(texts).toContain(
      'This connection string could not be read. Expected scheme://user:password@host:port/database.',
    );
    expect(input('Host').value).toBe('kept.example');
    expect(paste.value).toBe('');
    expect(document.body.innerHTML).not.toContain('topsecret');

    await user.paste('redis://h:6379');
    expect(
      screen.getByText('Use a URL that starts with postgres://, postgresql:// or mysql://.'),
    ).toBeTruthy();

    await user.type(paste, 'p');
    expect(paste.getAttribute('aria-invalid')).toBeNull();
  });

  it('uses the provider’s messages for the new labels and errors', async () => {
    const { user } = await setup(undefined, {
      messages: {
        dialect: 'Datenbanktyp',
        dialectMysql: 'MySQL (auch MariaDB)',
        connectionString: 'Verbindungs-URL',
        connectionStringScheme: 'Nur postgres:// oder mysql://',
      },
    });
    expect(screen.getByRole('group', { name: 'Datenbanktyp' })).toBeTruthy();
    expect(screen.getByLabelText('MySQL (auch MariaDB)')).toBeTruthy();
    await user.click(input('Verbindungs-URL'));
    await user.paste('ftp://x');
    expect(screen.getByText('Nur postgres:// oder mysql://')).toBeTruthy();
  });

  it('editing: the dialect is shown but fixed, and there is no connection string field', async () => {
    const mysql = dataSource({ dialect: 'MYSQL', port: 3306, databaseName: null });
    renderKit(<DataSourceForm orgId={ORG} dataSource={mysql} />);
    await settled();
    expect(input('MySQL or MariaDB').checked).toBe(true);
    expect(input('MySQL or MariaDB').disabled).toBe(true);
    expect(input('PostgreSQL').disabled).toBe(true);
    expect(screen.queryByLabelText('Connection string')).toBeNull();
    expect(input('Port').value).toBe('3306');
  });

  it('has no axe violations with the connection string error shown', async () => {
    const { container, user } = await setup();
    await user.click(input('Connection string'));
    await user.paste('nope');
    await waitFor(() =>
      expect(input('Connection string').getAttribute('aria-invalid')).toBe('true'),
    );
    const { violations } = await axe.run(container);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
