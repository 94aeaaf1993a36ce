/** @vitest-environment node */
import { createClient } from '@bridgekit/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { member } from '../../../test/support/fixtures';
import {
  BridgeProvider,
  DataSourceForm,
  DataSourceList,
  MemberCard,
  MemberList,
  OrganizationSettings,
  OrgPicker,
  SchemaBrowser,
} from '../src';

const ORG = 'org_0000000001';
const grace = member({
  role: 'MEMBER',
  user: {
    fullName: 'Grace Hopper',
    firstName: 'Grace',
    email: 'grace@example.com',
    isEmailVerified: false,
  },
});

describe('server rendering', () => {
  it('runs without a DOM', () => {
    expect(typeof window).toBe('undefined');
    expect(typeof document).toBe('undefined');
  });

  it('renders every component with renderToString and sends no request', () => {
    const fetch = vi.fn();
    const client = createClient({ baseUrl: 'https://bridge.test', apiKey: 'k' }, fetch);

    const html = renderToString(
      <BridgeProvider client={client} theme="auto">
        <MemberCard member={grace} />
        <MemberCard orgId={ORG} memberId={grace.id} />
        <OrgPicker defaultValue={null} />
        <DataSourceForm orgId={ORG} />
        <DataSourceForm orgId={ORG} dataSourceId="ds_0000000001" />
        <MemberList orgId={ORG} />
        <OrganizationSettings orgId={ORG} />
        <DataSourceList orgId={ORG} />
        <SchemaBrowser orgId={ORG} dataSourceId="ds_0000000001" />
      </BridgeProvider>,
    );

    expect(html).toContain('Grace Hopper');
    expect(html).toContain('data-state="loading"');
    expect(html).toContain('Select an organization');
    // Both forms wait for the record or for the caller's role, which effects fetch.
    expect(html.match(/<form[^>]*data-state="loading"/g)).toHaveLength(2);
    expect(html).toContain('Loading data source…');
    for (const text of [
      'Loading members…',
      'Loading organization…',
      'Loading data sources…',
      'Loading tables…',
    ]) {
      expect(html).toContain(text);
    }
    expect(html).toContain('data-bk-theme="auto"');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('renders with baseUrl and getSessionToken without calling either', () => {
    const getSessionToken = vi.fn(() => 'token');

    const html = renderToString(
      <BridgeProvider baseUrl="https://bridge.test" getSessionToken={getSessionToken}>
        <MemberCard orgId={ORG} memberId={grace.id} />
      </BridgeProvider>,
    );

    expect(html).toContain('aria-busy="true"');
    expect(getSessionToken).not.toHaveBeenCalled();
  });
});
