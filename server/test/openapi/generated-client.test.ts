import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';

// A client generated from the served document by tools we did not write (openapi-typescript's
// types, openapi-fetch's client): it compiles under strict options, narrows `error.code` per
// operation and status, and runs a flow against the bridge at the document's `servers` origin.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
// Under the repository's node_modules, so the generated files resolve openapi-fetch.
const DIR = path.join(ROOT, 'node_modules/.cache', `bk-generated-client-${process.pid}`);

let bridge: TestBridge;
let doc: { servers: { url: string }[] };

/** GET the document with `headers` (a Host header too, which fetch will not send). */
function getDocument(headers: Record<string, string>) {
  const url = new URL('/api/public/openapi.json', bridge.url);
  return new Promise<{ servers: { url: string }[] }>((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
  });
}

const CLIENT = `import createClient from 'openapi-fetch';
import type { operations, paths } from './api';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const check = <T extends true>(_: T) => undefined;
type CodeOf<Op extends keyof operations, S extends keyof operations[Op]['responses']> =
  operations[Op]['responses'][S] extends { content: { 'application/json': { error: { code: infer C } } } } ? C : never;

// Per operation and status, the codes it can answer, and no other.
check<Equal<CodeOf<'getMember', 403>, 'origin_not_allowed'>>(true);
check<Equal<CodeOf<'getMember', 404>, 'organization_not_found' | 'not_found' | 'member_not_found'>>(true);
check<Equal<CodeOf<'listOrganizations', 400>, 'unknown_parameter' | 'unexpected_body' | 'malformed_request' | 'validation_failed' | 'invalid_cursor'>>(true);
check<Equal<CodeOf<'createOrganization', 409>, 'slug_taken' | 'slug_unavailable'>>(true);

/** A flow with the generated client: no base URL of its own, the document's \`servers\` one. */
export async function flow(baseUrl: string, key: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const created = await client.POST('/api/public/organizations', {
    body: { name: 'Generated client' },
  });
  if (!created.data) throw new Error('create failed');
  const orgId: string = created.data.data.id;
  const read = await client.GET('/api/public/organizations/{orgId}', {
    params: { path: { orgId } },
  });
  const bad = await client.GET('/api/public/organizations', {
    params: { query: { cursor: 'nope' } },
  });
  let code: string | undefined;
  if (bad.error) {
    // Narrowed: listOrganizations can answer only these with a 400 (and the other statuses').
    const c = bad.error.error.code;
    code = c;
  }
  return { orgId, name: read.data?.data.name, status: bad.response.status, code };
}
`;

beforeAll(async () => {
  bridge = await startBridge('sqlite', { BRIDGE_TRUST_PROXY: 'loopback' });
  const res = await bridge.request('GET', '/api/public/openapi.json');
  doc = res.body;
  fs.mkdirSync(DIR, { recursive: true });
  // The served document, types generated as openapi-typescript's CLI does.
  const ast = await openapiTS(JSON.stringify(doc));
  fs.writeFileSync(path.join(DIR, 'api.ts'), astToString(ast));
  fs.writeFileSync(path.join(DIR, 'client.ts'), CLIENT);
}, 60_000);

afterAll(async () => {
  await bridge?.stop();
  fs.rmSync(DIR, { recursive: true, force: true });
});

describe('the document served', () => {
  it("names the bridge's own origin in servers", () => {
    expect(doc.servers).toEqual([{ url: bridge.url, description: 'This bridge' }]);
  });

  it('names the origin a client reached, behind a trusted proxy', async () => {
    const seen = await getDocument({ host: 'bi.example.com:8443', 'x-forwarded-proto': 'https' });
    expect(seen.servers[0]?.url).toBe('https://bi.example.com:8443');
  });

  it('falls back to / for a Host that is no origin', async () => {
    const seen = await getDocument({ host: 'a b' });
    expect(seen.servers[0]?.url).toBe('/');
  });
});

describe('a client generated from it', () => {
  it('type-checks under strict options, narrowing error codes per operation', async () => {
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--exactOptionalPropertyTypes',
      '--noUncheckedIndexedAccess',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'esnext',
      '--moduleResolution',
      'bundler',
      path.join(DIR, 'client.ts'),
    ];
    const run = await promisify(execFile)(process.execPath, [tsc, ...args]).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    expect(run).toBe('');
  }, 60_000);

  it('runs a flow at the servers origin', async () => {
    const { key } = await bridge.newUser();
    const client = (await import(path.join(DIR, 'client.ts'))) as {
      flow(baseUrl: string, key: string): Promise<Record<string, unknown>>;
    };
    const result = await client.flow(doc.servers[0]!.url, key);
    expect(result).toMatchObject({
      name: 'Generated client',
      status: 400,
      code: 'invalid_cursor',
    });
  });
});
