import { randomBytes } from 'node:crypto';
import { ErrorCode, ErrorTitle, FieldCode, type RouteDef, statusOf } from '@bridgekit/contract';
import { createSsoToken } from '@bridgekit/node';
import fc from 'fast-check';
import { type Engine, startBridge, type TestBridge, type TestResponse } from '../bridge';
import { freePort } from '../free-port';
import type { WireBody } from './mutations';
import { MARK, type Overrides } from './schema-arbitraries';

/** A real bridge with an organization, a data source holding a secret, and every kind of caller. */
export interface FuzzWorld {
  bridge: TestBridge;
  orgId: string;
  orgSlug: string;
  jwtSecret: string;
  dataSourceId: string;
  /** A webhook endpoint of the organization. */
  webhookEndpointId: string;
  memberId: string;
  /** A MEMBER no caller is: what the fuzzed role changes and removals address. */
  spareMemberId: string;
  adminKey: string;
  memberKey: string;
  sessionToken: string;
  /** A loopback port nothing listens on: verify fails there at once. */
  closedPort: number;
  /** Values that must never appear in a response (jwtSecret has its own rule). */
  secrets: string[];
}

export async function startFuzzWorld(engine: Engine): Promise<FuzzWorld> {
  const bridge = await startBridge(engine, {
    BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
    BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: '1000000',
    BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1000000',
    BRIDGE_VERIFY_TIMEOUT_MS: '1000',
    BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
  });
  const admin = await bridge.newUser();
  const member = await bridge.newUser();
  const org = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
    key: admin.key,
    body: { name: 'Fuzz Org' },
  });
  if (org.status !== 201) throw new Error(`create organization: ${org.text}`);
  const orgId: string = org.body.data.id;
  const added = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
    key: admin.key,
    body: { email: member.email, role: 'MEMBER' },
  });
  if (added.status !== 201) throw new Error(`add member: ${added.text}`);
  const spare = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
    key: admin.key,
    body: { email: 'fuzz-spare@example.com', role: 'MEMBER' },
  });
  if (spare.status !== 201) throw new Error(`add member: ${spare.text}`);
  const fixturePassword = `${MARK}-fixture-${randomBytes(8).toString('hex')}`;
  const ds = await bridge.request('POST', `/api/public/organizations/${orgId}/data-sources`, {
    key: admin.key,
    body: {
      dialect: 'POSTGRES',
      displayName: 'Fuzz DS',
      host: 'db.example.com',
      username: 'app',
      password: fixturePassword,
    },
  });
  if (ds.status !== 201) throw new Error(`create data source: ${ds.text}`);
  const hook = await bridge.request(
    'POST',
    `/api/public/organizations/${orgId}/webhook-endpoints`,
    {
      key: admin.key,
      body: { url: 'https://hooks.example.com/fuzz', eventTypes: ['member.added'] },
    },
  );
  if (hook.status !== 201) throw new Error(`create webhook endpoint: ${hook.text}`);
  const jwt = await createSsoToken({
    secret: org.body.data.jwtSecret,
    orgId,
    user: { email: 'fuzz-session@example.com' },
  });
  const session = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
  if (session.status !== 200) throw new Error(`session: ${session.text}`);
  return {
    bridge,
    orgId,
    orgSlug: org.body.data.slug,
    jwtSecret: org.body.data.jwtSecret,
    dataSourceId: ds.body.data.id,
    webhookEndpointId: hook.body.data.id,
    memberId: added.body.data.id,
    spareMemberId: spare.body.data.id,
    adminKey: admin.key,
    memberKey: member.key,
    sessionToken: session.body.data.sessionToken,
    closedPort: await freePort(),
    secrets: [
      admin.key,
      member.key,
      session.body.data.sessionToken,
      fixturePassword,
      hook.body.data.secret,
    ],
  };
}

