import { dataOf, type Organization, OrganizationWithSecret } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import {
  claimsFor,
  createSharedPg,
  embedSignIn,
  kitSignIn,
  signHs256,
  startBridgeOn,
} from '../sso/support';
import { frameAncestorsOf, fullEmbedStatus, preflight } from './support';

const OLD = 'https://old-host.example.com';
const NEW = 'https://new-host.example.com';

/** `via` takes the changes; `next` serves the requests after them (another instance, or the same). */
interface Setup {
  via: TestBridge;
  next: TestBridge;
  stop(): Promise<void>;
}

const single = (engine: 'sqlite' | 'postgres') => async (): Promise<Setup> => {
  const bridge = await startBridge(engine);
  return { via: bridge, next: bridge, stop: () => bridge.stop() };
};

async function twoInstances(): Promise<Setup> {
  const pg = await createSharedPg();
  const via = await startBridgeOn(pg);
  const next = await startBridgeOn(pg);
  return {
    via,
    next,
    async stop() {
      await via.stop();
      await next.stop();
      await pg.drop();
    },
  };
}

describe.each(
  (
    [
      ['SQLite', 'sqlite', single('sqlite')],
      ['PostgreSQL', 'postgres', single('postgres')],
      ['two bridges on one PostgreSQL', 'postgres', twoInstances],
    ] as const
  )
    .filter(([, engine]) => ENGINES.includes(engine))
    .map(([name, , setup]) => [name, setup] as const),
)('the whole lifecycle of an organization on %s', (_name, setup) => {
  let env: Setup;
  let admin: { key: string; email: string };
  let org: Organization & { jwtSecret: string };
  let previousSecret: string;
  let graceEnd: number;
  let embedToken: string;

  beforeAll(async () => {
    env = await setup();
    admin = await env.via.newUser();
  });
  afterAll(() => env?.stop());

  const orgPath = () => `/api/public/organizations/${org.id}`;
  const exchangeOn = async (bridge: TestBridge, secret: string, at = new Date()) => {
    const iat = Math.floor(at.getTime() / 1000);
    const jwt = await signHs256(claimsFor(org.id, { iat, exp: iat + 600 }), secret);
    return bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
  };

  it('creates the organization for full embed from the old origin', async () => {
    const res = await env.via.request('POST', '/api/public/organizations?include=jwtSecret', {
      key: admin.key,
      body: { name: 'Lifecycle Co', fullEmbedEnabled: true, embedAllowedOrigins: [OLD] },
    });
    expect(res.status).toBe(201);
    org = dataOf(OrganizationWithSecret).parse(res.body).data;
    expect(
      await fullEmbedStatus(env.next, await signHs256(claimsFor(org.id), org.jwtSecret), OLD),
    ).toBe(302);
  });

  it('moves its origins to the new host', async () => {
    const res = await env.via.request('PATCH', orgPath(), {
      key: admin.key,
      body: { embedAllowedOrigins: [NEW] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.embedAllowedOrigins).toEqual([NEW]);
  });

  it('embeds from the new origin', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    expect(await fullEmbedStatus(env.next, jwt, NEW)).toBe(302);
    expect(await frameAncestorsOf(env.next, org.slug)).toBe(NEW);
    embedToken = (await embedSignIn(env.next, org, NEW)).sessionToken;
    const api = await env.next.request('GET', orgPath(), {
      key: embedToken,
      headers: { origin: NEW },
    });
    expect(api.status).toBe(200);
    expect(api.headers.get('access-control-allow-origin')).toBe(NEW);
    expect((await preflight(env.next, orgPath(), NEW)).status).toBe(204);
  });

  it('refuses to embed from the old origin', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    expect(await fullEmbedStatus(env.next, jwt, OLD)).toBe(403);
    expect((await preflight(env.next, orgPath(), OLD)).status).toBe(403);
    const api = await env.next.request('GET', orgPath(), {
      key: embedToken,
      headers: { origin: OLD },
    });
    expect(api.status).toBe(403);
  });

  it('rotates the secret; tokens of the previous one verify inside the grace period', async () => {
    const res = await env.via.request('POST', `${orgPath()}/jwt-secret`, { key: admin.key });
    expect(res.status).toBe(200);
    const rotated = dataOf(OrganizationWithSecret).parse(res.body).data;
    previousSecret = org.jwtSecret;
    org = rotated;
    graceEnd = Date.parse(rotated.previousJwtSecretExpiresAt ?? '');
    expect((await exchangeOn(env.next, previousSecret)).status).toBe(200);
    expect((await exchangeOn(env.next, org.jwtSecret)).status).toBe(200);
  });

  it('refuses tokens of the previous secret after the grace period', async () => {
    const after = new Date(graceEnd + 1000);
    for (const bridge of [env.via, env.next]) bridge.deps.now = () => after;
    try {
      const late = await exchangeOn(env.next, previousSecret, after);
      expect(late.status).toBe(401);
      expect(late.body.error.title).toBe('Unauthorized');
      expect((await exchangeOn(env.next, org.jwtSecret, after)).status).toBe(200);
      const read = await env.next.request('GET', orgPath(), { key: admin.key });
      expect(read.body.data.previousJwtSecretExpiresAt).toBeNull();
    } finally {
      for (const bridge of [env.via, env.next]) bridge.deps.now = () => new Date();
    }
  });

  it('demotes and removes members, effective on their sessions at once; the last ADMIN stays', async () => {
    const demoted = await kitSignIn(env.next, org, { role: 'ADMIN' });
    const removed = await kitSignIn(env.next, org, { role: 'MEMBER' });
    const members = `${orgPath()}/members`;
    expect(
      (
        await env.via.request('PATCH', `${members}/${demoted.member.id}`, {
          key: admin.key,
          body: { role: 'MEMBER' },
        })
      ).status,
    ).toBe(200);
    const refused = await env.next.request('PATCH', orgPath(), {
      key: demoted.sessionToken,
      body: { name: 'Not Allowed' },
    });
    expect(refused.status).toBe(403);
    expect(
      (await env.via.request('DELETE', `${members}/${removed.member.id}`, { key: admin.key }))
        .status,
    ).toBe(200);
    expect((await env.next.request('GET', orgPath(), { key: removed.sessionToken })).status).toBe(
      401,
    );
    const list = await env.via.request('GET', members, { key: admin.key });
    const self = list.body.data.find((m: { role: string }) => m.role === 'ADMIN');
    const last = await env.via.request('DELETE', `${members}/${self.id}`, { key: admin.key });
    expect(last.status).toBe(409);
    expect(last.body.error.title).toBe('Conflict');
  });

  it('deletes the organization: gone on the next request, its sessions ended', async () => {
    const res = await env.via.request('DELETE', orgPath(), { key: admin.key });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(org.id);
    expect((await env.next.request('GET', orgPath(), { key: admin.key })).status).toBe(404);
    expect((await env.next.request('GET', orgPath(), { key: embedToken })).status).toBe(401);
    expect((await exchangeOn(env.next, org.jwtSecret)).status).toBe(401);
    expect(
      await fullEmbedStatus(env.next, await signHs256(claimsFor(org.id), org.jwtSecret), NEW),
    ).toBe(401);
  });
});
