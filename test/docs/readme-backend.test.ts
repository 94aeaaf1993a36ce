// The README's "Use it in your app", run as a new user would: its curl line creates the
// organization on a real bridge, its backend sample runs as written (only its port changed) with
// the organization's id and secret, and the session it hands out works on the bridge.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../support/bridge';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait';
import { codeBlocks, ROOT, read } from './markdown';

const blocks = codeBlocks(read('README.md'));
const curl = blocks.find((b) => b.lang === 'sh' && b.code.includes('curl -X POST'));
const backend = blocks.find((b) => b.lang === 'ts' && b.code.includes("from '@bridgekit/node'"));

// Under node_modules so the sample's imports resolve as from the repository root.
const SCRATCH = path.join(ROOT, 'node_modules/.cache/bridgekit-docs');

describe("the README's backend, run", () => {
  let bridge: TestBridge;
  let server: ChildProcess | undefined;
  let file: string | undefined;

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
  });
  afterAll(async () => {
    server?.kill();
    if (file) fs.rmSync(file, { force: true });
    await bridge?.stop();
  });

  it('creates the organization, signs a user in and hands out a session the bridge accepts', {
    timeout: 60_000,
  }, async () => {
    expect(curl, 'a curl block that creates the organization').toBeDefined();
    expect(backend, 'a ts block with the backend').toBeDefined();
    const { key } = await bridge.newUser();

    // Asynchronously: the bridge answering curl runs in this process.
    const { stdout } = await promisify(execFile)(
      'bash',
      ['-c', curl!.code.replaceAll('http://localhost:4000', bridge.url)],
      { env: { ...process.env, BRIDGE_API_KEY: key } },
    );
    const created = JSON.parse(stdout);
    expect(created.data).toMatchObject({
      name: 'Acme',
      embedAllowedOrigins: ['http://localhost:5173'],
    });
    expect(created.data.jwtSecret).toEqual(expect.any(String));

    const port = await freePort();
    const code = backend!.code.replace('app.listen(3000)', `app.listen(${port})`);
    expect(code, 'the sample listens on 3000').not.toBe(backend!.code);
    fs.mkdirSync(SCRATCH, { recursive: true });
    file = path.join(SCRATCH, `readme-server-${process.pid}-${port}.ts`);
    fs.writeFileSync(file, code);
    server = spawn(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      ['--conditions=bridgekit-source', file],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          BRIDGE_URL: bridge.url,
          BRIDGE_ORG_ID: created.data.id,
          BRIDGE_ORG_SECRET: created.data.jwtSecret,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );

    const answer = await waitFor(
      () => fetch(`http://127.0.0.1:${port}/bridge/session`, { method: 'POST' }),
      { timeoutMs: 30_000, what: "the README's backend" },
    );
    expect(answer.status).toBe(200);
    const session = (await answer.json()) as { sessionToken: string; expiresAt: string };
    expect(Object.keys(session).sort()).toEqual(['expiresAt', 'sessionToken']);
    expect(JSON.stringify(session)).not.toContain(created.data.jwtSecret);

    const me = await bridge.request('GET', '/api/sso/session', { key: session.sessionToken });
    expect(me.status).toBe(200);
    expect(me.text).toContain('ada@example.com');
    expect(me.text).toContain(created.data.id);
    expect(me.text).toContain('ADMIN');
  });
});
