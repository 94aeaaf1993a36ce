/** @vitest-environment node */
import { createClient } from '@bridgekit/client';
import { Member } from '@bridgekit/contract';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { BridgeProvider, DataSourceForm, MemberCard, OrgPicker } from '../src';

const ORG = 'org_0000000001';
const member = Member.parse({
  id: 'mem_0000000001',
  createdAt: '2025-03-03T10:00:00.000Z',
  role: 'MEMBER',
  userId: 'usr_0000000001',
  organizationId: ORG,
  user: {
    id: 'usr_0000000001',
    fullName: 'Grace Hopper',
    firstName: 'Grace',
    title: null,
    avatarUrl: null,
    email: 'grace@example.com',
    isEmailVerified: false,
    createdAt: '2025-03-01T10:00:00.000Z',
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
        <MemberCard member={member} />
        <MemberCard orgId={ORG} memberId={member.id} />
        <OrgPicker defaultValue={null} />
        <DataSourceForm orgId={ORG} />
        <DataSourceForm orgId={ORG} dataSourceId="ds_0000000001" />
      </BridgeProvider>,
    );

    expect(html).toContain('Grace Hopper');
    expect(html).toContain('data-state="loading"');
    expect(html).toContain('Select an organization');
    expect(html).toContain('Test connection');
    expect(html).toContain('Loading data source…');
    expect(html).toContain('data-bk-theme="auto"');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('renders with baseUrl and getSessionToken without calling either', () => {
    const getSessionToken = vi.fn(() => 'token');

    const html = renderToString(
      <BridgeProvider baseUrl="https://bridge.test" getSessionToken={getSessionToken}>
        <MemberCard orgId={ORG} memberId={member.id} />
      </BridgeProvider>,
    );

    expect(html).toContain('aria-busy="true"');
    expect(getSessionToken).not.toHaveBeenCalled();
  });
});
