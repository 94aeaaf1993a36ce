import { cleanup, screen, waitFor, within } from '@testing-library/react';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { organization } from '../../../../test/support/fixtures';
import { type Call, json, renderKit } from '../../test/render-kit';
import { OrganizationSettings } from './organization-settings';

afterEach(cleanup);
vi.setConfig({ testTimeout: 20_000 });

const ORG = 'org_0000000001';
const PATH = `/api/public/organizations/${ORG}`;
const acme = organization({
  id: ORG,
  name: 'Acme',
  slug: 'acme',
  customAiContext: null,
  fullEmbedEnabled: true,
  embedAllowedOrigins: ['https://app.acme.example'],
  previousJwtSecretExpiresAt: null,
});
const refusal = (status: number, title: string, code: string, detail: string, extra = {}) =>
  json(status, { error: { title, code, detail, ...extra } });

/** Reads answer `acme`; a PATCH answers `acme` with the body over it. */
const bridge = (call: Call) =>
  call.method === 'PATCH'
    ? json(200, {
        data: { ...acme, ...(call.body as object), updatedAt: '2026-01-02T00:00:00.000Z' },
      })
    : json(200, { data: acme });

const originInputs = () => screen.getAllByRole('textbox', { name: /^Origin \d+$/ });
const errorOf = (input: HTMLElement) =>
  (input.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');

describe('OrganizationSettings', () => {
  it('loads the organization and saves only what changed (API-key client)', async () => {
    const saved = vi.fn();
    const { user, calls } = renderKit(
      <OrganizationSettings orgId={ORG} onSaved={saved} />,
      bridge,
      { role: null },
    );
    expect(screen.getByRole('status').textContent).toBe('Loading organization…');
    const name = await screen.findByLabelText('Name');
    expect((name as HTMLInputElement).value).toBe('Acme');
    expect(screen.getByRole('heading', { name: 'Acme' })).toBeTruthy();
    expect((screen.getByLabelText('Allow the full-embed page') as HTMLInputElement).checked).toBe(
      true,
    );
    expect(originInputs().map((i) => (i as HTMLInputElement).value)).toEqual([
      'https://app.acme.example',
    ]);

    await user.clear(name);
    await user.paste('Acme Corp');
    await user.click(screen.getByLabelText('AI context'));
    await user.paste('Fiscal year starts in April.');
    await user.click(screen.getByLabelText('Allow the full-embed page'));
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await screen.findByText('Saved.');
    expect(calls.at(-1)).toEqual({
      method: 'PATCH',
      path: PATH,
      body: {
        name: 'Acme Corp',
        customAiContext: 'Fiscal year starts in April.',
        fullEmbedEnabled: false,
      },
    });
    expect(saved).toHaveBeenCalledWith(expect.objectContaining({ name: 'Acme Corp' }));
  });

  it('gives an API-key client every host control: slug, full embed, origins, rotation, deletion', async () => {
    renderKit(<OrganizationSettings orgId={ORG} />, bridge, { role: null });
    const slug = (await screen.findByLabelText('Slug')) as HTMLInputElement;
    expect(slug.readOnly).toBe(false);
    expect(screen.getByLabelText('Allow the full-embed page').matches(':disabled')).toBe(false);
    expect((originInputs()[0] as HTMLInputElement).readOnly).toBe(false);
    for (const name of ['Add origin', 'Remove origin 1', 'Rotate secret', 'Delete organization'])
      expect(screen.getByRole('button', { name })).toBeTruthy();
    expect(screen.queryByText(/set by your application with an API key/)).toBeNull();
  });

  it('gives a signed-in ADMIN name and AI context; slug, embed, origins read-only; no rotation or deletion', async () => {
    const saved = vi.fn();
    const { user, calls } = renderKit(<OrganizationSettings orgId={ORG} onSaved={saved} />, bridge);
    const name = await screen.findByLabelText('Name');
    expect(
      screen.getByText(
        'The slug, the full-embed page and its allowed origins are set by your application with an API key, and so is deleting the organization.',
      ),
    ).toBeTruthy();
    const slug = screen.getByLabelText('Slug') as HTMLInputElement;
    expect(slug.readOnly).toBe(true);
    expect(slug.value).toBe('acme');
    const embed = screen.getByLabelText('Allow the full-embed page') as HTMLInputElement;
    expect(embed.disabled).toBe(true);
    expect(embed.checked).toBe(true);
    expect((originInputs()[0] as HTMLInputElement).readOnly).toBe(true);
    expect(
      screen.queryByRole('button', { name: /Add origin|Remove origin|Delete|Rotate/ }),
    ).toBeNull();
    expect(screen.queryByText('SSO signing secret')).toBeNull();
    expect(screen.queryByText('Delete organization')).toBeNull();

    // Typing into the locked fields changes nothing; the save sends only what a session may send.
    await user.type(slug, '-2');
    await user.click(embed);
    expect(slug.value).toBe('acme');
    expect(embed.checked).toBe(true);
    await user.clear(name);
    await user.paste('Acme Corp');
    await user.click(screen.getByLabelText('AI context'));
    await user.paste('Fiscal year starts in April.');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await screen.findByText('Saved.');
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([
      {
        method: 'PATCH',
        path: PATH,
        body: { name: 'Acme Corp', customAiContext: 'Fiscal year starts in April.' },
      },
    ]);
    expect(saved).toHaveBeenCalledWith(expect.objectContaining({ name: 'Acme Corp' }));
  });

  it('checks each origin by the bridge’s rule as it is left, with its own error', async () => {
    const { user, calls } = renderKit(<OrganizationSettings orgId={ORG} />, bridge, {
      role: null,
    });
    await screen.findByLabelText('Name');
    const add = screen.getByRole('button', { name: 'Add origin' });
    for (const value of [
      'http://example.com',
      'https://*.com',
      'HTTPS://App.Acme.Example/',
      'https://*.tenants.acme.example',
    ]) {
      await user.click(add);
      expect(document.activeElement).toBe(originInputs().at(-1));
      await user.paste(value);
    }
    await user.tab();
    const [first, http, suffix, duplicate, wildcard] = originInputs();
    expect(first!.getAttribute('aria-invalid')).toBeNull();
    expect(errorOf(http!)).toBe('http:// is allowed only for localhost and 127.0.0.1');
    expect(http!.getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(suffix!)).toBe(
      'A wildcard must not cover a public suffix such as *.com or *.co.uk',
    );
    expect(errorOf(duplicate!)).toBe('Already in the list');
    expect(wildcard!.getAttribute('aria-invalid')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(screen.getByRole('alert').textContent).toBe('Please check the highlighted fields.');
    expect(calls.filter((c) => c.method === 'PATCH')).toEqual([]);

    // Remove the three refused entries (Remove origin 2 each time), then save.
    for (let i = 0; i < 3; i++)
      await user.click(screen.getByRole('button', { name: 'Remove origin 2' }));
    expect(document.activeElement).toBe(originInputs()[1]);
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await screen.findByText('Saved.');
    expect(calls.at(-1)?.body).toEqual({
      embedAllowedOrigins: ['https://app.acme.example', 'https://*.tenants.acme.example'],
    });
  });

  it('puts the bridge’s per-entry refusals on the entries that were sent', async () => {
    const { user } = renderKit(
      <OrganizationSettings orgId={ORG} />,
      (call) =>
        call.method === 'PATCH'
          ? refusal(400, 'ValidationError', 'validation_failed', 'Invalid embedAllowedOrigins', {
              fieldErrors: {
                'embedAllowedOrigins.1': 'Must not be a public suffix such as com or co.uk',
              },
              fieldCodes: { 'embedAllowedOrigins.1': 'invalid_origin' },
            })
          : json(200, { data: acme }),
      { role: null },
    );
    await screen.findByLabelText('Name');
    await user.click(screen.getByRole('button', { name: 'Add origin' }));
    await user.click(screen.getByRole('button', { name: 'Add origin' }));
    await user.type(originInputs()[2]!, 'https://co.uk');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await screen.findByText('Please check the highlighted fields.');
    expect(errorOf(originInputs()[2]!)).toBe('Must not be a public suffix such as com or co.uk');
    expect(originInputs()[1]!.getAttribute('aria-invalid')).toBeNull();
  });

  it('shows a refused slug on the slug field', async () => {
    const { user } = renderKit(
      <OrganizationSettings orgId={ORG} />,
      (call) =>
        call.method === 'PATCH'
          ? refusal(409, 'Conflict', 'slug_taken', 'This slug is taken', {
              fieldErrors: { slug: 'This slug is taken' },
              fieldCodes: { slug: 'taken' },
            })
          : json(200, { data: acme }),
      { role: null },
    );
    const slug = await screen.findByLabelText('Slug');
    await user.type(slug, '-2');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(slug.getAttribute('aria-invalid')).toBe('true'));
    expect(errorOf(slug)).toContain('This slug is taken');
  });

  it('rotates the secret for an API-key client: grace shown, new secret once, copyable', async () => {
    const rotated = {
      ...acme,
      jwtSecret: 'whsec_new_secret_value',
      previousJwtSecretExpiresAt: '2026-12-01T10:30:00.000Z',
    };
    const { user, calls } = renderKit(
      <OrganizationSettings orgId={ORG} />,
      (call) => (call.method === 'POST' ? json(200, { data: rotated }) : json(200, { data: acme })),
      { role: null },
    );
    await screen.findByText('SSO signing secret');
    expect(screen.queryByText(/previous secret still verifies/)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    const dialog = screen.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await user.click(within(dialog).getByRole('button', { name: 'Rotate secret' }));
    const secret = (await screen.findByLabelText('New signing secret')) as HTMLInputElement;
    expect(calls.at(-1)).toEqual({ method: 'POST', path: `${PATH}/jwt-secret`, body: undefined });
    expect(secret.value).toBe('whsec_new_secret_value');
    expect(secret.readOnly).toBe(true);
    expect(errorOf(secret)).toBe('Copy it now: it is shown only this once.');
    expect(
      screen.getByText(
        'The previous secret still verifies tokens until Dec 1, 2026, 10:30 AM UTC.',
      ),
    ).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    // user-event's clipboard stands in for the browser's.
    expect(await navigator.clipboard.readText()).toBe('whsec_new_secret_value');
    await screen.findByText('Copied.');
    cleanup();

    // Shown once: a new mount has no secret to show, only the grace period.
    renderKit(
      <OrganizationSettings orgId={ORG} />,
      () =>
        json(200, {
          data: { ...acme, previousJwtSecretExpiresAt: rotated.previousJwtSecretExpiresAt },
        }),
      { role: null },
    );
    await screen.findByText(/previous secret still verifies/);
    expect(screen.queryByLabelText('New signing secret')).toBeNull();
    expect(document.body.textContent).not.toContain('whsec_new_secret_value');
  });

  it('deletes only after the slug is typed', async () => {
    const deleted = vi.fn();
    const { user, calls } = renderKit(
      <OrganizationSettings orgId={ORG} onDeleted={deleted} />,
      () => json(200, { data: acme }),
      { role: null },
    );
    await screen.findByLabelText('Name');
    await user.click(screen.getByRole('button', { name: 'Delete organization' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete organization?' });
    const confirm = within(dialog).getByRole('button', { name: 'Delete organization' });
    expect(confirm.getAttribute('aria-disabled')).toBe('true');
    await user.click(confirm);
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.type(within(dialog).getByLabelText('Type acme to confirm'), 'acm');
    expect(confirm.getAttribute('aria-disabled')).toBe('true');
    await user.type(within(dialog).getByLabelText('Type acme to confirm'), 'e');
    expect(confirm.getAttribute('aria-disabled')).toBeNull();
    await user.click(confirm);
    await screen.findByText('“Acme” was deleted.');
    expect(calls.at(-1)).toEqual({ method: 'DELETE', path: PATH, body: undefined });
    expect(deleted).toHaveBeenCalledWith(acme);
  });

  it('gives a MEMBER the settings read-only, without rotation or deletion', async () => {
    renderKit(<OrganizationSettings orgId={ORG} />, bridge, { role: 'MEMBER' });
    await screen.findByText('Only admins of this organization can change its settings.');
    expect(screen.getByLabelText('Name').matches(':disabled')).toBe(true);
    expect((originInputs()[0] as HTMLInputElement).readOnly).toBe(true);
    expect(screen.queryByRole('button', { name: /Save|Add origin|Delete|Rotate/ })).toBeNull();
  });

  it('says when the organization is missing, or could not be loaded (with retry)', async () => {
    renderKit(<OrganizationSettings orgId={ORG} />, () =>
      refusal(404, 'NotFound', 'organization_not_found', 'Organization not found'),
    );
    expect((await screen.findByRole('alert')).textContent).toBe(
      'This organization could not be found.',
    );
    cleanup();
    let failing = true;
    const { user } = renderKit(<OrganizationSettings orgId={ORG} />, () =>
      failing ? refusal(500, 'InternalError', 'internal_error', 'Boom') : json(200, { data: acme }),
    );
    expect((await screen.findByRole('alert')).textContent).toContain('Boom');
    failing = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByLabelText('Name');
  });

  it('is keyboard-complete: Tab reaches every control in order; Save and Delete by keys', async () => {
    const { user, calls } = renderKit(<OrganizationSettings orgId={ORG} />, bridge, {
      role: null,
    });
    await screen.findByLabelText('Name');
    const names: string[] = [];
    for (let i = 0; i < 10; i++) {
      await user.tab();
      const el = document.activeElement as HTMLInputElement;
      names.push(el.getAttribute('aria-label') ?? (el.labels?.[0]?.textContent || el.textContent!));
    }
    expect(names).toEqual([
      'Name',
      'Slug',
      'AI context',
      'Allow the full-embed page',
      'Origin 1',
      'Remove origin 1',
      'Add origin',
      'Save changes',
      'Rotate secret',
      'Delete organization',
    ]);
    // Save with Enter in a field, then open Delete with the keyboard and confirm by typing.
    await user.type(screen.getByLabelText('AI context'), 'EUR');
    await user.click(screen.getByLabelText('Name'));
    await user.keyboard('{Enter}');
    await screen.findByText('Saved.');
    expect(calls.at(-1)?.body).toEqual({ customAiContext: 'EUR' });
    screen.getByRole('button', { name: 'Delete organization' }).focus();
    await user.keyboard('{Enter}');
    const dialog = screen.getByRole('dialog', { name: 'Delete organization?' });
    await user.keyboard('{Escape}');
    expect(dialog.isConnected).toBe(false);
    expect(document.activeElement).toBe(
      screen.getByRole('button', { name: 'Delete organization' }),
    );
  });

  it('has no axe violations, rotation and origin errors shown', async () => {
    const { user } = renderKit(<OrganizationSettings orgId={ORG} />, bridge, { role: null });
    await screen.findByLabelText('Name');
    await user.click(screen.getByRole('button', { name: 'Add origin' }));
    await user.type(originInputs().at(-1)!, 'ftp://x');
    await user.tab();
    const { violations } = await axe.run(document.body);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });

  it('has no axe violations for a signed-in ADMIN (host settings read-only)', async () => {
    renderKit(<OrganizationSettings orgId={ORG} />, bridge);
    await screen.findByText(/set by your application with an API key/);
    const { violations } = await axe.run(document.body);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
