import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ada, dataSource, organizations } from '../../../test/support/fixtures';
import { DataSourceList, MemberList, OrganizationSettings } from '../src';
import { dataSourceListMessages } from '../src/data-source-list/data-source-list-messages';
import { memberListMessages } from '../src/member-list/member-list-messages';
import { organizationSettingsMessages } from '../src/organization-settings/organization-settings-messages';
import { schemaBrowserMessages } from '../src/schema-browser/schema-browser-messages';
import { frenchLifecycle } from './messages-fr';
import { json, renderKit } from './render-kit';

afterEach(cleanup);
vi.setConfig({ testTimeout: 20_000 });

const ORG = organizations[0]!.id;
const fr = (
  ui: React.ReactNode,
  respond: Parameters<typeof renderKit>[1],
  role: 'ADMIN' | null = 'ADMIN',
) => renderKit(ui, respond, { provider: { messages: frenchLifecycle }, orgId: ORG, role });

describe('the French message set of the tests', () => {
  it('has every string of the lifecycle components', () => {
    const groups = [
      memberListMessages,
      organizationSettingsMessages,
      dataSourceListMessages,
      schemaBrowserMessages,
    ];
    const missing = groups.flatMap(Object.keys).filter((key) => !(key in frenchLifecycle));
    expect(missing).toEqual([]);
  });

  it('puts MemberList, OrganizationSettings and DataSourceList in French', async () => {
    const sole = json(200, { data: [ada], pagination: { hasMore: false, nextCursor: null } });
    fr(<MemberList orgId={ORG} />, () => sole.clone());
    await screen.findByText(/^Seul administrateur/);
    expect(screen.getByRole('heading', { name: 'Membres' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Ajouter' })).toBeTruthy();
    cleanup();

    fr(<OrganizationSettings orgId={ORG} />, () => json(200, { data: organizations[0] }));
    await screen.findByText(/^Le slug, la page d’intégration/);
    cleanup();

    const { user } = fr(
      <OrganizationSettings orgId={ORG} />,
      () => json(200, { data: organizations[0] }),
      null,
    );
    await user.click(await screen.findByRole('button', { name: 'Ajouter une origine' }));
    await user.type(
      screen.getByRole('textbox', { name: 'Origine 2' }),
      'https://exemple.fr/chemin',
    );
    await user.tab();
    await screen.findByText('Sans chemin');
    cleanup();

    const broken = dataSource({
      lastHealthStatus: 'UNHEALTHY',
      lastHealthCheckAttemptAt: new Date().toISOString(),
      healthErrorMessage: 'Délai dépassé.',
    });
    fr(<DataSourceList orgId={ORG} />, () =>
      json(200, { data: [broken], pagination: { hasMore: false, nextCursor: null } }),
    );
    await screen.findByRole('button', { name: 'Santé: En panne à l’instant' });
    expect(screen.getByRole('button', { name: `Vérifier ${broken.displayName}` })).toBeTruthy();
  });
});
