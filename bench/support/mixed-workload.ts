// The soak's mixed workload: every public endpoint in turn, per connection, on a seeded world.
// bench/soak.ts runs it against one bridge; test/scale runs it against several at once.
import { randomBytes } from 'node:crypto';
import { ErrorBody } from '@bridgekit/contract';
import type autocannon from 'autocannon';
import { type BridgeData, createApiKey } from '../../test/support/bridge-data';
import type { BridgeProcess } from '../../test/support/bridge-process';
import { signFreshSsoToken } from './sso-token';

export const SSO_EMAILS = 500;

export type Step = {
  name: string;
  /** Statuses this step is meant to get. */
  expect: number[];
  /**
   * An answer that is right under this load but not what the step is for, named (reported apart,
   * not counted as unexpected); undefined for any other answer.
   */
  tolerate?: (status: number, body: string) => string | undefined;
  onResponse?: (status: number, body: string, context: object) => void;
} & Omit<autocannon.Request, 'onResponse'>;

const unique = () => randomBytes(6).toString('hex');

export async function seed(bridge: BridgeProcess, data: BridgeData) {
  const { key } = await createApiKey(data, 'soak@example.com');
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${bridge.url}${path}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`seed ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()).data;
  };
  const org = await post('/api/public/organizations?include=jwtSecret', { name: 'Soak' });
  const member = await post(`/api/public/organizations/${org.id}/members`, {
    email: 'soak-member@example.com',
    role: 'MEMBER',
  });
  return { auth, orgId: org.id as string, jwtSecret: org.jwtSecret as string, memberId: member.id };
}

/** The connection cap's refusal (429 `connections_busy`), as documented. */
function busyAnswer(body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  const answer = ErrorBody.safeParse(parsed);
  return (
    answer.success &&
    answer.data.error.code === 'connections_busy' &&
    answer.data.error.params?.retryAfter === 1
  );
}

/** One pass over every endpoint; each connection loops over it. */
export function steps(world: Awaited<ReturnType<typeof seed>>, closedPort: number): Step[] {
  const { auth, orgId, jwtSecret, memberId } = world;
  const orgPath = `/api/public/organizations/${orgId}`;
  const dsPath = (context: object) =>
    `${orgPath}/data-sources/${(context as { dsId?: string }).dsId ?? 'ds_missing'}`;
  return [
    {
      name: 'list organizations',
      expect: [200],
      method: 'GET',
      path: '/api/public/organizations?limit=20',
      headers: auth,
    },
    { name: 'get organization', expect: [200], method: 'GET', path: orgPath, headers: auth },
    {
      name: 'create organization',
      expect: [201],
      method: 'POST',
      path: '/api/public/organizations',
      headers: auth,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: `Soak ${unique()}` }) }),
    },
    {
      name: 'list members',
      expect: [200],
      method: 'GET',
      path: `${orgPath}/members?limit=20`,
      headers: auth,
    },
    {
      name: 'get member',
      expect: [200],
      method: 'GET',
      path: `${orgPath}/members/${memberId}`,
      headers: auth,
    },
    {
      name: 'add member',
      expect: [201],
      method: 'POST',
      path: `${orgPath}/members`,
      headers: auth,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({ email: `m-${unique()}@example.com`, role: 'MEMBER' }),
      }),
    },
    {
      name: 'list data sources',
      expect: [200],
      method: 'GET',
      path: `${orgPath}/data-sources?limit=20`,
      headers: auth,
    },
    {
      name: 'create data source',
      expect: [201],
      method: 'POST',
      path: `${orgPath}/data-sources`,
      headers: auth,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({
          dialect: 'POSTGRES',
          displayName: `Soak ${unique()}`,
          host: 'db.example.com',
          username: 'app',
          password: 'soak-password',
        }),
      }),
      onResponse: (status, body, context) => {
        (context as { dsId?: string }).dsId = status === 201 ? JSON.parse(body).data.id : undefined;
      },
    },
    {
      name: 'get data source',
      expect: [200],
      method: 'GET',
      headers: auth,
      setupRequest: (req, context) => ({ ...req, path: dsPath(context) }),
    },
    {
      name: 'update data source',
      expect: [200],
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({ description: 'soaked', port: 6543 }),
      setupRequest: (req, context) => ({ ...req, path: dsPath(context) }),
    },
    {
      name: 'delete data source',
      expect: [200],
      method: 'DELETE',
      headers: auth,
      setupRequest: (req, context) => ({ ...req, path: dsPath(context) }),
    },
    {
      name: 'verify (refused port)',
      expect: [422],
      // Every connection slot taken (8 attempts in flight per process): the cap's own 429. The
      // connections tend to reach this step together, so a fast machine sees it often.
      tolerate: (status, body) => (status === 429 && busyAnswer(body) ? 'slots busy' : undefined),
      method: 'POST',
      path: `${orgPath}/data-sources/verify`,
      headers: auth,
      body: JSON.stringify({
        dialect: 'POSTGRES',
        host: '127.0.0.1',
        port: closedPort,
        username: 'app',
        password: 'soak-password',
        sslEnabled: false,
      }),
    },
    {
      name: 'SSO exchange (fresh jti)',
      expect: [200],
      method: 'POST',
      path: '/api/sso/jwt',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req) => {
        const email = `sso-${Math.floor(Math.random() * SSO_EMAILS)}@example.com`;
        return {
          ...req,
          body: JSON.stringify({ jwt: signFreshSsoToken(jwtSecret, orgId, email) }),
        };
      },
    },
  ];
}
