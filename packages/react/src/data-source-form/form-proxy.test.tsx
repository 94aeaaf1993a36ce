import { type ClientRouteId, createProxyClient } from '@bridgekit/client';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dataSource } from '../../../../test/support/fixtures';
import { settled } from '../../test/render-kit';
import { BridgeProvider } from '../provider/bridge-provider';
import { DataSourceForm } from './data-source-form';

// DataSourceForm on the browser half of the API-key proxy: what the proxy does not forward is
// said up front, in words a host's user understands, instead of failing after the user typed.

afterEach(cleanup);

const ORG = 'org_0000000001';
const warehouse = dataSource({ displayName: 'Warehouse' });
const SAVE_NOT_AVAILABLE =
  "Data sources can't be added or changed here: this page's server does not pass that on to the bridge.";
const VERIFY_NOT_AVAILABLE =
  "Testing the connection isn't available here: this page's server does not pass it on to the bridge. A data source is saved only after a test, so this form is read-only.";
const SAVE_UNTESTED =
  "Testing the connection isn't available here: this page's server does not pass it on to the bridge. Save stores the settings without testing them.";

function renderOnProxy(ui: React.ReactElement, routes?: ClientRouteId[]) {
  const fetch = vi.fn(async () => new Response('{}', { status: 500 }));
  const client = createProxyClient({ baseUrl: 'https://host.test/bridge', routes, fetch });
  render(<BridgeProvider client={client}>{ui}</BridgeProvider>);
  return { fetch };
}

const button = (name: string) => screen.queryByRole('button', { name });

describe('DataSourceForm on a proxy client', () => {
  it('says up front that data sources cannot be added here (read-only proxy), and asks nothing', async () => {
    const { fetch } = renderOnProxy(<DataSourceForm orgId={ORG} />);
    await settled();

    expect(screen.getByRole('status').textContent).toBe(SAVE_NOT_AVAILABLE);
    expect(screen.queryByLabelText('Host')).toBeNull();
    expect(button('Test connection')).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('shows a record read-only, saying why, when the proxy does not forward updates', async () => {
    renderOnProxy(<DataSourceForm orgId={ORG} dataSource={warehouse} />);
    await settled();

    expect(screen.getByRole('status').textContent).toBe(SAVE_NOT_AVAILABLE);
    expect((screen.getByLabelText('Host') as HTMLInputElement).readOnly).toBe(true);
    expect(button('Save')).toBeNull();
  });

  it('says a test is not available, and so nor is saving, when a test is required', async () => {
    renderOnProxy(<DataSourceForm orgId={ORG} />, ['createDataSource']);
    await settled();

    expect(screen.getByRole('status').textContent).toBe(VERIFY_NOT_AVAILABLE);
    expect(screen.queryByLabelText('Host')).toBeNull();
  });

  it('offers Save without Test connection, and says so, when no test is required', async () => {
    renderOnProxy(<DataSourceForm orgId={ORG} requireVerify={false} />, ['createDataSource']);
    await settled();

    expect(screen.getByText(SAVE_UNTESTED)).toBeTruthy();
    expect(button('Test connection')).toBeNull();
    expect(button('Save')).not.toBeNull();
    expect((screen.getByLabelText('Host') as HTMLInputElement).readOnly).toBe(false);
  });

  it('is the usual form on a proxy that forwards the test and the write', async () => {
    renderOnProxy(<DataSourceForm orgId={ORG} />, ['createDataSource', 'verifyDataSource']);
    await settled();

    expect(button('Test connection')).not.toBeNull();
    expect(screen.queryByText(SAVE_UNTESTED)).toBeNull();
  });
});
