import { createClient } from '@bridgekit/client';
import { act } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { dataSource, member } from '../../../test/support/fixtures';
import { BridgeProvider, DataSourceForm, MemberCard, OrgPicker } from '../src';

const ORG = 'org_0000000001';
const ada = member({ user: { fullName: 'Ada Lovelace' } });
const record = dataSource({
  databaseName: null,
  sshEnabled: true,
  sshHost: 'bastion',
  sshPort: 22,
  sshUsername: 'tunnel',
  storedSecrets: ['password', 'sshPrivateKey'],
});

describe('hydration', () => {
  it('hydrates server HTML without a mismatch', async () => {
    const client = createClient(
      { baseUrl: '', apiKey: 'k' },
      vi.fn(() => new Promise<Response>(() => {})),
    );
    const app = (
      <BridgeProvider client={client} theme="dark">
        <MemberCard member={ada} />
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