/** The `Authorization` header of a caller: mostly the admin, sometimes anyone else. */
export const callers = (world: FuzzWorld): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(`Bearer ${world.adminKey}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${world.memberKey}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${world.sessionToken}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        undefined,
        'Bearer',
        'Basic abc',
        `Bearer bk_key_${'A'.repeat(32)}`,
        'Bearer eyJhbGciOiJub25lIn0.e30.',
      ),
    },
  );

/** The path of a route with the world's ids in its `{params}`. */
export function pathOf(route: RouteDef, world: FuzzWorld): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'orgId') return world.orgId;
    if (name === 'id' && route.path.includes('/members/')) {
      // Role changes and removals leave the callers' own memberships as they are.
      return route.method === 'get' ? world.memberId : world.spareMemberId;
    }
    if (name === 'id' && route.path.includes('/webhook-endpoints/')) return world.webhookEndpointId;
    if (name === 'id') return world.dataSourceId;
    if (name === 'slug') return world.orgSlug;
    throw new Error(`no fuzz value for path parameter {${name}} of ${route.path}`);
  });
}

export interface Sent {
  method: string;
  path: string;
  /** The `Authorization` header, if any. */
  caller?: string | undefined;
  body?: WireBody;
  /** A 400 here can only come from fields (a JSON object body, or the query): it names them. */
  fieldSpecific?: boolean;
}

/** Sends one fuzzed request as built, without fixing anything up. */
export function send(world: FuzzWorld, sent: Sent): Promise<TestResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (sent.caller !== undefined) headers.authorization = sent.caller;
  if (sent.body?.contentType !== undefined) headers['content-type'] = sent.body.contentType;
  // The embed page always sends it; without it every body would stop at the 403.
  if (sent.path === '/embed/session') headers['x-bridgekit-embed'] = '1';
  return world.bridge.request(sent.method, sent.path, { headers, rawBody: sent.body?.text });
}

const ENVELOPE_KEYS = new Set(['title', 'code', 'detail', 'fieldErrors', 'fieldCodes', 'params']);

/** Strings of the request that must not come back: marked secrets the fuzzer generated. */
function sentSecrets(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' && value.includes(MARK)) out.push(value);
  else if (value && typeof value === 'object')
    for (const v of Object.values(value)) sentSecrets(v, out);
  return out;
}

/**
 * What every answer must be: never a 5xx; an error is exactly the envelope with a contract title
 * matching its status; a success matches the route's schema; no secret anywhere.
 */
export function checkAnswer(
  route: RouteDef,
  world: FuzzWorld,
  sent: Sent,
  res: TestResponse,
): void {
  const where = `${sent.method} ${sent.path.slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;
  const fail = (why: string) => {
    throw new Error(`${why}\n  ${where}\n  body sent: ${sent.body?.text.slice(0, 300)}`);
  };
  if (res.status >= 500) fail('5xx');
  if (!res.headers.get('x-request-id')) fail('no X-Request-Id');
  if (res.status >= 400) {
    const error = res.body?.error;
    if (!error || Object.keys(res.body).length !== 1) fail('not the error envelope');
    if (!Object.keys(error).every((k) => ENVELOPE_KEYS.has(k))) fail('extra keys in the error');
    if (!ErrorTitle.safeParse(error.title).success) fail('unknown error title');
    if (typeof error.detail !== 'string' || error.detail.length === 0) fail('no detail');
    if (statusOf[error.title as ErrorTitle] !== res.status) fail('title does not match the status');
    if (!ErrorCode.safeParse(error.code).success) fail('unknown error code');
    if (error.fieldErrors !== undefined) {
      const values = Object.values(error.fieldErrors);
      if (!values.every((v) => typeof v === 'string')) fail('fieldErrors are not strings');
      const codes = error.fieldCodes ?? {};
      if (Object.keys(codes).join() !== Object.keys(error.fieldErrors).join())
        fail('fieldCodes do not name the fields of fieldErrors');
      if (!Object.values(codes).every((c) => FieldCode.safeParse(c).success))
        fail('unknown field code');
    }
    const named = error.fieldErrors && Object.keys(error.fieldErrors).length > 0;
    if (sent.fieldSpecific && error.title === 'ValidationError' && !named) fail('no fieldErrors');
    if (error.title === 'VerificationFailed' && !named) fail('no fieldErrors');
    if (res.status === 401 && res.headers.get('www-authenticate') !== 'Bearer')
      fail('no challenge');
  } else if (res.status < 300 && route.response) {
    const parsed = route.response.safeParse(res.body);
    if (!parsed.success)
      fail(`success body off the contract: ${parsed.error.message.slice(0, 300)}`);
  }
  for (const secret of [...world.secrets, ...sentSecrets(sent.body?.value)]) {
    if (res.text.includes(secret)) fail(`secret in the answer: ${secret.slice(0, 40)}`);
  }
  // The jwtSecret is returned only to an ADMIN who asked for it.
  const asked =
    res.status < 300 &&
    sent.path.includes('jwtSecret') &&
    sent.caller === `Bearer ${world.adminKey}`;
  if (!asked && res.text.includes(world.jwtSecret)) fail('jwtSecret in the answer');
}

/** `FUZZ_SEED=… npx vitest run fuzz-` replays a failure fast-check reported. */
export const fuzzParameters = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns,
  // Counterexamples may hold 100 kB strings: report them shortened.
  reporter(details) {
    if (!details.failed) return;
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : '';
    const message = `${cause}\n${fc.defaultReportMessage(details) ?? 'property failed'}`;
    throw new Error(message.length > 6000 ? `${message.slice(0, 6000)}… (shortened)` : message);
  },
  // Chosen here rather than by fast-check, so a test's own assertions can name it too:
  // FUZZ_SEED=<seed> replays a run.
  seed: process.env.FUZZ_SEED
    ? Number(process.env.FUZZ_SEED)
    : Math.floor(Math.random() * 0x7fffffff),
});

/**
 * Host spellings that stay on this machine without asking DNS: the network policy judges an
 * address by what it is, however it is written (`0x7f.1`, `2130706433`, `::ffff:127.0.0.1`).
 */
const LOCAL_HOSTS = [
  '127.0.0.1',
  'localhost',
  '::1',
  '0x7f.1',
  '2130706433',
  '::ffff:127.0.0.1',
  '169.254.169.254',
  '0.0.0.0',
  '[::1]',
];

/**
 * Verify really connects: keep every host it could reach on loopback and every port on one
 * that refuses, so the fuzzer sends nothing off this machine. Other hostile values stay.
 */
export function loopbackOnly(world: FuzzWorld): (body: WireBody) => WireBody {
  return (body) => {
    const value = body.value;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return body;
    const copy = { ...(value as Record<string, unknown>) };
    for (const field of ['host', 'sshHost']) {
      const v = copy[field];
      if (typeof v === 'string' && v.length <= 253 && !LOCAL_HOSTS.includes(v))
        copy[field] = '127.0.0.1';
    }
    // An omitted port would mean the dialect's default: the machine's shared PostgreSQL or
    // MariaDB. Those stay untouched.
    for (const field of ['port', 'sshPort']) {
      const v = copy[field];
      if (v === undefined || (typeof v === 'number' && v >= 0 && v <= 65535)) {
        copy[field] = world.closedPort;
      }
    }
    return { ...body, text: JSON.stringify(copy), value: copy };
  };
}

export const localHosts = (world: FuzzWorld): Overrides => ({
  host: fc.constantFrom(...LOCAL_HOSTS),
  sshHost: fc.constantFrom(...LOCAL_HOSTS),
  port: fc.constant(world.closedPort),
  sshPort: fc.constant(world.closedPort),
});
