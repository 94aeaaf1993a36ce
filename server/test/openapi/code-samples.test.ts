import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  curlSample,
  loadApiExamples,
  type RouteDef,
  type RouteExamples,
  routes,
  SAMPLE_BASE_URL,
} from '@bridgekit/contract';
import { createSsoToken, exchangeSsoToken } from '@bridgekit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';

// The reference's curl samples, run by bash against a real bridge: quoting, headers, the
// body and the shell variables standing for credentials all have to work as printed.

let bridge: TestBridge;
let key: string;
let examples: Awaited<ReturnType<typeof loadApiExamples>>;

/** Runs a sample as printed, aimed at this bridge; resolves to the status curl got. */
async function runSample(route: RouteDef, example: RouteExamples, env: Record<string, string>) {
  const source = curlSample(route, example.request)
    .source.replaceAll(SAMPLE_BASE_URL, bridge.url)
    .replace(/^curl(?: -i)?/, `curl -s -o /dev/null -w '%{http_code}'`);
  const { stdout } = await promisify(execFile)('bash', ['-c', source], {
    env: { PATH: process.env.PATH, ...env },
  });
  return Number(stdout);
}

/** An SSO token for the test user of a new organization, as the host backend signs it. */
async function ssoToken(name: string) {
  const created = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
    key,
    body: { name },
  });
  const { id, jwtSecret } = created.body.data;
  return createSsoToken({ secret: jwtSecret, orgId: id, user: { email: 'sample@example.com' } });
}

beforeAll(async () => {
  bridge = await startBridge('sqlite');
  ({ key } = await bridge.newUser());
  examples = await loadApiExamples();
});
afterAll(() => bridge.stop());

describe('curl samples', () => {
  it('create an organization with $BRIDGEKIT_API_KEY, a query and a JSON body', async () => {
    const example = examples.createOrganization!;
    expect(await runSample(routes.createOrganization, example, { BRIDGEKIT_API_KEY: key })).toBe(
      201,
    );
    const listed = await bridge.request('GET', '/api/public/organizations', { key });
    expect(listed.body.data.map((o: { name: string }) => o.name)).toEqual([
      (example.request.body as { name: string }).name,
    ]);
  });

  it('are refused without the key', async () => {
    const example = examples.listOrganizations!;
    expect(await runSample(routes.listOrganizations, example, {})).toBe(401);
  });

  it('exchange $BRIDGEKIT_SSO_TOKEN through a here-document body', async () => {
    const token = await ssoToken('Samples');
    const example = examples.ssoExchange!;
    expect(await runSample(routes.ssoExchange, example, { BRIDGEKIT_SSO_TOKEN: token })).toBe(200);
  });

  it('read, renew and end a session with $BRIDGEKIT_SESSION_TOKEN, not the API key', async () => {
    const { sessionToken } = await exchangeSsoToken({
      baseUrl: bridge.url,
      jwt: await ssoToken('Session samples'),
    });
    const session = { BRIDGEKIT_SESSION_TOKEN: sessionToken };
    // The session-only routes take no API key: with only the key set, the samples send none.
    expect(
      await runSample(routes.ssoSession, examples.ssoSession!, { BRIDGEKIT_API_KEY: key }),
    ).toBe(401);
    expect(await runSample(routes.ssoSession, examples.ssoSession!, session)).toBe(200);
    expect(await runSample(routes.ssoRefresh, examples.ssoRefresh!, session)).toBe(200);
    expect(await runSample(routes.ssoLogout, examples.ssoLogout!, session)).toBe(204);
    // Logout ended it: the same token is refused from now on.
    expect(await runSample(routes.ssoSession, examples.ssoSession!, session)).toBe(401);
  });

  it('quote a body with single quotes and dollar signs so the shell sends it unchanged', async () => {
    const name = `O'Brien's $HOME & "partners"`;
    const example = { ...examples.createOrganization!, request: { body: { name } } };
    expect(await runSample(routes.createOrganization, example, { BRIDGEKIT_API_KEY: key })).toBe(
      201,
    );
    const listed = await bridge.request('GET', '/api/public/organizations', { key });
    expect(listed.body.data.map((o: { name: string }) => o.name)).toContain(name);
  });
});
