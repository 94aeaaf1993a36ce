import { createClient } from '@bridgekit/client';
import { DataSource, Member } from '@bridgekit/contract';
import { act } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { BridgeProvider, DataSourceForm, MemberCard, OrgPicker } from '../src';

const ORG = 'org_0000000001';
const member = Member.parse({
  id: 'mem_0000000001',
  createdAt: '2025-03-03T10:00:00.000Z',
  role: 'ADMIN',
  userId: 'usr_0000000001',
  organizationId: ORG,
  user: {
    id: 'usr_0000000001',
    fullName: 'Ada Lovelace',
    firstName: 'Ada',
    title: 'Analyst',
    avatarUrl: null,
    email: 'ada@example.com',
    isEmailVerified: true,
    createdAt: '2025-03-01T10:00:00.000Z',
  },
});
const record = DataSource.parse({
  id: 'ds_0000000001',
  displayName: 'Warehouse',
  description: null,
  dialect: 'POSTGRES',
  databaseName: null,
  username: 'reader',
  host: 'db.example.com',
  port: 5432,
  sslEnabled: true,
  sslCustomCertificatesEnabled: false,
  sshEnabled: true,
  sshHost: 'bastion',
  sshPort: 22,
  sshUsername: 'tunnel',
  bigQueryProjectId: null,
  spannerInstanceId: null,
  snowflakeAccountId: null,
  snowflakeWarehouse: null,
  snowflakeRole: null,
  lastSuccessfulSyncAt: null,
  lastSyncStatus: 'PENDING',
  lastSyncAttemptAt: null,
  hasCompletedFirstSync: false,
  syncErrorMessage: null,
  lastHealthyAt: null,
  lastHealthStatus: null,
  lastHealthCheckAttemptAt: null,
  isDemo: false,
  isServiceWarehouse: false,
  storedSecrets: ['password', 'sshPrivateKey'],
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
});

describe('hydration', () => {
  it('hydrates server HTML without a mismatch', async () => {
    const client = createClient(
      { baseUrl: '', apiKey: 'k' },
      vi.fn(() => new Promise<Response>(() => {})),
    );
    const app = (
      <BridgeProvider client={client} theme="dark">
        <MemberCard member={member} />
        <OrgPicker />
        <DataSourceForm orgId={ORG} dataSource={record} />
      </BridgeProvider>
    );
    const container = document.createElement('div');
    container.innerHTML = renderToString(app);
    document.body.append(container);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const recoverable = vi.fn();

    const root = await act(async () =>
      hydrateRoot(container, app, { onRecoverableError: recoverable }),
    );

    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.textContent).toContain('Ada Lovelace');
    act(() => root.unmount());
    container.remove();
    errors.mockRestore();
  });
});
